import Foundation

/// Runs a command to completion and returns its exit status and output.
struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Runs `executable` with `arguments`, waiting for it to exit.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws
        -> CommandResult
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A self-signed certificate and key for `localhost`/127.0.0.1, made with OpenSSL.
struct SelfSignedCertificate {
    let certificatePath: String
    let keyPath: String

    /// Makes a fresh pair in a temporary directory.
    init() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locstream-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        certificatePath = dir.appendingPathComponent("cert.pem").path
        keyPath = dir.appendingPathComponent("key.pem").path
        let result = try CommandResult.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyPath, "-out", certificatePath, "-days",
                "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ])
        guard result.status == 0 else { throw CertificateError.openssl(result.stderr) }
    }

    enum CertificateError: Error { case openssl(String) }
}
