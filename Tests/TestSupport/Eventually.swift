/// Polls `condition` every 50 ms for up to `timeout`: true as soon as it holds (a throw
/// counts as not yet), false if it still does not hold once `timeout` has passed.
package func eventually(within timeout: Duration = .seconds(15), _ condition: () throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    // A wait that ended past the deadline (a pool busy for seconds, as under TSan when
    // every suite starts at once) still looks once more: only a condition still false fails.
    return (try? condition()) == true
}
