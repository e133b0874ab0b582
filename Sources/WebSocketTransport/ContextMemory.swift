import CWebsockets
import Foundation

/// The C signature of an lws protocol callback.
typealias LWSCallback =
    @convention(c) (
        OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int
    ) -> Int32

/// C memory that lws keeps pointers into for the whole life of a context: the
/// protocols array, the extensions table, the idle policy and their strings.
///
/// lws does not copy these, so they are allocated here and freed only when this
/// object goes, after `lws_context_destroy`.
final class ContextMemory {
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit {
        for string in strings { free(string) }
        for block in blocks { block.deallocate() }
    }

    /// A C string that lives as long as this object.
    func string(_ value: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(value) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }

    /// One protocol named `name` plus the terminating entry. `sendLimit` is the most
    /// lws sends in one go (0: its default).
    func protocols(name: String, sendLimit: Int = 0, callback: @escaping LWSCallback) -> UnsafePointer<lws_protocols> {
        let table = allocate(lws_protocols.self, count: 2)
        table[0].name = string(name)
        table[0].callback = callback
        // lws allocates this receive buffer for every connection; the default (4 KiB)
        // would be most of an idle connection's memory. Larger messages still arrive,
        // in 1 KiB chunks that `MessageAssembler` joins.
        table[0].rx_buffer_size = 1024
        // Without it, lws sends at most `rx_buffer_size` (+ LWS_PRE) per `send()` and
        // copies the rest of a corked batch into its buffer list, to send 1 KiB per
        // POLLOUT: one batch would cost dozens of loop turns.
        table[0].tx_packet_size = sendLimit
        return UnsafePointer(table)
    }

    /// The permessage-deflate extension plus the terminating entry.
    func deflateExtensions() -> UnsafePointer<lws_extension> {
        let table = allocate(lws_extension.self, count: 2)
        table[0].name = string("permessage-deflate")
        table[0].callback = lws_extension_callback_pm_deflate
        table[0].client_offer = string("permessage-deflate; client_no_context_takeover; client_max_window_bits")
        return UnsafePointer(table)
    }

    /// Pings after half of `seconds` of silence; hangs up after `seconds`.
    func idlePolicy(seconds: Int) -> UnsafePointer<lws_retry_bo_t> {
        let policy = allocate(lws_retry_bo_t.self, count: 1)
        let clamped = UInt16(clamping: max(seconds, 2))
        policy[0].secs_since_valid_ping = max(clamped / 2, 1)
        policy[0].secs_since_valid_hangup = clamped
        return UnsafePointer(policy)
    }

    /// The same limit for every header lws stores: a longer header is cut there and
    /// its rest skipped, so the request still completes and can be answered 431.
    func tokenLimits(_ limit: UInt16) -> UnsafePointer<lws_token_limits> {
        let limits = allocate(lws_token_limits.self, count: 1)
        let count = MemoryLayout.size(ofValue: limits[0].token_limit) / MemoryLayout<UInt16>.size
        let entries = UnsafeMutableRawPointer(limits).bindMemory(to: UInt16.self, capacity: count)
        entries.update(repeating: limit, count: count)
        return UnsafePointer(limits)
    }

    private func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<T>.stride * count, alignment: MemoryLayout<T>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.stride * count)
        blocks.append(raw)
        return raw.assumingMemoryBound(to: T.self)
    }
}
