/// A service thread as a Swift task executor: jobs enqueued here run on the lws thread,
/// in the loop turn that drains the mailbox.
///
/// A task started with this executor as its preference (a connection's subscription
/// task) runs its synchronous steps on the service thread, so a frame it queues needs no
/// lock hand-off, pipe or context switch to reach the socket; the loop writes it in the
/// same turn. An enqueue from another thread costs one coalesced `lws_cancel_service`.
/// Nothing a job runs may block.
///
/// Once the loop has stopped, jobs go to the global concurrent executor instead, so a
/// task that outlives its connection's thread still ends.
public final class ServiceExecutor: TaskExecutor {
    private let mailbox: any JobMailbox

    init(mailbox: any JobMailbox) {
        self.mailbox = mailbox
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !mailbox.post(job: unowned) { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Runs `job` here, on the service thread.
    func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}

/// Where a `ServiceExecutor` queues its jobs: the loop's mailbox.
protocol JobMailbox: Sendable {
    /// Queues `job` for the service thread; false once the loop has stopped.
    func post(job: UnownedJob) -> Bool
}
