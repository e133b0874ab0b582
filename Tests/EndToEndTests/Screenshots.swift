import Foundation
import TestSupport
import Testing

/// Where the browser tests put their screenshots: the directory `LOCSTREAM_SCREENSHOTS` if set
/// (the committed ones were made with `LOCSTREAM_SCREENSHOTS=deploy/loadtest/results`), else the
/// temporary directory, so a test run leaves the work tree as it was.
enum Screenshots {
    /// Takes a PNG of `driver`'s viewport, checks it is one, and saves it as `name`.
    static func save(_ driver: WebDriver, as name: String) throws {
        let png = try driver.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let directory = ProcessInfo.processInfo.environment["LOCSTREAM_SCREENSHOTS"].map {
            URL(fileURLWithPath: $0)
        }
        let url = (directory ?? FileManager.default.temporaryDirectory).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: url)
    }
}
