/// The machine-readable contract, served by the node: `/v1/openapi.json` (the HTTP
/// endpoints), `/v1/asyncapi.json` (the WebSocket stream) and the JSON Schemas both refer
/// to, at `/v1/schema/NAME.json`. They are `docs/` as it was when the server was built,
/// compiled in by the `EmbedContract` plugin (`Plugins/EmbedContract`): the installed
/// binary and the container image serve the contract of their own code, with no file
/// beside them to install, find or let drift.
enum ContractDocuments {
    /// Each path that serves a document, and the document.
    static let assets: [String: StaticAsset] = Dictionary(
        uniqueKeysWithValues: files.map { ($0.path, StaticAsset(Array($0.text.utf8), contentType: "application/json")) }
    )
}
