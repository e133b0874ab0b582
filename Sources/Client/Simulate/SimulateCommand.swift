import Foundation
import Locking
import LocstreamClient
import LocstreamProtocol
import ProcessLifecycle

/// `stream-client simulate`, on `LocstreamClient`: drives a fleet of simulated vehicles and
/// publishes their positions on schedule, in batches, until the duration is over or a signal
/// arrives.
struct SimulateCommand: Sendable {
    /// Why the publishing phase ended.
    private enum Ending: Sendable, Equatable {
        case finished
        case signal(String)
        case connectionLost
    }

    /// What to simulate, and where.
    let settings: SimulateSettings
    /// How many error frames are printed before the rest are only counted.
    private let errorsShown = 5

    /// A command for `settings`.
    init(settings: SimulateSettings) { self.settings = settings }

    /// Runs the simulation; returns the exit status.
    func run() async -> Int32 {
        let seed = settings.seed ?? UInt64.random(in: .min ... .max)
        if settings.seed == nil { Console.error("simulate: seed \(seed) (pass --seed \(seed) to replay these routes)") }
        let signals = await TerminationSignals.caughtInTask()
        let connector: Connector
        do {
            connector = try await Connector.start(settings.connection)
        } catch {
            Console.error("simulate: \(error)")
            return ExitStatus.failure
        }
        let watch = WireWatch()
        var configuration = ClientConfiguration()
        configuration.maxPublishBytes = settings.maxMessageBytes
        configuration.observer = { watch.note($0) }
        let client = connector.locstreamClient(configuration: configuration)
        let tally = Locked(SimulationTally())
        let started = ContinuousClock.now
        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask { await publish(with: client, tally: tally, seed: seed) }
            group.addTask { await signals.value.map(Ending.signal) }
            let first = await group.next() ?? nil
            // A publish waits for its answer; a server that never answers has this long.
            let patience = Task {
                try await Task.sleep(for: .seconds(5))
                client.closeIdleConnections()
            }
            group.cancelAll()
            signals.cancel()
            await group.waitForAll()
            patience.cancel()
            return first ?? .connectionLost
        }
        let seconds = started.duration(to: .now).seconds
        client.closeIdleConnections()
        await connector.shutdown()
        if ending == .connectionLost {
            if !watch.everConnected, case .connectFailed(let error)? = watch.trouble {
                Console.error(
                    "simulate: cannot connect to \(settings.connection.url): \(WireWatch.Trouble.explain(error))")
                return ExitStatus.failure
            }
            Console.error("simulate: " + (watch.trouble?.description ?? "connection lost"))
        }
        let final = tally.withLock { $0 }
        Console.out(final.summary(devices: settings.deviceCount, seconds: seconds))
        let clean = ending != .connectionLost && final.errors == 0 && final.isSettled
        return clean ? ExitStatus.success : ExitStatus.failure
    }

    /// Publishes the fleet's reports as they fall due, each batch once the one before is
    /// acknowledged (so a device's seqs follow its reports); returns `.finished` when the
    /// duration is over, nil when cancelled, `.connectionLost` when a publish could not be
    /// sent or answered.
    private func publish(with client: LocstreamClient, tally: Locked<SimulationTally>, seed: UInt64) async
        -> Ending?
    {
        var fleet = Fleet(count: settings.deviceCount, prefix: settings.prefix, seed: seed, area: settings.area)
        let schedule = PublishSchedule(
            deviceCount: settings.deviceCount, rate: settings.rate, duration: settings.duration)
        let start = ContinuousClock.now
        let startMs = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        var next = 0
        var warnedBehind = false
        while !Task.isCancelled {
            let due = schedule.dueCount(at: start.duration(to: .now).seconds)
            if !warnedBehind, Double(due - next) > settings.rate * Double(settings.deviceCount) * 2 {
                warnedBehind = true
                Console.error("simulate: more than 2 s behind schedule; this client or the server cannot keep up")
            }
            while next < due, !Task.isCancelled {
                let end = min(due, next + settings.batchSize)
                var batch: [Location] = []
                batch.reserveCapacity(end - next)
                for number in next..<end {
                    let device = schedule.device(of: number)
                    if !schedule.isFirst(number) { fleet.advance(device, by: schedule.interval) }
                    batch.append(fleet.report(device, ts: startMs + schedule.offsetMilliseconds(of: number)))
                }
                next = end
                guard await publish(batch, with: client, tally: tally) else { return .connectionLost }
            }
            if let total = schedule.totalReports, next >= total { return .finished }
            // Sleep until the next report is due, but at least 5 ms, so fast runs send batches.
            let nextDue = start + .milliseconds(schedule.offsetMilliseconds(of: next))
            let soonest = ContinuousClock.now + .milliseconds(5)
            try? await Task.sleep(until: max(nextDue, soonest), clock: .continuous)
        }
        return nil
    }

    /// Publishes one batch and counts the answer; false when the connection is gone.
    private func publish(_ batch: [Location], with client: LocstreamClient, tally: Locked<SimulationTally>) async
        -> Bool
    {
        tally.withLock { tally in
            tally.sentBatches += 1
            tally.sentLocations += batch.count
        }
        do throws(LocstreamError) {
            let seqs = try await client.publish(batch)
            tally.withLock { tally in
                tally.acknowledged += seqs.count
                tally.answeredBatches += 1
            }
            return true
        } catch {
            guard let refused = error.serverError else { return false }
            let shown = tally.withLock { tally in
                tally.errors += 1
                tally.answeredBatches += 1
                return tally.errors
            }
            if shown <= errorsShown { Console.error(FrameFormatter.error(refused)) }
            if shown == errorsShown { Console.error("simulate: further errors are only counted") }
            return true
        }
    }
}
