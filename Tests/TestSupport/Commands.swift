import Foundation

/// Runs a command to completion and returns its exit status and output.
package struct CommandResult {
    package var status: Int32
    /// What the command wrote to stdout, as bytes.
    package var output: [UInt8]
    package var stderr: String

    /// stdout as text.
    package var stdout: String { String(decoding: output, as: UTF8.self) }

    /// Runs `executable` with `arguments` and `input` on stdin, waiting for it to exit.
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, input: [UInt8] = []
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let stdin = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = err
        try process.run()
        if !input.isEmpty { try stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(
            status: process.terminationStatus, output: Array(stdout), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A self-signed certificate and key for `localhost`/127.0.0.1, made with OpenSSL.
package struct SelfSignedCertificate {
    package let certificatePath: String
    package let keyPath: String

    /// Makes a fresh pair in a temporary directory.
    package init() throws {
        let dir = try TemporaryDirectory.lasting(prefix: "locstream-tls")
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

    package enum CertificateError: Error { case openssl(String) }
}
