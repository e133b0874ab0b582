import LocstreamProtocol

/// The part of an op that waits (a broker read, a publish), and what the op then does
/// with the result.
///
/// An op's checks and effects run synchronously; only this step is awaited, at the top
/// of `StreamSession.handle`. That keeps the connection's task shallow: a task keeps the
/// memory of the deepest frames it ever reached (slabs of about 1 KiB) for its whole
/// life, and the connection's task lives as long as the connection, so every idle
/// subscribed connection would pay for its subscribe's deepest read. Reads therefore run
/// `apart`, in a task of their own whose frames are freed when it ends.
///
/// With 10,000 idle subscribers (Swift 6.3, release) each connection's task fits in one
/// slab this way, against three before; the task allocator never frees a slab early.
public struct AwaitedStep {
    /// Waits for the step and finishes the op; returns the error that refuses it, if any.
    /// A stored closure, not a method, so awaiting it adds no frame of its own.
    public let run: () async -> ProtocolError?

    private init(_ run: @escaping () async -> ProtocolError?) {
        self.run = run
    }

    /// Runs `work` in a task of its own, then `finish` with its result on the caller's task.
    ///
    /// With `cancellable`, the caller's cancellation (its connection closing) cancels
    /// `work`: for a read that may wait long, such as a paced area read. Without it,
    /// `work` runs to its end, which the broker's own timeouts bound, and the caller
    /// keeps no cancellation handler: its frames would take every subscribed
    /// connection's task past its first slab of memory.
    static func apart<Value: Sendable>(
        _ work: @escaping @Sendable () async throws -> Value, cancellable: Bool = false,
        then finish: @escaping (Result<Value, any Error>) throws(ProtocolError) -> Void
    ) -> AwaitedStep {
        AwaitedStep {
            let task = started(work)
            let result =
                cancellable
                ? await withTaskCancellationHandler {
                    await task.value
                } onCancel: {
                    task.cancel()
                } : await task.value
            return failure { () throws(ProtocolError) in try finish(result) }
        }
    }

    /// A task running `work`, started from a synchronous, never-inlined function so the
    /// awaiting frame does not hold the task's creation.
    @inline(never)
    private static func started<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Task<
        Result<Value, any Error>, Never
    > {
        Task { () -> Result<Value, any Error> in
            do { return .success(try await work()) } catch { return .failure(error) }
        }
    }

    /// Runs `body` on the caller's task: for a step whose frames are small.
    static func inline(_ body: @escaping () async throws(ProtocolError) -> Void) -> AwaitedStep {
        AwaitedStep {
            do throws(ProtocolError) {
                try await body()
                return nil
            } catch {
                return error
            }
        }
    }

    /// What `body` throws, if anything. Synchronous and never inlined, so its error
    /// handling stays off the async frame.
    @inline(never)
    private static func failure(_ body: () throws(ProtocolError) -> Void) -> ProtocolError? {
        do throws(ProtocolError) {
            try body()
            return nil
        } catch {
            return error
        }
    }
}
