import Auth
import Foundation
import TestSupport

/// Key pairs made once per test run with `openssl genpkey`: private keys stay in files for
/// `openssl dgst -sign`; public keys are PEM text for the verifier.
final class TestKeys: Sendable {
    /// The keys every test shares; made on first use.
    static let shared = Result { try TestKeys() }

    /// Holds the private-key files for the life of the run.
    private let directory: TemporaryDirectory
    /// A 2048-bit RSA key pair.
    let rsa: KeyPair
    /// A second RSA key pair, for "signed by someone else".
    let otherRSA: KeyPair
    /// A P-256 key pair.
    let ec: KeyPair
    /// A second P-256 key pair.
    let otherEC: KeyPair

    /// A private key's file and the PEM of its public key.
    struct KeyPair: Sendable {
        /// Path of the PEM private key.
        let privateKeyPath: String
        /// The PEM `PUBLIC KEY`.
        let publicKeyPEM: String

        /// A verifier of tokens signed with this pair's private key.
        func verifier() throws -> JWTVerifier {
            JWTVerifier(key: try JWTKey.publicKey(pem: publicKeyPEM))
        }
    }

    private init() throws {
        directory = try TemporaryDirectory()
        atexit { TestKeys.removeFilesAtExit() }
        rsa = try Self.make(in: directory, name: "rsa", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        otherRSA = try Self.make(
            in: directory, name: "rsa2", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        ec = try Self.make(in: directory, name: "ec", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        otherEC = try Self.make(
            in: directory, name: "ec2", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
    }

    /// Removes the key files when the test process exits, since a static value is never
    /// deinitialised.
    private static func removeFilesAtExit() {
        if case .success(let keys) = shared { try? FileManager.default.removeItem(at: keys.directory.url) }
    }

    /// Generates a key pair with `openssl genpkey options…` into `directory`.
    static func make(in directory: TemporaryDirectory, name: String, _ options: [String]) throws -> KeyPair {
        let privateKey = try OpenSSLTool.run(["genpkey"] + options)
        let path = try directory.file("\(name).pem", privateKey)
        let publicKey = try OpenSSLTool.run(["pkey", "-in", path, "-pubout"])
        return KeyPair(privateKeyPath: path, publicKeyPEM: String(decoding: publicKey, as: UTF8.self))
    }
}
