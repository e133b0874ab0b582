import Locking
import LocstreamProtocol
import Testing

@testable import StreamCore

/// `AwaitedStep`: a step's work runs in a task of its own and its result is finished on
/// the caller's task; a refusal comes back as the step's error; a cancellable step's work
/// ends when its caller is cancelled, any other runs to its end.
@Suite("awaited step")
struct AwaitedStepTests {
    @Test("apart: the work's value reaches finish, and finish's refusal is the step's")
    func finishes() async {
        let finished = Locked<Int?>(nil)
        let answer: @Sendable () async throws -> Int = { 42 }
        let step = AwaitedStep.apart(answer) { result throws(ProtocolError) in
            guard case .success(let value) = result else { throw ProtocolError(.internal, "no value") }
            finished.withLock { $0 = value }
        }
        #expect(await step.run() == nil)
        #expect(finished.withLock { $0 } == 42)

        let failing: @Sendable () async throws -> Int = { throw CancellationError() }
        let refused = AwaitedStep.apart(failing) { result throws(ProtocolError) in
            if case .failure = result { throw ProtocolError(.internal, "read failed") }
        }
        #expect(await refused.run()?.message == "read failed")
    }

    @Test("a cancellable step's work is cancelled with its caller", .timeLimit(.minutes(1)))
    func cancellable() async {
        let sawCancellation = Locked(false)
        let caller = Task {
            await AwaitedStep.apart(
                {
                    // Sleeps far past the test unless cancelled.
                    do { try await Task.sleep(for: .seconds(600)) } catch { sawCancellation.withLock { $0 = true } }
                },
                cancellable: true
            ) { _ throws(ProtocolError) in }.run()
        }
        caller.cancel()
        _ = await caller.value
        #expect(sawCancellation.withLock { $0 })
    }

    @Test("any other step's work runs to its end even when its caller is cancelled")
    func notCancellable() async {
        let gate = OneShot<Void>()
        let outcome = Locked<String?>(nil)
        let caller = Task {
            await AwaitedStep.apart({ () async -> Bool in
                await gate.value()
                return Task.isCancelled
            }) { result throws(ProtocolError) in
                outcome.withLock { $0 = (try? result.get()) == false ? "ran to its end" : "cancelled" }
            }.run()
        }
        caller.cancel()
        gate.fulfil(())
        _ = await caller.value
        #expect(outcome.withLock { $0 } == "ran to its end")
    }

    @Test("inline: the body runs on the caller's task, and its error is the step's")
    func inline() async {
        let step = AwaitedStep.inline { () async throws(ProtocolError) in
            throw ProtocolError(.forbidden, "no")
        }
        #expect(await step.run()?.code == .forbidden)
    }
}
