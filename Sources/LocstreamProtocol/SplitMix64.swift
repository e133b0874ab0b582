/// A small, fast, seedable random number generator (SplitMix64), so a run replays
/// exactly: the simulator's (`stream-client simulate --seed`) and the tests'.
///
/// At `package` access, like `GreatCircle`: the client and the tests share it; it is no
/// part of the protocol's public API.
package struct SplitMix64: RandomNumberGenerator, Sendable, Equatable {
    private var state: UInt64

    /// A generator starting from `seed`.
    package init(seed: UInt64) { state = seed }

    /// An independent generator for member `index` of a run seeded with `seed`: each
    /// simulated device gets its own, so one device's path never depends on another's.
    package init(seed: UInt64, stream index: Int) {
        var mixer = SplitMix64(seed: seed ^ (UInt64(truncatingIfNeeded: index) &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next() ^ 0x5851_F42D_4C95_7F2D
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
