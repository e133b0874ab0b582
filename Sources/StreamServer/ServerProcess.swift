import Foundation
import LocationStore
import Observability
import ProcessLifecycle
import RedisBroker
import StreamCore
import WebSocketTransport

/// One run of the server: start, serve until a signal, drain, exit.
struct ServerProcess {
    let settings: ServerSettings

    /// Runs the server; returns the exit status.
    func run() async -> Int32 {
        let logger = Logger(level: settings.logLevel, format: settings.logFormat, component: "server")
        let metrics = ServerMetrics()
        warnAboutUnknownVariables(logger: logger, metrics: metrics)
        for unused in settings.unusedStoreOptions {
            logger.warning("option has no effect", ["option": unused.option, "reason": unused.reason])
        }
        let broker: any Broker
        do {
            broker = try makeBroker(metrics: metrics, logger: logger.named("broker"))
        } catch {
            logger.error("cannot start", ["reason": error.description])
            return 1
        }
        let node = Node(
            name: settings.node, broker: broker, metrics: StreamMetrics(registry: metrics.registry),
            logger: logger.named("stream"), limits: settings.limits, access: settings.access)
        let readiness = Readiness { broker.isReachable }
        metrics.registry.gauge("hub_entries", help: "Subscriber registrations in the hub.") { node.hub.entryCount }
        let connectionLimit = settings.transport.maxConnections
        metrics.registry.gauge("max_connections", help: "The --max-connections limit.") { connectionLimit }
        metrics.registry.gauge("broker_up", help: "1 when the broker is reachable, else 0.") {
            broker.isReachable ? 1 : 0
        }
        let names = ConnectionNames(node: settings.node)
        let mapPage = MapPage(map: settings.map, limits: settings.limits, requiresToken: settings.access.requiresToken)
        if !mapPage.hasLeaflet {
            logger.warning(
                "Leaflet not found: the map page cannot draw",
                [
                    "leaflet_dir": settings.map.leafletDirectory,
                    "fix": "apt-get install libjs-leaflet, or --leaflet-dir",
                ])
        }
        let service = LocstreamService(
            settings: settings, metrics: metrics, readiness: readiness, node: node,
            connectionNames: names, files: mapPage.assets.merging(ContractDocuments.assets) { $1 })
        var transport = settings.transport
        transport.observer = TransportMetrics(registry: metrics.registry, logger: logger, names: names)
        let server = WebSocketServer(configuration: transport, delegate: service)
        metrics.registry.gauge("connections", help: "Open WebSocket connections.") { server.openWebSocketCount }
        // Caught before listening: a SIGTERM once clients can connect always drains.
        let signals = await TerminationSignals.caughtInTask()
        let port: Int
        do {
            port = try await server.start()
        } catch {
            logger.error("cannot start", ["reason": error.description])
            return 1
        }
        readiness.enter(.serving)
        let presence = Task { await node.watchPresence() }
        let sweeper = (broker as? LocalBroker).map {
            Self.sweep($0, every: settings.devices.sweepInterval, logger: logger.named("broker"))
        }
        logger.info(
            "listening",
            [
                "host": settings.transport.host, "port": port, "tls": settings.transport.usesTLS,
                "node": settings.node, "echo": settings.enableEcho, "event_loop": settings.transport.eventLoop.rawValue,
            ])
        let signalName = await signals.value ?? "cancelled"
        logger.info("shutting down", ["signal": signalName, "open_connections": server.openWebSocketCount])
        readiness.enter(.draining)
        await server.shutdown(timeout: settings.shutdownTimeout)
        sweeper?.cancel()
        presence.cancel()
        broker.close()
        logger.info("stopped")
        return 0
    }

    /// Logs a warning for each `LOCSTREAM_` variable no option reads, with the one it most
    /// likely meant, and counts them in `locstream_environment_unknown_variables`.
    private func warnAboutUnknownVariables(logger: Logger, metrics: ServerMetrics) {
        let unknown = settings.unknownEnvironment
        metrics.registry.gauge(
            "environment_unknown_variables", help: "LOCSTREAM_ variables set at start that no option reads."
        ) { unknown.count }
        for variable in unknown {
            logger.warning(
                "unknown environment variable ignored",
                ["variable": variable.name, "did_you_mean": variable.suggestion ?? "-"])
        }
    }

    /// Forgets the embedded broker's silent devices every `interval`, until cancelled,
    /// logging how many each sweep forgot.
    private static func sweep(_ broker: LocalBroker, every interval: Duration, logger: Logger) -> Task<Void, Never> {
        Task {
            while (try? await Task.sleep(for: interval)) != nil {
                do throws(BrokerError) {
                    let evicted = try await broker.sweep()
                    if evicted > 0 {
                        logger.info("silent devices forgotten", ["count": evicted, "left": broker.deviceCount])
                    }
                } catch {
                    logger.warning(
                        "silent devices stay in the store until the next sweep", ["reason": error.description])
                }
            }
        }
    }

    /// The embedded broker, or the Redis broker, which connects in the background once
    /// its node runs it. Throws when the embedded broker's store cannot be opened or read.
    private func makeBroker(metrics: ServerMetrics, logger: Logger) throws(BrokerError) -> any Broker {
        guard let endpoint = settings.redis else {
            let broker = try makeLocalBroker(metrics: metrics, logger: logger)
            metrics.registry.gauge("devices", help: "Devices the embedded broker tracks.") { broker.deviceCount }
            return broker
        }
        let broker = RedisBroker(
            endpoint: endpoint, historySize: settings.historySize, maxDevices: settings.devices.maxDevices,
            timeout: settings.redisTimeout, registry: metrics.registry, logger: logger)
        logger.info("using redis", ["redis": endpoint.description])
        return broker
    }

    /// The embedded broker, in memory alone or restored from the store under
    /// `--data-dir`, which it then writes every publication to.
    private func makeLocalBroker(metrics: ServerMetrics, logger: Logger) throws(BrokerError) -> LocalBroker {
        let evicted = metrics.registry.counter(
            "devices_evicted_total", help: "Devices forgotten after --retention of silence.")
        let store = settings.store
        guard store.kind == .sqlite else {
            logger.info("store in memory: everything is forgotten at exit", [:])
            return LocalBroker(historySize: settings.historySize, limits: settings.devices, evicted: evicted)
        }
        let opening = ContinuousClock.now
        let opened: LocationStore
        do {
            opened = try LocationStore.open(
                directory: store.directory, sync: store.sync, historySize: settings.historySize,
                registry: metrics.registry, logger: logger.named("store"), cpus: store.cpus)
        } catch {
            throw BrokerError("cannot open the store: \(error)")
        }
        let broker = try LocalBroker(
            restoringFrom: SQLiteDevices(store: opened), historySize: settings.historySize, limits: settings.devices,
            evicted: evicted)
        logger.info(
            "store opened",
            [
                "file": opened.databasePath, "devices": broker.deviceCount, "sync": store.sync.rawValue,
                "cpus": store.cpus?.description ?? "any",
                "recovered_from_crash": opened.recoveredFromCrash,
                "load_ms": Int((ContinuousClock.now - opening) / .milliseconds(1)),
            ])
        return broker
    }
}
