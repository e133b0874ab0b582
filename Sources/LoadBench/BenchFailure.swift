/// Why a bench run could not be carried out (as opposed to what it measured).
public struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String

    init(_ description: String) { self.description = description }
}
