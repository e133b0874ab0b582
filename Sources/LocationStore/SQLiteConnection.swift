import CSQLite
import Glibc

/// One connection to the store's SQLite file.
///
/// Not `Sendable`: a connection is used by one thread at a time. The store keeps each
/// one inside a `Locked` (the writer's is only ever taken by the writer thread, the
/// reader's by whoever reads), so no `@unchecked` is needed anywhere.
final class SQLiteConnection {
    /// The database file.
    let path: String
    private let handle: OpaquePointer

    /// Opens (creating if `create`) the database at `path`, read-write.
    init(path: String, create: Bool) throws(StoreError) {
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(opened)
            throw StoreError(sqliteStatus: status, path: path, doing: "opening it", message: message)
        }
        handle = opened
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs `sql`, one or more statements that return no rows (or whose rows are ignored).
    func execute(_ sql: String, doing: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw failure(status, doing: doing, message: message.map { String(cString: $0) })
        }
    }

    /// Compiles `sql` into a statement to bind and step.
    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw failure(status, doing: "preparing `\(sql.prefix(60))`")
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// The single integer the query `sql` answers (0 when it answers no row).
    func integer(_ sql: String) throws(StoreError) -> Int64 {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : 0
    }

    /// Whether a transaction is open.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rolls back the open transaction, if any; what went wrong before is what matters.
    func rollback() {
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }

    /// The store error for the SQLite `status` of an operation described by `doing`.
    func failure(_ status: Int32, doing: String, message: String? = nil) -> StoreError {
        StoreError(
            sqliteStatus: status, path: path, doing: doing, message: message ?? String(cString: sqlite3_errmsg(handle)),
            systemError: sqlite3_system_errno(handle))
    }
}

extension StoreError {
    /// The error for SQLite's (extended) result `status` while `doing` something to `path`.
    ///
    /// For an I/O error or a file that cannot be opened, `systemError` is the operating
    /// system's `errno` behind it (`sqlite3_system_errno`): SQLite says only "disk I/O
    /// error" when, for instance, the shared-memory file cannot grow on a full disk, so
    /// the reason names the system's error too, and ENOSPC or EDQUOT makes it `diskFull`.
    init(sqliteStatus status: Int32, path: String, doing: String, message: String, systemError: Int32 = 0) {
        var kind: Kind
        switch status & 0xff {
        case SQLITE_NOTADB: kind = .notADatabase
        case SQLITE_CORRUPT: kind = .corrupt
        case SQLITE_FULL: kind = .diskFull
        case SQLITE_IOERR: kind = .ioError
        case SQLITE_CANTOPEN, SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH: kind = .notWritable
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .inUse
        default: kind = .sqlite
        }
        var code = "SQLite error \(status)"
        if [SQLITE_IOERR, SQLITE_CANTOPEN].contains(status & 0xff), systemError != 0 {
            code += ", system error \(systemError): \(String(cString: strerror(systemError)))"
            if systemError == ENOSPC || systemError == EDQUOT { kind = .diskFull }
        }
        self.init(kind, path: path, reason: "\(doing): \(message) (\(code))")
    }
}
