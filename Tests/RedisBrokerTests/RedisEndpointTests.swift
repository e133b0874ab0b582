import Testing

@testable import RedisBroker

@Suite("Redis URLs")
struct RedisEndpointTests {
    @Test("host, port, database, user and password are read; the description masks the password")
    func parses() throws {
        let full = try RedisEndpoint(url: "redis://ops:s3cret@10.0.0.5:6380/2")
        #expect(full.host == "10.0.0.5" && full.port == 6380 && full.database == 2)
        #expect(full.user == "ops" && full.password == "s3cret")
        #expect(full.description == "redis://ops:***@10.0.0.5:6380/2")
        let bare = try RedisEndpoint(url: "redis://localhost")
        #expect(bare.host == "localhost" && bare.port == 6379 && bare.database == 0 && bare.password == nil)
        let passwordOnly = try RedisEndpoint(url: "redis://:pw@127.0.0.1:7000/")
        #expect(passwordOnly.user == nil && passwordOnly.password == "pw" && passwordOnly.port == 7000)
    }

    @Test(
        "bad URLs say what is wrong",
        arguments: [
            ("http://127.0.0.1:6379", "redis://"), ("redis://127.0.0.1:0", "port"), ("redis://127.0.0.1:99999", "port"),
            ("redis://127.0.0.1:6379/x", "database"), ("redis://:6379", "host"), ("redis://127.0.0.1:abc", "port"),
        ])
    func refuses(url: String, mentions: String) {
        #expect(throws: RedisEndpointError.self) { try RedisEndpoint(url: url) }
        do {
            _ = try RedisEndpoint(url: url)
        } catch {
            #expect(error.description.contains(mentions))
        }
    }
}
