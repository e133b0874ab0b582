/// Runs `body`, then `cleanup`: also when `body` throws, before the error goes on.
package func withCleanup<Result>(_ body: () async throws -> Result, cleanup: () async -> Void) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
