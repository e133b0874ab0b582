extension Duration {
    /// The duration in seconds, as a decimal (for `Thread.sleep`, rates and histograms).
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
