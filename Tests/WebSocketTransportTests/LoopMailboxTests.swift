import Testing

@testable import WebSocketTransport

/// What other threads hand the service thread: everything posted comes out of one
/// drain, in order, exactly once.
@Suite("loop mailbox")
struct LoopMailboxTests {
    @Test("a drain returns the posted connections and commands, each in the order posted")
    func order() {
        let mailbox = LoopMailbox<String>()
        mailbox.post(ConnectionID(3))
        mailbox.post(command: "a")
        mailbox.post(ConnectionID(1))
        mailbox.post(command: "b")
        mailbox.post(ConnectionID(3))
        let drained = mailbox.drain()
        #expect(drained.connections == [ConnectionID(3), ConnectionID(1), ConnectionID(3)])
        #expect(drained.commands == ["a", "b"])
    }

    @Test("a drain empties the mailbox; what is posted afterwards comes with the next drain")
    func drainEmpties() {
        let mailbox = LoopMailbox<Int>()
        mailbox.post(ConnectionID(1))
        mailbox.post(command: 1)
        _ = mailbox.drain()
        let empty = mailbox.drain()
        #expect(empty.connections.isEmpty && empty.commands.isEmpty)
        mailbox.post(ConnectionID(2))
        mailbox.post(command: 2)
        let next = mailbox.drain()
        #expect(next.connections == [ConnectionID(2)] && next.commands == [2])
    }

    @Test("posts racing from many tasks and drains racing with them: each post is drained exactly once")
    func concurrentPosts() async {
        let mailbox = LoopMailbox<UInt64>()
        let posters = 8
        let perPoster: UInt64 = 500
        let drainer = Task {
            var connections: [ConnectionID] = []
            var commands: [UInt64] = []
            // Only a bound for a hang: under ThreadSanitizer on a busy machine the posters can
            // wait many seconds for the pool.
            let deadline = ContinuousClock.now + .seconds(60)
            while connections.count + commands.count < posters * Int(perPoster) * 2, ContinuousClock.now < deadline {
                let drained = mailbox.drain()
                connections += drained.connections
                commands += drained.commands
                await Task.yield()
            }
            return (connections, commands)
        }
        await withTaskGroup(of: Void.self) { group in
            for poster in 0..<UInt64(posters) {
                group.addTask {
                    for index in 0..<perPoster {
                        mailbox.post(ConnectionID(poster * perPoster + index))
                        mailbox.post(command: poster * perPoster + index)
                    }
                }
            }
        }
        let (connections, commands) = await drainer.value
        let all = Set(0..<UInt64(posters) * perPoster)
        #expect(connections.count == all.count && Set(connections.map(\.rawValue)) == all)
        #expect(commands.count == all.count && Set(commands) == all)
        // One poster's posts keep their order.
        let first = commands.filter { $0 < perPoster }
        #expect(first == Array(0..<perPoster))
        #expect(mailbox.drain().connections.isEmpty)
    }
}
