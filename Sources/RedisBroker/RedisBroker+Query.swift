import LocstreamProtocol
import StreamCore

extension RedisBroker {
    /// Answers a geo query with `GEOSEARCH` over the geo set, within a circle covering the
    /// area (plus the polar devices when it reaches them), and exact tests in
    /// `PositionQuery.collect`. It asks for a few more than the limit (`ASC` for `near`,
    /// `ANY` for a box) and asks again for four times as many while the exact tests leave
    /// no more than the limit and `GEOSEARCH` may have had more to give. A `near` that
    /// reaches the polar devices (kept outside the geo set, so outside its order) reads
    /// every candidate before it sorts.
    public func positions(matching query: PositionQuery) async throws(BrokerError) -> PositionQueryResult {
        let circle = CoveringCircle(query.area)
        let exhaustive = query.order == .nearest && circle.reachesPolar
        var count = query.limit + 1 + query.limit / 4
        while true {
            let arguments = [
                "\(circle.lon)", "\(circle.lat)", "\(circle.radiusMeters)", "\(count)",
                query.order == .nearest ? "ASC" : "ANY", circle.reachesPolar ? "1" : "0",
            ]
            let reply = try await evaluate(RedisScripts.query, arguments.map { Array($0.utf8) }, doing: "query an area")
            guard let parts = reply.elements, let found = parts.first?.integer else {
                throw failed("query an area", "unexpected reply from Redis")
            }
            let stored = try decode(parts.dropFirst().compactMap(\.bytes), doing: "query an area").map(\.update)
            let result = query.collect(stored)
            guard found >= count, exhaustive || !result.truncated else { return result }
            count *= 4
        }
    }
}
