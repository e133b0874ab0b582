// libFuzzer entry point for the protocol decoder: every input is fed to the decoders
// that face untrusted bytes (`ClientMessage.decode` for WebSocket frames,
// `LocationBatch.decode` for HTTP bodies). Any crash, hang or sanitizer report is a
// defect; a `ProtocolError` is the expected answer to garbage. Built and run by
// `make fuzz`, which compiles this file together with Sources/LocstreamProtocol.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let message = try? ClientMessage.decode(bytes) {
        // What decodes must encode and decode again to the same message.
        let again = try? ClientMessage.decode(message.encoded())
        if again != message { fatalError("re-decoding changed \(message) into \(String(describing: again))") }
    }
    _ = try? LocationBatch.decode(bytes)
    return 0
}
