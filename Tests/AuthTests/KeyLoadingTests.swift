import Auth
import Foundation
import TestSupport
import Testing

/// Loading secrets and public keys, and the errors for keys that cannot be used.
@Suite struct KeyLoadingTests {
    /// The reason loading fails, or nil when it succeeds.
    private func failure(_ load: () throws(JWTKeyError) -> JWTKey) -> JWTKeyError? {
        do {
            _ = try load()
            return nil
        } catch {
            return error
        }
    }

    @Test func secretFromText() throws {
        let key = try JWTKey.secret(String(decoding: TestSecrets.secret, as: UTF8.self))
        #expect(key.algorithm == .hs256)
        let token = try TokenFactory.hs256(TestSecrets.payload())
        #expect(TestSecrets.refusal(JWTVerifier(key: key), token) == nil)
    }

    @Test func emptyOrShortSecretIsRefused() {
        #expect(failure { () throws(JWTKeyError) in try JWTKey.secret("") }?.reason == .empty)
        #expect(failure { () throws(JWTKeyError) in try JWTKey.secret("secret") }?.reason == .tooWeak)
        let shortest = [UInt8](repeating: 7, count: JWTKey.minimumSecretBytes)
        #expect(failure { () throws(JWTKeyError) in try JWTKey.secret(bytes: shortest) } == nil)
        #expect(failure { () throws(JWTKeyError) in try JWTKey.secret(bytes: shortest.dropLast()) }?.reason == .tooWeak)
    }

    @Test(arguments: ["\n", "\r\n", ""])
    func secretFileLosesOneTrailingNewline(ending: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.file("secret", String(decoding: TestSecrets.secret, as: UTF8.self) + ending)
        let verifier = JWTVerifier(key: try JWTKey.secretFile(atPath: path))
        #expect(TestSecrets.refusal(verifier, try TokenFactory.hs256(TestSecrets.payload())) == nil)
    }

    @Test func secretFileKeepsASecondNewline() throws {
        let directory = try TemporaryDirectory()
        let secret = String(decoding: TestSecrets.secret, as: UTF8.self)
        let path = try directory.file("secret", secret + "\n\n")
        let verifier = JWTVerifier(key: try JWTKey.secretFile(atPath: path))
        let withNewline = try TokenFactory.hs256(TestSecrets.payload(), secret: TestSecrets.secret + [0x0A])
        #expect(TestSecrets.refusal(verifier, withNewline) == nil)
        #expect(TestSecrets.refusal(verifier, try TokenFactory.hs256(TestSecrets.payload())) == .badSignature)
    }

    @Test func secretFileErrorsNameTheFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing").path
        let empty = try directory.file("empty", "\n")
        let short = try directory.file("short", "hunter2\n")
        let huge = try directory.file("huge", [UInt8](repeating: 0x61, count: 70_000))
        let cases: [(String, JWTKeyError.Reason)] = [
            (missing, .unreadable), (directory.url.path, .unreadable), (empty, .empty), (short, .tooWeak),
            (huge, .unreadable),
        ]
        for (path, reason) in cases {
            let error = try #require(failure { () throws(JWTKeyError) in try JWTKey.secretFile(atPath: path) })
            #expect(error.reason == reason, "\(path)")
            #expect(error.message.contains(path))
            #expect(!error.message.contains("hunter2"))
        }
        let missingError = failure { () throws(JWTKeyError) in try JWTKey.secretFile(atPath: missing) }
        #expect(missingError?.message.contains("No such file or directory") == true)
    }

    @Test func descriptionHidesTheSecret() throws {
        let key = try JWTKey.secret(String(decoding: TestSecrets.secret, as: UTF8.self))
        #expect("\(key)" == "HS256 shared secret (32 bytes)")
        let verifier = JWTVerifier(key: key)
        var dumped = ""
        dump(verifier, to: &dumped)
        for text in ["\(verifier)", String(reflecting: verifier), String(reflecting: key), dumped] {
            #expect(!text.contains("0123456789abcdef") && !text.contains("material"), "\(text)")
        }
    }

    @Test func publicKeysFromPEMTextAndFiles() throws {
        let keys = try TestKeys.shared.get()
        let directory = try TemporaryDirectory()
        #expect(try JWTKey.publicKey(pem: keys.rsa.publicKeyPEM).algorithm == .rs256)
        #expect(try JWTKey.publicKey(pem: keys.ec.publicKeyPEM).algorithm == .es256)
        let rsaPath = try directory.file("rsa.pub", keys.rsa.publicKeyPEM)
        let ecPath = try directory.file("ec.pub", keys.ec.publicKeyPEM)
        #expect(try JWTKey.publicKeyFile(atPath: rsaPath).algorithm == .rs256)
        #expect(try JWTKey.publicKeyFile(atPath: ecPath).algorithm == .es256)
        #expect("\(try JWTKey.publicKeyFile(atPath: ecPath))" == "ES256 public key")
    }

    @Test func publicKeyWithSurroundingTextLoads() throws {
        let keys = try TestKeys.shared.get()
        let pem = "# issued by the auth service\n" + keys.ec.publicKeyPEM + "\n"
        #expect(try JWTKey.publicKey(pem: pem).algorithm == .es256)
    }

    @Test func unusablePublicKeysAreRefusedWithAHint() throws {
        let keys = try TestKeys.shared.get()
        let directory = try TemporaryDirectory()
        let p384 = try TestKeys.make(
            in: directory, name: "p384", ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let ed25519 = try TestKeys.make(in: directory, name: "ed", ["-algorithm", "ED25519"])
        let rsa1024 = try TestKeys.make(
            in: directory, name: "rsa1024", ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let privatePEM = String(decoding: try OpenSSLTool.run(["pkey", "-in", keys.ec.privateKeyPath]), as: UTF8.self)
        let pkcs1 = String(
            decoding: try OpenSSLTool.run(["rsa", "-in", keys.rsa.privateKeyPath, "-RSAPublicKey_out"]), as: UTF8.self)
        #expect(try JWTKey.publicKey(pem: pkcs1).algorithm == .rs256)
        let certificate = String(
            decoding: try OpenSSLTool.run(
                ["req", "-x509", "-new", "-key", keys.ec.privateKeyPath, "-subj", "/CN=test", "-days", "1"]),
            as: UTF8.self)
        let cases: [(String, JWTKeyError.Reason, String)] = [
            (p384.publicKeyPEM, .unsupported, "P-256"),
            (ed25519.publicKeyPEM, .unsupported, "ED25519"),
            (rsa1024.publicKeyPEM, .tooWeak, "1024"),
            (privatePEM, .invalid, "private key"),
            (certificate, .invalid, "certificate"),
            ("", .invalid, "BEGIN PUBLIC KEY"),
            ("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", .invalid, "BEGIN PUBLIC KEY"),
            (String(decoding: TestSecrets.secret, as: UTF8.self), .invalid, "BEGIN PUBLIC KEY"),
        ]
        for (pem, reason, hint) in cases {
            let error = try #require(failure { () throws(JWTKeyError) in try JWTKey.publicKey(pem: pem) })
            #expect(error.reason == reason, "\(error)")
            #expect(error.message.contains(hint), "\(error)")
        }
    }

    @Test func publicKeyFileErrorsNameTheFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.pem").path
        let garbage = try directory.file("garbage.pem", "not a key")
        for (path, reason) in [(missing, JWTKeyError.Reason.unreadable), (garbage, .invalid)] {
            let error = try #require(failure { () throws(JWTKeyError) in try JWTKey.publicKeyFile(atPath: path) })
            #expect(error.reason == reason)
            #expect(error.message.hasPrefix(path) || error.message.contains(path))
        }
    }
}
