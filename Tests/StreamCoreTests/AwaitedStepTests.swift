import Locking
import LocstreamProtocol
import Testing

@testable import StreamCore

/// `AwaitedStep`: a step's work runs on the caller's task and its result is finished
/// there; a refusal comes back as the step's error; the caller's cancellation reaches
/// the work.
@Suite("awaited step")
struct AwaitedStepTests {
    @Test("awaiting: the work's value reaches finish, and finish's refusal is the step's")
    func finishes() async {
        let finished = Locked<Int?>(nil)
        let answer: () async throws -> Int = { 42 }
        let step = AwaitedStep.awaiting(answer) { result throws(ProtocolError) in
            guard case .success(let value) = result else { throw ProtocolError(.internal, "no value") }
            finished.withLock { $0 = value }
        }
        #expect(await step.run() == nil)
        #expect(finished.withLock { $0 } == 42)

        let failing: () async throws -> Int = { throw CancellationError() }
        let refused = AwaitedStep.awaiting(failing) { result throws(ProtocolError) in
            if case .failure = result { throw ProtocolError(.internal, "read failed") }
        }
        #expect(await refused.run()?.message == "read failed")
    }

    @Test("the work runs on the caller's task, with no task of its own")
    func onCallersTask() async {
        let worker = Locked<Int?>(nil)
        let work: () async throws -> Int? = { withUnsafeCurrentTask { $0?.hashValue } }
        let step = AwaitedStep.awaiting(work) { result throws(ProtocolError) in
            worker.withLock { $0 = try? result.get() }
        }
        #expect(await step.run() == nil)
        let caller = withUnsafeCurrentTask { $0?.hashValue }
        #expect(caller != nil && worker.withLock { $0 } == caller)
    }

    @Test("the work is cancelled with its caller", .timeLimit(.minutes(1)))
    func cancelled() async {
        let sawCancellation = Locked(false)
        let sleep: () async throws -> Void = {
            // Sleeps far past the test unless cancelled.
            do { try await Task.sleep(for: .seconds(600)) } catch { sawCancellation.withLock { $0 = true } }
        }
        let caller = Task { await AwaitedStep.awaiting(sleep) { _ throws(ProtocolError) in }.run() }
        caller.cancel()
        _ = await caller.value
        #expect(sawCancellation.withLock { $0 })
    }

    @Test("inline: the body runs on the caller's task, and its error is the step's")
    func inline() async {
        let step = AwaitedStep.inline { () async throws(ProtocolError) in
            throw ProtocolError(.forbidden, "no")
        }
        #expect(await step.run()?.code == .forbidden)
    }
}
