// libFuzzer entry point for the transport's request checks: each input is read as a
// request head (a request line, then `name: value` lines) and judged by
// `RequestFraming` and `HandshakeCheck`. Any crash, hang or sanitizer report is a
// defect, and so is a verdict that breaks the rules below. Built and run by
// `make fuzz-http`, which compiles this file with Sources/WebSocketTransport/RequestChecks.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestChecks(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let requestLine = (lines.isEmpty ? "" : lines.removeFirst()).split(separator: " ").map(String.init)
    var headers: [String: [String]] = [:]
    var truncated: [String] = []
    for line in lines {
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first?.lowercased() else { continue }
        if line.utf8.count > 200 { truncated.append(name) }
        headers[name, default: []].append(parts.count > 1 ? String(parts[1]) : "")
    }
    let head = RequestHead(
        method: requestLine.first ?? "", target: requestLine.dropFirst().first ?? "",
        version: requestLine.dropFirst(2).first, headers: headers, truncated: truncated)
    let limit = 1000
    switch RequestFraming.bodyLength(of: head, bodyLimit: limit) {
    case .success(let length):
        if length < 0 || length > limit { fatalError("body length \(length) outside 0...\(limit)") }
        if !head.values("transfer-encoding").isEmpty { fatalError("Transfer-Encoding was accepted") }
        if head.values("host").count > 1 { fatalError("two Host headers were accepted") }
        if !truncated.isEmpty { fatalError("a cut header was accepted") }
    case .failure(let refusal):
        if !(400..<600).contains(refusal.status) { fatalError("refused with status \(refusal.status)") }
    }
    if HandshakeCheck.refusal(of: head, subprotocol: "locstream.v1", bodyLimit: limit) == nil {
        if head.values("sec-websocket-version") != ["13"] { fatalError("an upgrade without version 13 passed") }
        if head.values("sec-websocket-key").first?.utf8.count != 24 { fatalError("a malformed key passed") }
    }
    return 0
}
