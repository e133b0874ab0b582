import Foundation
import TestSupport
import Testing

/// The DocC catalog builds, every symbol link resolving, so the article cannot rot.
@Suite("documentation")
struct DocumentationTests {
    #if os(Linux) && arch(x86_64)
        static let target: String? = "x86_64-unknown-linux-gnu"
    #elseif os(Linux) && arch(arm64)
        static let target: String? = "aarch64-unknown-linux-gnu"
    #else
        static let target: String? = nil
    #endif

    /// The repository, three levels above this file.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test(
        "docc convert builds LocstreamClient.docc against the module's symbols with warnings as errors",
        .enabled(if: target != nil, "the symbol graph is extracted for the Linux targets of CI"))
    func catalogBuilds() throws {
        let scratch = try TemporaryDirectory(prefix: "locstream-docc")
        let symbols = scratch.url.appendingPathComponent("symbols")
        try FileManager.default.createDirectory(at: symbols, withIntermediateDirectories: true)
        let extract = try CommandResult.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "swift-symbolgraph-extract", "-module-name", "LocstreamClient", "-I",
                ServerHarness.binDirectory.appendingPathComponent("Modules").path, "-target", Self.target ?? "",
                "-minimum-access-level", "public", "-output-dir", symbols.path,
            ])
        #expect(extract.status == 0, "\(extract.stderr)")
        let convert = try CommandResult.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "docc", "convert",
                Self.root.appendingPathComponent("Sources/LocstreamClient/LocstreamClient.docc").path,
                "--additional-symbol-graph-dir", symbols.path, "--output-path",
                scratch.url.appendingPathComponent("out").path, "--warnings-as-errors",
            ])
        #expect(convert.status == 0, "\(convert.stderr)")
        let article = scratch.url.appendingPathComponent(
            "out/data/documentation/locstreamclient/followingadevicefromswiftui.json")
        #expect(FileManager.default.fileExists(atPath: article.path), "the article is in the archive")
    }
}
