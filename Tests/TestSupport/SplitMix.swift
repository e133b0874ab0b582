/// A small deterministic random number generator (SplitMix64), so that randomised tests
/// repeat exactly.
package struct SplitMix: RandomNumberGenerator {
    /// The generator's state.
    private var state: UInt64

    /// A generator started from `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension SplitMix {
    /// A random string of up to `maximumLength` characters from `alphabet`.
    package mutating func text(alphabet: [Character], maximumLength: Int) -> String {
        let length = Int.random(in: 0...maximumLength, using: &self)
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &self)] })
    }
}
