// libFuzzer entry point for what a node decodes from Redis: channel messages (a seq
// floor, a position line, an encoded location), `last` hash entries, script replies
// (the epoch report and seqs of a publish) and the `INFO server` text. The first byte
// picks the decoder; the rest is its input (for replies, a small byte code that builds
// a reply tree). Any crash, hang or sanitizer report is a defect; a `RedisFailure` or
// nil is the expected answer to garbage. Built and run by `make fuzz-redis`, which
// compiles this file with Sources/LocstreamProtocol and the Redis broker's files that
// import no C.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedisMessages(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0:
        if let message = try? ChannelMessage(payload: input) {
            if message.floor > UInt64.seqLimit { fatalError("floor \(message.floor) above 2^53") }
            checkStored(message.stored)
        }
    case 1:
        if let stored = try? StoredUpdate(payload: input) { checkStored(stored) }
    case 2:
        var cursor = input[...]
        let reply = buildReply(&cursor, depth: 0)
        if let published = try? PublishReply(reply, count: Int(input.first ?? 0) % 4) {
            if published.seqs.contains(where: { $0 <= published.epoch.floor || $0 > UInt64.seqLimit }) {
                fatalError("seqs \(published.seqs) not above floor \(published.epoch.floor)")
            }
        }
        _ = try? EpochReport(reply.elements?[...] ?? [])
    default:
        if let id = RedisServerInfo.runID(input), id.isEmpty || id.utf8.count > 64 { fatalError("run_id \(id)") }
    }
    return 0
}

/// A position line that decodes writes back to one that decodes the same.
private func checkStored(_ stored: StoredUpdate) {
    guard let position = stored.position else { return }
    if PositionLine(parsing: Array(position.text.utf8)) != position, !position.lat.isNaN, !position.lon.isNaN {
        fatalError("position line \(position) does not read back")
    }
}

/// Builds a reply from fuzz bytes: the low bits of each byte pick the kind, an array
/// takes its element count from the next byte, a string the bytes up to a 0.
private func buildReply(_ bytes: inout ArraySlice<UInt8>, depth: Int) -> RedisReply {
    guard let kind = bytes.popFirst() else { return .null }
    switch kind % 5 {
    case 0:
        let text = bytes.prefix { $0 != 0 }
        bytes = bytes.dropFirst(text.count + 1)
        return .string(Array(text))
    case 1:
        var value: Int64 = 0
        for _ in 0..<8 { value = value << 8 | Int64(bytes.popFirst() ?? 0) }
        return .integer(value)
    case 2 where depth < 8:
        let count = Int(bytes.popFirst() ?? 0) % 16
        return .array((0..<count).map { _ in buildReply(&bytes, depth: depth + 1) })
    case 3:
        return .error(String(decoding: bytes.prefix(8), as: UTF8.self))
    default:
        return .null
    }
}
