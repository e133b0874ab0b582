/// What a simulation has sent and what the server has answered, for its summary.
struct SimulationTally: Sendable, Equatable {
    /// Locations sent in publish messages.
    var sentLocations = 0
    /// Publish messages sent.
    var sentBatches = 0
    /// Locations the server acknowledged with `published`.
    var acknowledged = 0
    /// Publish messages answered, by `published` or by an `error` for the publish.
    var answeredBatches = 0
    /// `error` frames received.
    var errors = 0

    /// Whether every publish message sent has been answered.
    var isSettled: Bool { answeredBatches >= sentBatches }

    /// The summary line printed at exit.
    func summary(devices: Int, seconds: Double) -> String {
        let rate = seconds > 0 ? Double(sentLocations) / seconds : 0
        let unanswered = sentBatches - answeredBatches
        return "simulate: published \(sentLocations) locations of \(devices) devices in "
            + String(format: "%.2f s (%.1f per second)", seconds, rate)
            + "; \(acknowledged) acknowledged, \(errors) errors"
            + (unanswered > 0 ? ", \(unanswered) publish messages unanswered" : "")
    }
}
