import CWebsockets

/// Writes queued frames to an lws connection: one `lws_write` per WRITEABLE callback.
///
/// Without deflate, every frame of the batch is framed by hand into one buffer and
/// sent with a single `locstream_write_raw()` (the cork). With permessage-deflate, lws must
/// compress each message itself, so one frame goes per write. The buffer is reused
/// across writes; it lives on, and is used by, the service thread only.
final class CorkedWriter {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private let pre = locstream_lws_pre()

    init(capacity: Int) {
        self.capacity = capacity + pre
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    private var buffer: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: base, count: capacity) }

    /// Writes `frames` to `wsi`; returns false when the write failed.
    func write(_ frames: [OutboundFrame], to wsi: OpaquePointer, corked: Bool) -> Bool {
        if corked {
            let total = frames.reduce(0) { $0 + FrameEncoder.wireCount(of: $1) }
            reserve(total)
            var at = pre
            for frame in frames { at = FrameEncoder.write(frame, into: buffer, at: at) }
            return lws_write(wsi, payloadStart, total, locstream_write_raw()) >= 0
        }
        for frame in frames {
            reserve(frame.payloadCount)
            var at = pre
            at = copy(frame.head, at: at)
            _ = copy(frame.body, at: at)
            let kind = frame.opcode == .binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT
            if lws_write(wsi, payloadStart, frame.payloadCount, kind) < 0 { return false }
        }
        return true
    }

    /// Writes bytes as they are (an HTTP body) with `LWS_PRE` headroom.
    func write(raw bytes: [UInt8], to wsi: OpaquePointer, as protocol: lws_write_protocol) -> Bool {
        reserve(bytes.count)
        _ = copy(bytes, at: pre)
        return lws_write(wsi, payloadStart, bytes.count, `protocol`) >= 0
    }

    private var payloadStart: UnsafeMutablePointer<UInt8> {
        (base + pre).assumingMemoryBound(to: UInt8.self)
    }

    private func reserve(_ count: Int) {
        guard capacity < pre + count else { return }
        base.deallocate()
        capacity = pre + count
        base = .allocate(byteCount: capacity, alignment: 16)
    }

    private func copy(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes.withUnsafeBytes { source in
            if let from = source.baseAddress { (base + offset).copyMemory(from: from, byteCount: source.count) }
        }
        return offset + bytes.count
    }
}
