import Foundation
import Locking
import LocstreamClient
import LocstreamProtocol
import ProcessLifecycle
import WebSocketTransport

/// `stream-client simulate`: drives a fleet of simulated vehicles and publishes their
/// positions on schedule, in batches, until the duration is over or a signal arrives.
struct SimulateCommand: Sendable {
    /// Why the publishing phase ended.
    private enum Ending: Sendable, Equatable {
        case finished
        case signal(String)
        case connectionLost
    }

    /// What to simulate, and where.
    let settings: SimulateSettings
    /// Queued bytes above which publishing waits for the socket to catch up.
    private let highWater = 4 << 20
    /// How many error frames are printed before the rest are only counted.
    private let errorsShown = 5

    /// A command for `settings`.
    init(settings: SimulateSettings) { self.settings = settings }

    /// Runs the simulation; returns the exit status.
    func run() async -> Int32 {
        let seed = settings.seed ?? UInt64.random(in: .min ... .max)
        if settings.seed == nil { Console.error("simulate: seed \(seed) (pass --seed \(seed) to replay these routes)") }
        let connector: Connector
        let connection: WebSocketConnection
        do {
            connector = try await Connector.start(settings.connection)
        } catch {
            Console.error("simulate: \(error)")
            return ExitStatus.failure
        }
        do {
            connection = try await connector.connect()
        } catch {
            Console.error("simulate: cannot connect to \(settings.connection.url): \(error)\(error.advice)")
            await connector.shutdown()
            return ExitStatus.failure
        }
        let tally = Locked(SimulationTally())
        let started = ContinuousClock.now
        let ending = await withTaskGroup(of: Ending?.self) { group in
            group.addTask { await publish(on: connection, tally: tally, seed: seed) }
            group.addTask {
                await readReplies(on: connection, tally: tally, untilSettled: false) ? nil : .connectionLost
            }
            group.addTask { await TerminationSignals.wait().map(Ending.signal) }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .connectionLost
        }
        let seconds = started.duration(to: .now).seconds
        if ending != .connectionLost {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await readReplies(on: connection, tally: tally, untilSettled: true) }
                group.addTask { try? await Task.sleep(for: .seconds(5)) }
                await group.next()
                group.cancelAll()
            }
            await Connector.closeGracefully(connection)
        } else {
            Console.error("simulate: connection lost" + CloseText.suffix(connection.peerClose?.code))
        }
        await connector.shutdown()
        let final = tally.withLock { $0 }
        Console.out(final.summary(devices: settings.deviceCount, seconds: seconds))
        let clean = ending != .connectionLost && final.errors == 0 && final.isSettled
        return clean ? ExitStatus.success : ExitStatus.failure
    }

    /// Publishes the fleet's reports as they fall due; returns `.finished` when the duration
    /// is over, nil when cancelled, `.connectionLost` when a send is refused.
    private func publish(on connection: WebSocketConnection, tally: Locked<SimulationTally>, seed: UInt64) async
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
            while next < due, connection.queuedBytes < highWater {
                let end = min(due, next + settings.batchSize)
                var batch: [Location] = []
                batch.reserveCapacity(end - next)
                for number in next..<end {
                    let device = schedule.device(of: number)
                    if !schedule.isFirst(number) { fleet.advance(device, by: schedule.interval) }
                    batch.append(fleet.report(device, ts: startMs + schedule.offsetMilliseconds(of: number)))
                }
                for frame in PublishFrames.encode(batch, maxBytes: settings.maxMessageBytes) {
                    guard connection.send(OutboundFrame(body: frame.bytes)) else { return .connectionLost }
                    tally.withLock { tally in
                        tally.sentBatches += 1
                        tally.sentLocations += frame.count
                    }
                }
                next = end
            }
            if let total = schedule.totalReports, next >= total { return .finished }
            // Sleep until the next report is due, but at least 5 ms, so fast runs send batches.
            let nextDue = start + .milliseconds(schedule.offsetMilliseconds(of: next))
            let soonest = ContinuousClock.now + .milliseconds(5)
            try? await Task.sleep(until: max(nextDue, soonest), clock: .continuous)
        }
        return nil
    }

    /// Counts the server's answers; returns true once every publish is answered (only when
    /// `untilSettled`), false when the connection ends or the task is cancelled.
    private func readReplies(on connection: WebSocketConnection, tally: Locked<SimulationTally>, untilSettled: Bool)
        async -> Bool
    {
        if untilSettled && tally.withLock({ $0.isSettled }) { return true }
        for await message in connection.messages {
            let settled: Bool
            switch try? ServerMessage.decode(message.bytes) {
            case .published(let count):
                settled = tally.withLock { tally in
                    tally.acknowledged += count
                    tally.answeredBatches += 1
                    return tally.isSettled
                }
            case .error(let error):
                let (shown, isSettled) = tally.withLock { tally in
                    tally.errors += 1
                    if error.failedOp == "publish" { tally.answeredBatches += 1 }
                    return (tally.errors, tally.isSettled)
                }
                if shown <= errorsShown { Console.error(FrameFormatter.error(error)) }
                if shown == errorsShown { Console.error("simulate: further errors are only counted") }
                settled = isSettled
            default:
                settled = false
            }
            if untilSettled && settled { return true }
        }
        return false
    }
}
