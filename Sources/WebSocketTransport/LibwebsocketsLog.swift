import CWebsockets
import Foundation
import Locking
import Observability

/// Sends lws's own error lines to the project's logger instead of its stderr format.
enum LibwebsocketsLog {
    private static let logger = Locked(Logger(component: "lws"))

    /// Routes lws errors to `logger`.
    static func route(to logger: Logger) {
        self.logger.withLock { $0 = logger.named("lws") }
        lws_set_log_level(LLL_ERR, emit)
    }

    private static let emit: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = { _, line in
        guard let line else { return }
        let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
        LibwebsocketsLog.logger.withLock { $0 }.warning("lws", ["detail": text])
    }
}
