import Locking
import LocstreamProtocol

/// The task of an aggregated area subscription: every interval it reads the last known
/// positions in its area from the broker, counts those its rights allow per cell, and sends
/// the cells that changed. It is the subscription's one task, cancelled on a switch or a
/// drop like any other: it re-checks cancellation after every await, and the sink refuses
/// its frames the moment a newer generation is current.
///
/// Counting from the broker's positions at each frame, rather than from a stream of
/// moves, makes every count exact at the frame's time on either broker, and no device is
/// counted twice however it moved in between; the cost is one read of the area per interval,
/// paced node-wide by `AreaReadPacer`.
enum CellsTask {
    /// Reads, counts and sends every `interval`, after the first frame (`view` holds what it sent).
    static func start(
        _ cells: AggregatedArea, rights: Locked<DeviceRights>, every interval: Duration, view: CellsView,
        node: Node, delivery: Delivery
    ) -> Task<Void, Never> {
        Task(executorPreference: delivery.sink.executor, priority: .medium) {
            var view = view
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                let positions: [EncodedLocation]
                do {
                    positions = try await node.areaReads.read(cells.area, from: node.broker)
                } catch is CancellationError {
                    return
                } catch {
                    node.logger.warning("cannot read an aggregated area", ["sub": delivery.sub, "error": "\(error)"])
                    continue
                }
                guard !Task.isCancelled,
                    send(positions, of: cells, rights: rights.withLock { $0 }, view: &view, to: delivery, always: false)
                else { return }
            }
        }
    }

    /// Sends the cells of `positions` that `view` says changed (all of them, even none,
    /// when `always`); false when the subscription should stop. Synchronous and never
    /// inlined, so its locals stay off the task's async frame.
    @inline(never)
    static func send(
        _ positions: [EncodedLocation], of cells: AggregatedArea, rights: DeviceRights, view: inout CellsView,
        to delivery: Delivery, always: Bool
    ) -> Bool {
        let allowed = positions.lazy.map(\.location).filter { rights.allows($0.device) }
        let changes = view.changes(to: cells.summaries(of: allowed))
        guard always || !changes.isEmpty else { return true }
        let frame = CellsFrame.encode(sub: delivery.sub, cells: changes.map { cells.count($0.cell, $0.summary) })
        let outcome = delivery.sendCells(frame)
        if case .conflated = outcome { view.markLost() }
        return outcome.isQueued
    }
}
