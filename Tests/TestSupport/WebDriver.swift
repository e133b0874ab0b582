import Foundation

/// A headless Chromium driven through `chromedriver` over the W3C WebDriver protocol
/// (plain HTTP and JSON on loopback), with no Selenium in between.
///
/// `start` launches `chromedriver` on a free port and opens one session; `quit` ends
/// both. Every request is bounded by a socket timeout. The driver process is killed
/// when the object goes away.
package final class WebDriver {
    /// Where the driver and browser live, if installed (Debian `chromium-driver`, `chromium`).
    package static let chromedriverPath = "/usr/bin/chromedriver"
    package static let chromiumPath = "/usr/bin/chromium"

    /// Whether both executables are installed.
    package static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: chromedriverPath)
            && FileManager.default.isExecutableFile(atPath: chromiumPath)
    }

    private let process: Process
    private let output: ProcessOutput
    private let port: Int
    private var session: String?

    /// Starts `chromedriver` on a free loopback port. It listens on IPv6 too, and exits
    /// when the port is taken there (by another test's socket, since the port was only
    /// checked on IPv4): then it is started again on another port, up to 5 times.
    private static func launch() async throws -> (Process, ProcessOutput, Int) {
        var attempt = 1
        while true {
            let port = try LoopbackPort.free()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: chromedriverPath)
            process.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            let output = ProcessOutput(reading: pipe)
            try process.run()
            if await output.firstLine(containing: "started successfully", within: .seconds(20)) != nil {
                return (process, output, port)
            }
            kill(process.processIdentifier, SIGKILL)
            guard attempt < 5, output.text.contains("port not available") else {
                throw WebDriverError.driverDidNotStart(output.text)
            }
            attempt += 1
        }
    }

    /// Starts `chromedriver` and a headless browser session with a `width` × `height` window.
    package init(width: Int = 1280, height: Int = 800) async throws {
        (process, output, port) = try await Self.launch()
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": Self.chromiumPath,
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=\(width),\(height)", "--no-first-run", "--no-default-browser-check",
                        ],
                    ],
                    "goog:loggingPrefs": ["browser": "ALL"],
                ] as [String: Any]
            ]
        ]
        let value = try request("POST", "/session", capabilities, timeout: 60)
        guard let object = value as? [String: Any], let id = object["sessionId"] as? String else {
            throw WebDriverError.protocolError("no sessionId in \(String(describing: value))")
        }
        session = id
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Opens `url` and waits for its load event.
    package func navigate(to url: String) throws {
        _ = try request("POST", try sessionPath("/url"), ["url": url], timeout: 60)
    }

    /// Runs `script` (a function body; `return` gives the result) in the page and
    /// returns its JSON-decoded result.
    package func execute(_ script: String, _ arguments: [Any] = []) throws -> Any {
        try request("POST", try sessionPath("/execute/sync"), ["script": script, "args": arguments])
    }

    /// Polls `script` every 100 ms until `condition` holds for its result, for at most
    /// `timeout`; returns the last result and whether the condition held.
    package func wait(
        for script: String, within timeout: Duration, until condition: (Any) -> Bool
    ) async throws -> (value: Any, met: Bool) {
        let deadline = ContinuousClock.now + timeout
        var value = try execute(script)
        while !condition(value) {
            guard ContinuousClock.now < deadline else { return (value, false) }
            try await Task.sleep(for: .milliseconds(100))
            value = try execute(script)
        }
        return (value, true)
    }

    /// A left click of the mouse at (`x`, `y`) CSS pixels of the viewport.
    package func click(x: Int, y: Int) throws {
        let pointer: [String: Any] = [
            "type": "pointer", "id": "mouse", "parameters": ["pointerType": "mouse"],
            "actions": [
                ["type": "pointerMove", "origin": "viewport", "x": x, "y": y, "duration": 0],
                ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0],
            ],
        ]
        _ = try request("POST", try sessionPath("/actions"), ["actions": [pointer]])
    }

    /// A PNG of the viewport.
    package func screenshot() throws -> Data {
        let value = try request("GET", try sessionPath("/screenshot"), nil)
        guard let base64 = value as? String, let data = Data(base64Encoded: base64) else {
            throw WebDriverError.protocolError("screenshot was not base64")
        }
        return data
    }

    /// The browser console entries since the last call, as (level, message), if the
    /// driver supports the legacy log endpoint; nil otherwise.
    package func browserLog() -> [(level: String, message: String)]? {
        guard let path = try? sessionPath("/se/log"),
            let value = try? request("POST", path, ["type": "browser"]),
            let entries = value as? [[String: Any]]
        else { return nil }
        return entries.map { (($0["level"] as? String) ?? "", ($0["message"] as? String) ?? "") }
    }

    /// Ends the session and stops the driver.
    package func quit() {
        if let path = try? sessionPath("") { _ = try? request("DELETE", path, nil, timeout: 20) }
        session = nil
        if process.isRunning { process.terminate() }
    }

    private func sessionPath(_ suffix: String) throws -> String {
        guard let session else { throw WebDriverError.protocolError("no session") }
        return "/session/\(session)\(suffix)"
    }

    /// One WebDriver command: `body` as JSON, the reply's `value` (or its error) back.
    private func request(_ method: String, _ path: String, _ body: [String: Any]?, timeout: Int = 30) throws -> Any {
        let socket = try RawSocket(port: port, timeout: timeout)
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n\r\n"
        try socket.send(Array(head.utf8) + Array(payload))
        let header = String(decoding: try socket.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let lengthLine = header.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        let bytes = try length.map { try socket.read(exactly: $0) } ?? socket.readToEnd()
        let reply = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        guard let object = reply as? [String: Any] else { throw WebDriverError.protocolError("reply not an object") }
        let value = object["value"] ?? NSNull()
        if let error = value as? [String: Any], let code = error["error"] as? String {
            throw WebDriverError.command(method + " " + path, code, (error["message"] as? String) ?? "")
        }
        return value
    }

    /// What went wrong talking to the driver.
    package enum WebDriverError: Error {
        case driverDidNotStart(String)
        case protocolError(String)
        case command(String, String, String)
    }
}
