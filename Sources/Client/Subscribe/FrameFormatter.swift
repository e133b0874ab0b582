import Foundation
import LocstreamClient
import LocstreamProtocol

/// Turns server frames into the readable lines `subscribe` prints, e.g.
///
///     14:03:07.123  veh-17      52.520008,13.404954  8.3 m/s  hdg 271  acc 4.5 m  seq 42  age 0.4s  sub A
///
/// The time is the fix's `ts` in the local time zone; the age is `now - ts` (negative when
/// the device's clock runs ahead). A `seq` gap is marked. Every function is pure: the time
/// zone and the current time are passed in.
struct FrameFormatter: Sendable {
    /// The zone the clock times are shown in.
    var timeZone: TimeZone

    /// A formatter showing times in `timeZone` (by default, the local one).
    init(timeZone: TimeZone = .current) { self.timeZone = timeZone }

    /// The line for `message`. `previousSeq` is the last seq seen of a `loc` frame's device.
    func line(for message: ServerMessage, nowMs: Int64, previousSeq: UInt64? = nil) -> String {
        switch message {
        case .loc(let sub, let location):
            return self.location(location, sub: sub, nowMs: nowMs, previousSeq: previousSeq)
        case .leave(let sub, let device):
            return "\(clock(milliseconds: nowMs))  \(Self.padded(device))  left the area  sub \(sub)"
        case .subscribed(let sub, let restarted, let snapshot):
            let restart = restarted ? "restarted, " : ""
            return "subscribed \(sub): \(restart)\(snapshot) snapshot frame\(snapshot == 1 ? "" : "s") first"
        case .unsubscribed(let sub):
            return "unsubscribed \(sub)"
        case .welcome(let conn, let node):
            return "connected to node \(node) as \(conn)"
        case .authed(let client, let exp):
            return "authenticated as \(client) until \(clock(milliseconds: exp * 1000))"
        case .published(let count):
            return "published \(count)"
        case .pong(let t):
            return "pong" + (t.map { " t=\(String(decoding: $0.encoded(), as: UTF8.self))" } ?? "")
        case .error(let error):
            return Self.error(error)
        }
    }

    /// The line for one location of subscription `sub`.
    func location(_ location: Location, sub: String, nowMs: Int64, previousSeq: UInt64?) -> String {
        var fields = [
            clock(milliseconds: location.ts),
            Self.padded(location.device),
            String(format: "%.6f,%.6f", location.lat, location.lon),
        ]
        if let speed = location.speed { fields.append(String(format: "%.1f m/s", speed)) }
        if let heading = location.heading { fields.append(String(format: "hdg %.0f", heading)) }
        if let acc = location.acc { fields.append(String(format: "acc %.1f m", acc)) }
        fields.append("seq \(location.seq)" + Self.gap(seq: location.seq, previous: previousSeq))
        fields.append("age " + Self.age(milliseconds: nowMs - location.ts))
        fields.append("sub \(sub)")
        return fields.joined(separator: "  ")
    }

    /// `resubscribed SUB with since; nothing missed`, or the seqs each device missed (its
    /// gap in the replay after a reconnect): `…; missed veh-1 seq 4-6 (3), veh-2 seq 9 (1)`.
    static func resumed(sub: String, gaps: [String: SeqGap]) -> String {
        let missed = gaps.sorted { $0.key < $1.key }.map { device, gap in
            let (first, last) = (gap.lastSeen + 1, gap.next - 1)
            return "\(device) seq \(first)" + (last > first ? "-\(last)" : "") + " (\(last - first + 1))"
        }
        return "resubscribed \(sub) with since; "
            + (missed.isEmpty ? "nothing missed" : "missed " + missed.joined(separator: ", "))
    }

    /// `server error CODE: MESSAGE (failed op OP)`.
    static func error(_ error: ProtocolError) -> String {
        "server error \(error.code.rawValue): \(error.message)" + (error.failedOp.map { " (failed op \($0))" } ?? "")
    }

    /// `HH:mm:ss.SSS` of a Unix time in milliseconds, in `timeZone`.
    func clock(milliseconds: Int64) -> String {
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1000)))
        let day: Int64 = 86_400_000
        let local = ((milliseconds + offset * 1000) % day + day) % day
        return String(
            format: "%02lld:%02lld:%02lld.%03lld", local / 3_600_000, local / 60_000 % 60, local / 1000 % 60,
            local % 1000)
    }

    /// A short age: `0.4s`, `12.3s`, `42s`, `5m03s`, `2h05m`, `3d04h`; negative with a `-`.
    static func age(milliseconds: Int64) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        let value = milliseconds.magnitude
        switch value {
        case ..<60_000:
            return sign + String(format: "%.1fs", Double(value) / 1000)
        case ..<3_600_000:
            return sign + String(format: "%llum%02llus", value / 60_000, value / 1000 % 60)
        case ..<86_400_000:
            return sign + String(format: "%lluh%02llum", value / 3_600_000, value / 60_000 % 60)
        default:
            return sign + String(format: "%llud%02lluh", value / 86_400_000, value / 3_600_000 % 24)
        }
    }

    /// ` (3 skipped)` after a gap, ` (out of order after N)` when seq did not advance, else "".
    static func gap(seq: UInt64, previous: UInt64?) -> String {
        guard let previous else { return "" }
        if seq <= previous { return " (out of order after \(previous))" }
        let skipped = seq - previous - 1
        return skipped == 0 ? "" : " (\(skipped) skipped)"
    }

    private static func padded(_ device: String) -> String {
        device.count >= 10 ? device : device.padding(toLength: 10, withPad: " ", startingAt: 0)
    }
}
