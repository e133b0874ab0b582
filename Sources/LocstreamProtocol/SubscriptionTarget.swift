/// What a subscription watches: exactly one of a list of devices or an area.
public enum SubscriptionTarget: Sendable, Equatable {
    /// 1 to 1000 distinct device ids, in the order the client first listed them.
    case devices([String])
    /// Every device inside an area.
    case area(Area)
}
