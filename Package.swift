// swift-tools-version:6.0
import PackageDescription

/// The server's map page (`Sources/StreamServer/MapPage`) is embedded with `.embedInCode`:
/// SwiftPM compiles each file into `PackageResources` as bytes, so no Foundation `Bundle`
/// and no resource directory beside the executable is needed.
///
/// The contract the server serves (`/v1/openapi.json`, `/v1/asyncapi.json`, `/v1/schema/…`)
/// is embedded from `docs/` by the `EmbedContract` plugin before each build.
///
/// `BuildInfo` (the version, commit and Swift of `--version` and `locstream_build_info`)
/// is stamped before each build by the `BuildStamp` plugin, with `git` when built from a
/// checkout and `unknown` for the commit otherwise.
///
/// `-DLOCSTREAM_TSAN` swaps `Synchronization.Mutex` for a pthread mutex that
/// ThreadSanitizer can see (see `Sources/Locking`). `make tsan` sets it.
let package = Package(
    name: "locstream",
    // `LocstreamClient` uses `Synchronization.Mutex`; elsewhere the package is Linux-only.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "LocstreamClient", targets: ["LocstreamClient"]),
        .library(name: "LocstreamClientLWS", targets: ["LocstreamClientLWS"]),
        .executable(name: "stream-server", targets: ["StreamServer"]),
        .executable(name: "stream-client", targets: ["Client"]),
        .executable(name: "store-bench", targets: ["StoreBench"]),
        .executable(name: "client-bench", targets: ["ClientBench"]),
        .executable(name: "follow", targets: ["FollowExample"]),
    ],
    targets: [
        .systemLibrary(name: "CWebsockets", pkgConfig: "libwebsockets"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl"),
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis"),
        .systemLibrary(name: "CLibev"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CSched"),
        .target(name: "Auth", dependencies: ["COpenSSL", "LocstreamProtocol"]),
        .plugin(name: "BuildStamp", capability: .buildTool()),
        .plugin(name: "EmbedContract", capability: .buildTool()),
        .target(name: "BuildInfo", plugins: ["BuildStamp"]),
        .target(name: "Locking"),
        .target(name: "Observability", dependencies: ["Locking"]),
        .target(name: "OptionParsing"),
        .target(name: "ProcessLifecycle"),
        .target(
            name: "WebSocketTransport", dependencies: ["CLibev", "CWebsockets", "Locking", "Observability"]),
        .target(name: "LocstreamProtocol"),
        // The client library apps build on: the protocol module, Locking (a lock ThreadSanitizer
        // can see) and Foundation only, no C.
        .target(name: "LocstreamClient", dependencies: ["Locking", "LocstreamProtocol"]),
        // Its libwebsockets transport, for Linux and servers.
        .target(name: "LocstreamClientLWS", dependencies: ["LocstreamClient", "WebSocketTransport"]),
        // The smallest program on the library, built with everything so that it keeps compiling.
        .executableTarget(
            name: "FollowExample", dependencies: ["LocstreamClient", "LocstreamClientLWS", "WebSocketTransport"],
            path: "Examples/follow"),
        .target(name: "StreamCore", dependencies: ["Auth", "LocstreamProtocol", "Locking", "Observability"]),
        .target(
            name: "LocationStore", dependencies: ["CSQLite", "CSched", "Locking", "LocstreamProtocol", "Observability"]),
        // Fills a store and measures a start: `swift build -c release --product store-bench`.
        .executableTarget(name: "StoreBench", dependencies: ["LocationStore", "Locking", "LocstreamProtocol"]),
        .target(
            name: "RedisBroker",
            dependencies: ["CHiredis", "COpenSSL", "Locking", "LocstreamProtocol", "Observability", "StreamCore"]),
        .executableTarget(
            name: "StreamServer",
            dependencies: [
                "Auth", "BuildInfo", "WebSocketTransport", "LocstreamProtocol", "StreamCore", "RedisBroker",
                "LocationStore", "Locking", "Observability", "OptionParsing", "ProcessLifecycle",
            ],
            resources: [
                .embedInCode("MapPage/index.html"), .embedInCode("MapPage/map.js"), .embedInCode("MapPage/map.css"),
                .embedInCode("MapPage/locstream.js"),
            ],
            // jemalloc (Debian libjemalloc-dev) replaces glibc's malloc for the whole server:
            // an idle subscribed connection costs 5.8 KiB instead of 7.6, and at 300k frames/s
            // it delivers as much as C lws (deploy/loadtest/results/fanout.md).
            linkerSettings: [.linkedLibrary("jemalloc")],
            plugins: ["EmbedContract"]
        ),
        .target(
            name: "LoadBench", dependencies: ["WebSocketTransport", "LocstreamProtocol", "Locking", "Observability"]),
        // The client library's figures (deploy/loadtest/client-figures.sh): a consumer's
        // elements per second, beside the bench's raw receiver, and memory per idle sequence.
        .executableTarget(
            name: "ClientBench",
            dependencies: ["LoadBench", "LocstreamClient", "LocstreamClientLWS", "WebSocketTransport"]),
        .executableTarget(
            name: "Client",
            dependencies: [
                "Auth", "BuildInfo", "LoadBench", "LocstreamClient", "LocstreamClientLWS", "WebSocketTransport",
                "LocstreamProtocol", "Locking", "Observability", "OptionParsing", "ProcessLifecycle",
            ]
        ),
        // What the test targets share: JWT minting, SplitMix, temporary directories, the
        // process runner and the server harness. Only test targets depend on it.
        .target(
            name: "TestSupport", dependencies: ["LocstreamProtocol", "Locking", "WebSocketTransport"],
            path: "Tests/TestSupport"),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "LocstreamProtocol", "TestSupport"]),
        .testTarget(
            name: "LocationStoreTests",
            dependencies: ["LocationStore", "Locking", "LocstreamProtocol", "Observability", "TestSupport"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"]),
        .testTarget(name: "LocstreamProtocolTests", dependencies: ["LocstreamProtocol"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "ProcessLifecycleTests", dependencies: ["ProcessLifecycle"]),
        .testTarget(name: "WebSocketTransportTests", dependencies: ["Locking", "TestSupport", "WebSocketTransport"]),
        .testTarget(
            name: "StreamCoreTests",
            dependencies: ["Auth", "Locking", "StreamCore", "LocstreamProtocol", "Observability"]),
        .testTarget(
            name: "RedisBrokerTests", dependencies: ["RedisBroker", "StreamCore", "LocstreamProtocol", "Observability"]),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "Auth", "Client", "LoadBench", "LocstreamClient", "LocstreamProtocol", "OptionParsing",
                "WebSocketTransport",
            ]),
        .testTarget(name: "LoadBenchTests", dependencies: ["LoadBench", "Locking", "LocstreamProtocol"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["WebSocketTransport", "LocstreamProtocol", "Locking", "TestSupport"]
        ),
        .testTarget(name: "DeployArtefactTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "LocstreamClientTests",
            dependencies: [
                "LocstreamClient", "LocstreamClientLWS", "LocstreamProtocol", "Locking", "TestSupport",
                "WebSocketTransport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
