import OptionParsing
import Testing

@testable import OptionParsing

/// Unknown `LOCSTREAM_` variables, Kubernetes service links, and errors naming the variable.
@Suite("environment checks")
struct EnvironmentCheckTests {
    private let specs: [OptionSpec] = [
        .value("port", "PORT", help: "p"), .value("redis-url", "URL", help: "r"), .value("redis", "X", help: "x"),
        .flag("deflate", help: "d"),
    ]

    @Test("service links of services named locstream… are recognised; look-alikes are not")
    func serviceLinks() {
        for (name, value) in [
            ("LOCSTREAM_SERVICE_HOST", "10.0.0.1"), ("LOCSTREAM_SERVICE_PORT", "8080"),
            ("LOCSTREAM_SERVICE_PORT_WS", "8080"), ("LOCSTREAM_PORT_8080_TCP", "tcp://10.0.0.1:8080"),
            ("LOCSTREAM_PORT_8080_TCP_ADDR", "10.0.0.1"), ("LOCSTREAM_PORT_8080_TCP_PORT", "8080"),
            ("LOCSTREAM_REDIS_PORT_6379_UDP_PROTO", "udp"), ("LOCSTREAM_REDIS_PORT", "tcp://10.0.0.2:6379"),
        ] {
            #expect(EnvironmentCheck.isServiceLink(name: name, value: value), "\(name)")
        }
        for (name, value) in [
            ("LOCSTREAM_PROT", "9000"), ("LOCSTREAM_REDIS_PORT", "6379"), ("LOCSTREAM_PORT_8080_TCP_FOO", "x"),
            ("LOCSTREAM_PORT_HTTP_TCP", "x"), ("LOCSTREAM_PORT_8080", "x"),
        ] {
            #expect(!EnvironmentCheck.isServiceLink(name: name, value: value), "\(name)")
        }
    }

    @Test("unknown variables are listed with the nearest option variable; known, links and the client's are not")
    func unknownVariables() {
        let environment = [
            "LOCSTREAM_PROT": "9000", "LOCSTREAM_PORT": "9001", "LOCSTREAM_SERVICE_HOST": "10.0.0.1",
            "LOCSTREAM_CLIENT_TOKEN": "t", "LOCSTREAM_BANANA": "1", "PATH": "/bin",
        ]
        let unknown = EnvironmentCheck.unknownVariables(
            in: environment, prefix: "LOCSTREAM_", specs: specs, otherPrefixes: ["LOCSTREAM_CLIENT_"])
        #expect(
            unknown == [
                .init(name: "LOCSTREAM_BANANA", suggestion: nil),
                .init(name: "LOCSTREAM_PROT", suggestion: "LOCSTREAM_PORT"),
            ])
        #expect(unknown[1].description == "LOCSTREAM_PROT is not an option (ignored); did you mean LOCSTREAM_PORT?")
    }

    @Test("an error about a value from the environment names the variable; one from a flag does not")
    func errorsNameTheVariable() throws {
        let fromEnvironment = try ParsedOptions(
            arguments: [], specs: specs, environment: ["LOCSTREAM_PORT": "tcp://10.0.0.1:8080"],
            environmentPrefix: "LOCSTREAM_")
        let named = fromEnvironment.naming(UsageError("--port must be an integer, not 'tcp://10.0.0.1:8080'"))
        #expect(named.description.hasPrefix("LOCSTREAM_PORT: --port must be"))
        #expect(named.description.contains("enableServiceLinks: false"))
        let fromFlag = try ParsedOptions(
            arguments: ["--port", "x"], specs: specs, environment: ["LOCSTREAM_PORT": "1"],
            environmentPrefix: "LOCSTREAM_")
        #expect(fromFlag.naming(UsageError("--port must be an integer")) == UsageError("--port must be an integer"))
        let redis = try ParsedOptions(
            arguments: [], specs: specs, environment: ["LOCSTREAM_REDIS": "1"], environmentPrefix: "LOCSTREAM_")
        #expect(redis.naming(UsageError("--redis-url is bad")) == UsageError("--redis-url is bad"))
        #expect(redis.naming(UsageError("--redis is bad")).description == "LOCSTREAM_REDIS: --redis is bad")
    }

    @Test("did you mean: the nearest name within a third of its length, transpositions counting once")
    func suggestions() {
        let names = ["subscribe", "publish", "simulate", "bench"]
        #expect(Suggestion.closest(to: "subscirbe", among: names) == "subscribe")
        #expect(Suggestion.closest(to: "pubish", among: names) == "publish")
        #expect(Suggestion.closest(to: "BENCH", among: names) == "bench")
        #expect(Suggestion.closest(to: "deploy", among: names) == nil)
        #expect(Suggestion.hint(for: "--prot", among: ["--port", "--host"]) == "; did you mean --port?")
    }
}
