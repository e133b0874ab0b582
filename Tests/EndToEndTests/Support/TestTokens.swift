import Foundation

/// HS256 tokens for end-to-end tests, signed by the `openssl` tool (not by the code
/// under test).
enum TestTokens {
    /// The shared secret the test servers are started with.
    static let secret = "locstream-test-secret-0123456789abcdef"

    /// `--auth jwt` with `secret`, plus `extra` options.
    static func serverOptions(_ extra: [String] = []) -> [String] {
        ["--auth", "jwt", "--jwt-secret", secret] + extra
    }

    /// A token for `subject` expiring `expiresIn` seconds from now, with the given claims.
    static func make(
        subject: String = "tester", expiresIn: TimeInterval = 600, devices: [String]? = ["*"], areas: Bool = false,
        publish: [String]? = ["*"], algorithm: String = "HS256", key: String = secret
    ) throws -> String {
        var claims: [String: Any] = [
            "sub": subject, "exp": Int(Date().timeIntervalSince1970 + expiresIn), "areas": areas,
        ]
        if let devices { claims["devices"] = devices }
        if let publish { claims["publish"] = publish }
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self)
        return try signed(payload: payload, algorithm: algorithm, key: key)
    }

    /// A token whose payload is `payload` exactly as written (numbers beyond what
    /// `JSONSerialization` writes, repeated keys…), signed HS256 with `key`.
    static func signed(payload: String, algorithm: String = "HS256", key: String = secret) throws -> String {
        let header = try base64URL(JSONSerialization.data(withJSONObject: ["alg": algorithm, "typ": "JWT"]))
        let input = header + "." + base64URL(Data(payload.utf8))
        guard algorithm != "none" else { return input + "." }
        return input + "." + base64URL(try hmac(Data(input.utf8), key: key))
    }

    private static func hmac(_ data: Data, key: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-binary", "-mac", "HMAC", "-macopt", "key:\(key)"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(data)
        try input.fileHandleForWriting.close()
        let signature = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return signature
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
