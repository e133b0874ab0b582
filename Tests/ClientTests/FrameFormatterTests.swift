import Foundation
import LocstreamClient
import LocstreamProtocol
import Testing

@testable import Client

/// The readable lines `subscribe` prints.
@Suite("frame formatter")
struct FrameFormatterTests {
    private let utc = FrameFormatter(timeZone: TimeZone(identifier: "UTC") ?? .current)
    private let ts: Int64 = 1_764_421_200_123  // 2025-11-29 13:00:00.123 UTC

    @Test("a location line: local time, device, position, speed, heading, accuracy, seq, age, sub")
    func locationLine() {
        let location = Location(
            device: "veh-17", lat: 52.520008, lon: 13.404954, ts: ts, seq: 42, speed: 8.3, heading: 271, acc: 4.5)
        let line = utc.location(location, sub: "A", nowMs: ts + 400, previousSeq: 41)
        #expect(
            line
                == "13:00:00.123  veh-17      52.520008,13.404954  8.3 m/s  hdg 271  acc 4.5 m  seq 42  age 0.4s  sub A"
        )
    }

    @Test("optional fields are left out; gaps and reordering are marked")
    func sparseLine() {
        let location = Location(device: "a-very-long-device-id", lat: -33.5, lon: -70.25, ts: ts, seq: 45)
        let line = utc.location(location, sub: "B", nowMs: ts + 125_000, previousSeq: 42)
        #expect(
            line == "13:00:00.123  a-very-long-device-id  -33.500000,-70.250000  seq 45 (2 skipped)  age 2m05s  sub B")
        #expect(FrameFormatter.gap(seq: 45, previous: 45) == " (out of order after 45)")
        #expect(FrameFormatter.gap(seq: 46, previous: 45) == "")
        #expect(FrameFormatter.gap(seq: 1, previous: nil) == "")
    }

    @Test("local time follows the time zone, across midnight")
    func timeZones() throws {
        let berlin = FrameFormatter(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        #expect(berlin.clock(milliseconds: ts) == "14:00:00.123")
        let tokyo = FrameFormatter(timeZone: try #require(TimeZone(identifier: "Asia/Tokyo")))
        #expect(tokyo.clock(milliseconds: ts + 10 * 3_600_000) == "08:00:00.123")
        #expect(utc.clock(milliseconds: 0) == "00:00:00.000")
    }

    @Test(
        "ages are short and signed",
        arguments: [
            (Int64(0), "0.0s"), (400, "0.4s"), (59_949, "59.9s"), (60_000, "1m00s"), (3_599_000, "59m59s"),
            (7_500_000, "2h05m"), (273_600_000, "3d04h"), (-200, "-0.2s"), (-90_000, "-1m30s"),
        ])
    func ages(milliseconds: Int64, text: String) {
        #expect(FrameFormatter.age(milliseconds: milliseconds) == text)
    }

    @Test("the other frames")
    func otherFrames() {
        let now = ts
        #expect(
            utc.line(for: .subscribed(sub: "B", restarted: true, snapshot: 2), nowMs: now)
                == "subscribed B: restarted, 2 snapshot frames first")
        #expect(
            utc.line(for: .subscribed(sub: "A", restarted: false, snapshot: 1), nowMs: now)
                == "subscribed A: 1 snapshot frame first")
        #expect(
            utc.line(for: .leave(sub: "A", device: "veh-17"), nowMs: now)
                == "13:00:00.123  veh-17      left the area  sub A")
        #expect(utc.line(for: .unsubscribed(sub: "A"), nowMs: now) == "unsubscribed A")
        #expect(utc.line(for: .welcome(conn: "c-1", node: "n1"), nowMs: now) == "connected to node n1 as c-1")
        #expect(utc.line(for: .published(count: 3), nowMs: now) == "published 3")
        #expect(utc.line(for: .pong(t: .integer(5)), nowMs: now) == "pong t=5")
        #expect(
            utc.line(for: .error(ProtocolError(.forbidden, "not yours", failedOp: "subscribe")), nowMs: now)
                == "server error forbidden: not yours (failed op subscribe)")
        #expect(
            FrameFormatter.error(ProtocolError(.unauthorized, "token expiring"))
                == "server error unauthorized: token expiring")
    }

    @Test("after a reconnect: what each device missed, from the library's gaps")
    func resumed() {
        #expect(FrameFormatter.resumed(sub: "sub-1", gaps: [:]) == "resubscribed sub-1 with since; nothing missed")
        let gaps = ["veh-2": SeqGap(lastSeen: 8, next: 10), "veh-1": SeqGap(lastSeen: 3, next: 7)]
        #expect(
            FrameFormatter.resumed(sub: "A", gaps: gaps)
                == "resubscribed A with since; missed veh-1 seq 4-6 (3), veh-2 seq 9 (1)")
    }
}
