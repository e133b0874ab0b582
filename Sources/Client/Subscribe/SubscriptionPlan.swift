import LocstreamProtocol

/// What `subscribe` wants the server to be running, kept in step with the server's answers
/// and independent of any connection: the current subscription (or none), the ids of the
/// next switches, and how far each device has been seen, so that a new connection resumes
/// exactly where the old one stopped.
///
/// A switch the server refuses leaves its running subscription untouched (PROTOCOL.md,
/// rule 2), so on a refusal the plan falls back to the subscription last confirmed on this
/// connection, resume points included.
struct SubscriptionPlan: Sendable, Equatable {
    /// The subscription the server runs, or will once it answers; nil when none.
    private(set) var current: SubscribeRequest?
    /// Last seq seen per device of `current`.
    private(set) var resume = ResumePoints()
    /// Whether the server confirmed `current` on this connection with `subscribed`.
    private(set) var isConfirmed = false
    /// The subscription confirmed on this connection before the switches still unanswered.
    private var fallback: Fallback?
    /// Subscribes sent on this connection and not answered yet, oldest first.
    private var unanswered: [SubscribeRequest] = []
    private let idPrefix: String
    private var switches = 1
    private let template: SubscribeRequest

    /// A confirmed subscription and how far it had got.
    private struct Fallback: Sendable, Equatable {
        var request: SubscribeRequest
        var resume: ResumePoints
    }

    /// Starts with `first`'s target and options, under `subID` (or `sub-1`). Switch number n
    /// is named `subID-n` (or `sub-n`).
    init(first: SubscribeRequest, subID: String?) {
        idPrefix = subID ?? "sub"
        template = first
        var request = first
        request.sub = subID ?? "sub-1"
        current = request
    }

    /// The largest resubscribe sent: below the server's default message limit of 64 KiB,
    /// which would close the connection with 1009.
    static let maxSubscribeBytes = 60_000

    /// A new connection is open: returns the subscribe to send on it, resuming with
    /// `since` = the last seq seen per device; nil when no subscription is wanted. When that
    /// would make the message too large, only the devices heard from most recently are listed.
    mutating func connectionOpened() -> SubscribeRequest? {
        isConfirmed = false
        fallback = nil
        guard var request = current else {
            unanswered = []
            return nil
        }
        var count = resume.limit
        request.since = resume.since(atMost: count)
        while count > 0, ClientMessage.subscribe(request).encoded().count > Self.maxSubscribeBytes {
            count /= 2
            request.since = resume.since(atMost: count)
        }
        unanswered = [request]
        return request
    }

    /// Switches to `target` under a fresh sub id; the resume points start over. Returns the
    /// request to send.
    mutating func switchTo(_ target: SubscriptionTarget) -> SubscribeRequest {
        if isConfirmed, let current { fallback = Fallback(request: current, resume: resume) }
        switches += 1
        var request = template
        request.target = target
        request.sub = "\(idPrefix)-\(switches)"
        request.since = [:]
        current = request
        resume.reset()
        isConfirmed = false
        unanswered.append(request)
        return request
    }

    /// Stops wanting a subscription.
    mutating func unsubscribe() {
        current = nil
        resume.reset()
        isConfirmed = false
        fallback = nil
    }

    /// The server answered `subscribed{sub}`.
    mutating func confirmed(sub: String) {
        guard let index = unanswered.firstIndex(where: { $0.sub == sub }) else { return }
        let request = unanswered[index]
        unanswered.removeFirst(index + 1)
        if sub == current?.sub {
            isConfirmed = true
            fallback = nil
        } else {
            // A later switch is still in flight; this one runs until it is answered.
            fallback = Fallback(request: request, resume: ResumePoints())
        }
    }

    /// The server refused the oldest unanswered subscribe. Returns the subscription that is
    /// still running when the plan fell back to it.
    mutating func refused() -> SubscribeRequest? {
        guard !unanswered.isEmpty else { return nil }
        unanswered.removeFirst()
        guard unanswered.isEmpty, !isConfirmed, current != nil else { return nil }
        current = fallback?.request
        resume = fallback?.resume ?? ResumePoints()
        isConfirmed = fallback != nil
        fallback = nil
        return current
    }

    /// Notes a `loc` frame; returns the device's previous seq in its subscription. Frames of
    /// a sub the plan no longer follows are not recorded and return nil.
    mutating func record(sub: String, device: String, seq: UInt64) -> UInt64? {
        if sub == current?.sub { return resume.record(device: device, seq: seq) }
        if sub == fallback?.request.sub { return fallback?.resume.record(device: device, seq: seq) }
        return nil
    }
}
