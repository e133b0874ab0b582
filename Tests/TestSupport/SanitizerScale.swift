/// How a ThreadSanitizer build (`-DLOCSTREAM_TSAN`) stretches what the end-to-end tests
/// measure. Under TSan the server runs several times slower and every allocation costs
/// several times its size (shadow memory, the allocator's quarantine), so a bound on
/// throughput or memory measured on a normal build is scaled by these factors there. The
/// same tests run unscaled in `make test` and `make test-poll`; under TSan they still fail
/// on growth that follows the input rather than a constant.
package enum SanitizerScale {
    #if LOCSTREAM_TSAN
        /// Memory bounds are multiplied by this.
        package static let memory = 8
        /// Throughput floors are divided by this.
        package static let speed = 10
    #else
        /// Memory bounds are multiplied by this.
        package static let memory = 1
        /// Throughput floors are divided by this.
        package static let speed = 1
    #endif

    /// A memory bound of `kiB` on a normal build, as it applies to this build.
    package static func memoryKiB(_ kiB: Int) -> Int { kiB * memory }

    /// A floor of `count` events on a normal build, as it applies to this build.
    package static func floor(_ count: Int) -> Int { count / speed }
}
