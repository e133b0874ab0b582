import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd.StoreDurabilityTests {
    /// Storage the server cannot use safely is refused at start: it exits 1 with a
    /// `cannot start` line naming the file or directory and why, never starts empty over
    /// it, and leaves it as it was.
    @Suite("store: bad storage refused")
    struct StoreRefusalTests {
        typealias Durability = EndToEnd.StoreDurabilityTests

        /// Records an issue unless the server ended as a refusal to start: exit status 1,
        /// never listening, and a `cannot start` line naming `path` and saying `reason`.
        static func expectRefusal(
            _ ending: ServerHarness.Ending, naming path: String, saying reason: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            #expect(ending.status == 1, "exits 1 by itself (nil: still running)", sourceLocation: sourceLocation)
            #expect(!ending.log.contains("listening"), "never serves", sourceLocation: sourceLocation)
            let line = ending.log.split(separator: "\n").first { $0.contains("cannot start") } ?? ""
            #expect(
                line.contains("cannot open the store: \(path)") && line.contains(reason),
                "names \(path) and says \"\(reason)\": \(ending.log)", sourceLocation: sourceLocation)
        }

        /// Runs `sqlite3` on the database at `path` with `sql`; its output.
        static func sqlite(_ path: String, _ sql: String) throws -> String {
            let result = try CommandResult.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), [path, sql])
            #expect(result.status == 0, "sqlite3: \(result.stderr)")
            return result.stdout
        }

        /// Makes a store in `directory` holding device `kept`, with a clean stop.
        static func makeStore(_ directory: String, holding kept: String) async throws {
            let server = try await Durability.server(directory)
            let post = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations",
                body: EndToEnd.PublishRateTests.batch(devices: [kept]))
            #expect(post.status == 202)
            #expect(await server.stop() == 0)
        }

        /// The bytes of the file at `path`.
        static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

        @Test("a database file of random bytes: refused, untouched", .timeLimit(.minutes(1)))
        func randomBytes() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-corrupt")
            var random = SplitMix64(seed: 15)
            let database = try directory.file(
                "locstream.db", (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) })
            let before = try Self.bytes(database)
            Self.expectRefusal(
                try await ServerHarness.ending(["--data-dir", directory.url.path]), naming: database,
                saying: "file is not a database")
            #expect(try Self.bytes(database) == before, "left as it was")
        }

        @Test("a store whose pages are damaged: refused, never started empty", .timeLimit(.minutes(1)))
        func damagedPages() async throws {
            try await Durability.withDataDirectory { directory, _ in
                try await Self.makeStore(directory, holding: "kept")
                let database = directory + "/locstream.db"
                var damaged = try Self.bytes(database)
                #expect(damaged.count > 4096 && !FileManager.default.fileExists(atPath: database + "-wal"))
                var random = SplitMix64(seed: 16)
                for index in 4096..<damaged.count { damaged[index] = UInt8.random(in: 0...255, using: &random) }
                try damaged.write(to: URL(fileURLWithPath: database))
                Self.expectRefusal(
                    try await ServerHarness.ending(["--data-dir", directory]), naming: database, saying: "malformed")
            }
        }

        @Test("an SQLite database that is not a store: refused, its table untouched", .timeLimit(.minutes(1)))
        func foreignDatabase() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-foreign")
            let database = directory.url.appendingPathComponent("locstream.db").path
            _ = try Self.sqlite(database, "CREATE TABLE places (name TEXT); INSERT INTO places VALUES ('home');")
            let before = try Self.bytes(database)
            Self.expectRefusal(
                try await ServerHarness.ending(["--data-dir", directory.url.path]), naming: database,
                saying: "not a locstream store")
            #expect(try Self.bytes(database) == before, "left as it was")
            #expect(try Self.sqlite(database, "SELECT name FROM places") == "home\n")
        }

        @Test("a store written by a newer schema version: refused, untouched", .timeLimit(.minutes(1)))
        func newerSchema() async throws {
            try await Durability.withDataDirectory { directory, _ in
                try await Self.makeStore(directory, holding: "kept")
                let database = directory + "/locstream.db"
                _ = try Self.sqlite(database, "PRAGMA user_version = 99")
                let before = try Self.bytes(database)
                Self.expectRefusal(
                    try await ServerHarness.ending(["--data-dir", directory]), naming: database,
                    saying: "written by a newer locstream (schema version 99")
                #expect(try Self.bytes(database) == before, "left as it was")
            }
        }

        @Test("a file where the data directory should be: refused, untouched", .timeLimit(.minutes(1)))
        func fileForDirectory() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-file")
            let file = try directory.file("data", "not a directory\n")
            Self.expectRefusal(
                try await ServerHarness.ending(["--data-dir", file]), naming: file,
                saying: "cannot create the data directory")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a directory\n")
        }

        @Test(
            "a data directory in use by a running server: refused; the running one and its bystander unharmed",
            .timeLimit(.minutes(1)))
        func directoryInUse() async throws {
            try await Durability.withDataDirectory { directory, _ in
                try await ServerHarness.withBystander(["--data-dir", directory]) { server, _ in
                    Self.expectRefusal(
                        try await ServerHarness.ending(["--data-dir", directory]), naming: directory,
                        saying: "in use by another store")
                    #expect(server.readyStatus == 200)
                    let post = try RawHTTPResponse.fetch(
                        port: server.port, method: "POST", path: "/v1/locations",
                        body: EndToEnd.PublishRateTests.batch(devices: ["still-stored"]))
                    #expect(post.status == 202, "the running server still stores")
                }
            }
        }

        @Test("a read-only file system: refused", .timeLimit(.minutes(1)))
        func readOnlyMount() async throws {
            guard let mount = try TmpfsMount(options: "ro,size=1m", for: "store: a read-only file system") else {
                return
            }
            Self.expectRefusal(
                try await ServerHarness.ending(["--data-dir", mount.path]), naming: mount.path,
                saying: "cannot write in the data directory: Read-only file system")
        }

        @Test(
            "an immutable data directory or database file (root ignores modes): refused, the store kept",
            .timeLimit(.minutes(1)),
            arguments: [
                ("", "cannot write in the data directory: Operation not permitted"),
                ("/locstream.db", "attempt to write a readonly database"),
            ])
        func immutable(file: String, reason: String) async throws {
            try await Durability.withDataDirectory { directory, _ in
                try await Self.makeStore(directory, holding: "kept")
                let target = directory + file
                let chattr = URL(fileURLWithPath: "/usr/bin/chattr")
                let immutable = try CommandResult.run(chattr, ["+i", target])
                guard immutable.status == 0 else {
                    print("skipped: store: an immutable \(target): chattr +i failed (\(immutable.stderr))")
                    return
                }
                let ending = try await withCleanup {
                    try await ServerHarness.ending(["--data-dir", directory])
                } cleanup: {
                    _ = try? CommandResult.run(chattr, ["-i", target])
                }
                Self.expectRefusal(ending, naming: target, saying: reason)
                let server = try await Durability.server(directory)
                #expect(try Durability.fetchDevice("kept", on: server).status == 200, "the store is intact")
            }
        }

        @Test(
            "a store on a full disk: refused naming the reason; started once space returns, nothing lost",
            .timeLimit(.minutes(1)))
        func fullDiskAtStart() async throws {
            guard let mount = try TmpfsMount(options: "size=2m", for: "store: a full disk at start") else { return }
            let directory = mount.path + "/data"
            try await Self.makeStore(directory, holding: "kept")
            let filler = try mount.fill(leaving: 0)
            Self.expectRefusal(
                try await ServerHarness.ending(["--data-dir", directory]), naming: directory + "/locstream.db",
                saying: "No space left on device")
            try FileManager.default.removeItem(atPath: filler)
            let server = try await Durability.server(directory)
            #expect(try Durability.fetchDevice("kept", on: server).status == 200, "the store is intact")
        }
    }
}
