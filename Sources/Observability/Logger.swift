import Foundation

/// How log lines look: one JSON object per line, or `key=value` text.
public enum LogFormat: String, Sendable, CaseIterable {
    case json, text
}

/// How much is logged; each level includes the ones above it.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    case debug, info, warning, error

    private var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rank < rhs.rank }
}

/// A structured logger writing one line per event to stderr.
///
/// Each line is written with a single `write(2)`, so lines from several threads never
/// interleave. Never pass a secret (a token, a key) as a field.
public struct Logger: Sendable {
    /// The lowest level that is written.
    public var level: LogLevel
    /// JSON or text lines.
    public var format: LogFormat
    /// Which part of the program speaks, e.g. `transport` or `server`.
    public var component: String
    /// Shared by every copy of this logger: how many `refused` lines pass per second.
    private let refusals = LogThrottle(perSecond: 20)

    /// Makes a logger for `component`.
    public init(level: LogLevel = .info, format: LogFormat = .text, component: String = "locstream") {
        self.level = level
        self.format = format
        self.component = component
    }

    /// The same logger, speaking for another component.
    public func named(_ component: String) -> Logger {
        var copy = self
        copy.component = component
        return copy
    }

    /// Logs at debug level.
    public func debug(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:]) {
        log(.debug, event, fields)
    }

    /// Logs at info level.
    public func info(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:]) {
        log(.info, event, fields)
    }

    /// Logs at warning level.
    public func warning(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:]) {
        log(.warning, event, fields)
    }

    /// Logs at error level.
    public func error(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:]) {
        log(.error, event, fields)
    }

    /// Logs a refused request or hostile input at info level, throttled: at most 20 such
    /// lines a second across every copy of this logger. A line written after some were
    /// held back carries their count as `suppressed`.
    public func refused(_ event: String, _ fields: KeyValuePairs<String, any Sendable> = [:]) {
        guard LogLevel.info >= level else { return }
        let now = Date()
        guard let suppressed = refusals.admit(atSecond: Int64(now.timeIntervalSince1970.rounded(.down))) else {
            return
        }
        var written = fields.map { ($0.key, "\($0.value)") }
        if suppressed > 0 { written.append(("suppressed", "\(suppressed)")) }
        emit(LogLine(time: now, level: .info, component: component, event: event, fields: written))
    }

    /// Writes one line for `event` when `level` is enabled.
    public func log(_ level: LogLevel, _ event: String, _ fields: KeyValuePairs<String, any Sendable>) {
        guard level >= self.level else { return }
        emit(
            LogLine(
                time: Date(), level: level, component: component, event: event,
                fields: fields.map { ($0.key, "\($0.value)") }))
    }

    private func emit(_ line: LogLine) {
        var bytes = Array((format == .json ? line.json : line.text).utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBytes { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
