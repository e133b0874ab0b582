import LocstreamProtocol

/// The part of an op that waits (a broker read, a publish), and what the op then does
/// with the result.
///
/// An op's checks and effects run synchronously; only this step is awaited, at the top
/// of `StreamSession.handle`, on the task that answers the connection's messages
/// (`MessageDrain`). That task runs on the connection's service thread and ends once no
/// message waits, so a step's frames are freed with it, and a subscribe's read and its
/// ack need no hop to another thread. A step must therefore never block the thread: a
/// broker that reads a disk does so elsewhere (`LocalBroker.replay`), and the connection
/// closing cancels a step that waits (a paced area read).
public struct AwaitedStep {
    /// Waits for the step and finishes the op; returns the error that refuses it, if any.
    /// A stored closure, not a method, so awaiting it adds no frame of its own.
    public let run: () async -> ProtocolError?

    private init(_ run: @escaping () async -> ProtocolError?) {
        self.run = run
    }

    /// Awaits `work`, then `finish` with its result.
    static func awaiting<Value>(
        _ work: @escaping () async throws -> Value,
        then finish: @escaping (Result<Value, any Error>) throws(ProtocolError) -> Void
    ) -> AwaitedStep {
        AwaitedStep {
            let result: Result<Value, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            return failure { () throws(ProtocolError) in try finish(result) }
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
