import LocstreamProtocol
import Testing

@testable import Client

/// The commands typed on stdin while `subscribe` runs.
@Suite("stdin commands")
struct StdinCommandTests {
    @Test("each command, with commas or blanks between items")
    func commands() throws {
        #expect(try StdinCommand.parse("sub veh-2,veh-3") == .subscribe(.devices(["veh-2", "veh-3"])))
        #expect(try StdinCommand.parse("  sub veh-2, veh-3 veh-2  ") == .subscribe(.devices(["veh-2", "veh-3"])))
        #expect(
            try StdinCommand.parse("bbox 13.3,52.4,13.5,52.6")
                == .subscribe(.area(.bbox(minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6))))
        #expect(
            try StdinCommand.parse("near 13.4 52.5 2500")
                == .subscribe(.area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 2500))))
        #expect(try StdinCommand.parse("unsub") == .unsubscribe)
        #expect(try StdinCommand.parse("QUIT") == .quit)
        #expect(try StdinCommand.parse("help") == .help)
    }

    @Test("blank lines and comments are ignored")
    func ignored() throws {
        #expect(try StdinCommand.parse("") == nil)
        #expect(try StdinCommand.parse("   \t ") == nil)
        #expect(try StdinCommand.parse("# a note") == nil)
    }

    @Test(
        "mistakes are explained",
        arguments: [
            ("frobnicate", "unknown command 'frobnicate'"),
            ("sub", "sub needs an argument"),
            ("sub veh-1,veh 2!", "invalid device id '2!'"),
            ("bbox 1,2,3", "must be 4 numbers"),
            ("bbox 13.5,52.6,13.3,52.4", "minLat must be less than maxLat"),
            ("near 13.4,52.5,-1", "radius_m must be greater than 0"),
            ("near", "near needs an argument"),
            ("unsub now", "unsub takes no argument"),
            ("quit please", "quit takes no argument"),
        ])
    func mistakes(line: String, message: String) {
        do {
            let command = try StdinCommand.parse(line)
            Issue.record("'\(line)' parsed as \(String(describing: command))")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }
}
