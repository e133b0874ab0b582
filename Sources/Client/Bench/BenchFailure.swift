/// Why a bench run could not be carried out (as opposed to what it measured).
struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong, in words.
    let description: String

    init(_ description: String) { self.description = description }
}
