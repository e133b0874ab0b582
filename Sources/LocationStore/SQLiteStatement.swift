import CSQLite

/// A compiled SQLite statement of one `SQLiteConnection`, reused: bind, step, read the
/// columns, reset. Used only by the holder of its connection.
final class SQLiteStatement {
    private let handle: OpaquePointer
    /// Kept so the connection outlives its statements, and for error messages.
    private let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds an integer to parameter `index` (from 1).
    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds a seq (stored as a signed 64-bit integer; seqs stay below 2^53).
    func bind(_ index: Int32, seq: UInt64) {
        sqlite3_bind_int64(handle, index, Int64(clamping: seq))
    }

    /// Binds a number, or NULL for nil, to parameter `index`.
    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Binds text to parameter `index`.
    func bind(_ index: Int32, _ text: String) {
        sqlite3_bind_text(handle, index, text, -1, locstream_sqlite_transient())
    }

    /// Binds a blob to parameter `index`.
    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), locstream_sqlite_transient())
        }
    }

    /// Steps once: true when a row is ready, false when done. The statement is reset
    /// when it is done or fails, so it can be bound and run again.
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = connection.failure(status, doing: "running `\(sqlText.prefix(60))`")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(StoreError) {
        while try step() {}
    }

    /// Resets the statement after reading only some of its rows.
    func reset() {
        sqlite3_reset(handle)
    }

    /// Column `index` (from 0) of the current row as an integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` of the current row as a number; nil for NULL.
    func double(_ index: Int32) -> Double? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_double(handle, index)
    }

    /// Column `index` of the current row as text.
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        return String(cString: bytes)
    }

    /// Column `index` of the current row as bytes.
    func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let start = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    private var sqlText: String {
        sqlite3_sql(handle).map { String(cString: $0) } ?? ""
    }
}
