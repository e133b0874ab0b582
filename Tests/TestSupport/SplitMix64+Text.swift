import LocstreamProtocol

extension SplitMix64 {
    /// A random string of up to `maximumLength` characters from `alphabet`.
    package mutating func text(alphabet: [Character], maximumLength: Int) -> String {
        let length = Int.random(in: 0...maximumLength, using: &self)
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &self)] })
    }
}
