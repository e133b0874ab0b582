/// A deterministic random number generator (Marsaglia's xorshift64*), so a failing
/// property test fails the same way again.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `seed` (0 is replaced, as xorshift needs a non-zero state).
    init(seed: UInt64) { state = seed == 0 ? 0x2545_F491_4F6C_DD1D : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
