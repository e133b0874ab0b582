import Foundation

extension Process {
    /// Ends a child the way production does, with SIGTERM, so it shuts down cleanly and
    /// writes its coverage profile; SIGKILL if it is still running after `grace`.
    /// Under TSan (which collects no coverage, and makes each exit take seconds) it is
    /// killed at once.
    package func terminateGracefully(within grace: Duration = .seconds(5)) {
        guard isRunning else { return }
        #if LOCSTREAM_TSAN
            kill(processIdentifier, SIGKILL)
        #else
            kill(processIdentifier, SIGTERM)
            let deadline = ContinuousClock.now + grace
            while isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if isRunning { kill(processIdentifier, SIGKILL) }
        #endif
    }
}
