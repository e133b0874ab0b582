import Locking
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
        #expect(drained?.connections == [ConnectionID(3), ConnectionID(1), ConnectionID(3)])
        #expect(drained?.commands == ["a", "b"])
    }

    @Test("a drain empties the mailbox; what is posted afterwards comes with the next drain")
    func drainEmpties() {
        let mailbox = LoopMailbox<Int>()
        mailbox.post(ConnectionID(1))
        mailbox.post(command: 1)
        _ = mailbox.drain()
        #expect(mailbox.drain() == nil)
        mailbox.post(ConnectionID(2))
        mailbox.post(command: 2)
        let next = mailbox.drain()
        #expect(next?.connections == [ConnectionID(2)] && next?.commands == [2])
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
                if let drained = mailbox.drain() {
                    connections += drained.connections
                    commands += drained.commands
                }
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
        #expect(mailbox.drain() == nil)
    }

    @Test("a task preferring the loop's executor runs in the drain; once the loop stops, elsewhere")
    func executorJobs() async {
        let mailbox = LoopMailbox<Int>()
        let executor = ServiceExecutor(mailbox: mailbox)
        let ran = Locked(false)
        let task = Task(executorPreference: executor) { ran.withLock { $0 = true } }
        var drains = 0
        while !ran.withLock({ $0 }), drains < 10_000 {
            if let work = mailbox.drain() {
                for job in work.urgentJobs + work.jobs { executor.run(job) }
            }
            drains += 1
            await Task.yield()
        }
        await task.value
        #expect(ran.withLock { $0 })
        #expect(mailbox.stop().isEmpty)
        // Stopped: the job is refused by the mailbox and runs on the global executor.
        let late = Task(executorPreference: executor) { 42 }
        #expect(await late.value == 42)
        #expect(mailbox.drain() == nil)
    }
}

/// Urgent jobs (`.high` priority and above) apart from delivery's, and jobs put back.
@Suite("loop mailbox priorities")
struct LoopMailboxPriorityTests {
    @Test("a job of .high priority is urgent, one of .medium is not; put-back jobs come before later posts")
    func urgentAndPutBack() async {
        let mailbox = LoopMailbox<Int>()
        let executor = ServiceExecutor(mailbox: mailbox)
        let ran = Locked<[String]>([])
        let tasks = ["a", "b"].map { name in
            Task(executorPreference: executor, priority: .medium) { ran.withLock { $0.append(name) } }
        }
        #expect(!mailbox.hasUrgentJobs)
        let urgent = Task(executorPreference: executor, priority: .high) { ran.withLock { $0.append("urgent") } }
        #expect(mailbox.hasUrgentJobs)
        let first = mailbox.drain()
        #expect(first?.urgentJobs.count == 1)
        #expect(first?.jobs.count == 2)
        #expect(!mailbox.hasUrgentJobs)
        guard let first, first.jobs.count == 2 else { return }
        for job in first.urgentJobs { executor.run(job) }
        executor.run(first.jobs[0])
        let late = Task(executorPreference: executor, priority: .medium) { ran.withLock { $0.append("late") } }
        mailbox.putBack(jobs: first.jobs[1...], connections: [])
        let second = mailbox.drain()
        #expect(second?.jobs.count == 2)
        for job in second?.jobs ?? [] { executor.run(job) }
        for task in tasks + [urgent, late] { await task.value }
        #expect(ran.withLock { $0 } == ["urgent", "a", "b", "late"])
        #expect(mailbox.drain() == nil)
    }

    @Test("connections put back come before later posts; those posted after a mark are taken alone")
    func connectionsPutBackAndMarked() {
        let mailbox = LoopMailbox<Int>()
        for id in 1...3 { mailbox.post(ConnectionID(UInt64(id))) }
        let first = mailbox.drain()
        mailbox.post(ConnectionID(4))
        mailbox.putBack(jobs: [], connections: first?.connections.dropFirst() ?? [])
        let mark = mailbox.connectionMark
        #expect(mark == 3)
        mailbox.post(ConnectionID(5))
        #expect(mailbox.takeConnections(postedAfter: mark) == [ConnectionID(5)])
        #expect(mailbox.takeConnections(postedAfter: mark).isEmpty)
        #expect(mailbox.drain()?.connections == [ConnectionID(2), ConnectionID(3), ConnectionID(4)])
        #expect(mailbox.drain() == nil)
    }
}
