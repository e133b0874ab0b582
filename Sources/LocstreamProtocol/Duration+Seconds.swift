extension Duration {
    /// The duration in seconds, as a decimal (for `Thread.sleep`, rates and histograms).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
