import Testing

extension Bystander {
    /// How a scope's bystander connects and how much harm it tolerates.
    package struct Options: Sendable {
        /// The token on its upgrade, for a server that runs with auth.
        package var token: String?
        /// How far the server's RSS may grow while it runs (see `expectUnharmed`).
        package var maxRSSGrowthKiB: Int

        /// A bystander with `token`, tolerating `maxRSSGrowthKiB` of RSS growth.
        package init(token: String? = nil, maxRSSGrowthKiB: Int = 100 * 1024) {
            self.token = token
            self.maxRSSGrowthKiB = maxRSSGrowthKiB
        }

        /// No token, the default RSS bound.
        package static let standard = Options()
    }
}

extension ServerHarness {
    /// Starts a server with `arguments` and a bystander beside it, runs `body`, then
    /// records an issue unless the bystander was unharmed, and stops it.
    package static func withBystander<Result>(
        _ arguments: [String] = [], _ options: Bystander.Options = .standard,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (ServerHarness, Bystander) async throws -> Result
    ) async throws -> Result {
        let server = try await ServerHarness(arguments)
        return try await server.withBystander(options, sourceLocation: sourceLocation) { try await body(server, $0) }
    }

    /// Runs `body` beside a bystander on this server, then records an issue unless the
    /// bystander was unharmed, and stops it (also when `body` throws, then unchecked).
    package func withBystander<Result>(
        _ options: Bystander.Options = .standard, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (Bystander) async throws -> Result
    ) async throws -> Result {
        let bystander = try await Bystander(self, token: options.token)
        return try await withCleanup {
            let result = try await body(bystander)
            await bystander.expectUnharmed(maxRSSGrowthKiB: options.maxRSSGrowthKiB, sourceLocation: sourceLocation)
            return result
        } cleanup: {
            await bystander.stop()
        }
    }
}
