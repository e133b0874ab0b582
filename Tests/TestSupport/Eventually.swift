/// Polls `condition` every 50 ms for up to `timeout`: true as soon as it holds (a throw
/// counts as not yet), false if it never did.
package func eventually(within timeout: Duration = .seconds(15), _ condition: () throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return false
}
