import GRDB
import GRDBSQLite

/// A prepared statement driven through SQLite's C API, for the loops that run once per image
/// (bulk inserts, layout scans), where building GRDB argument arrays per row would dominate.
///
/// Prepared once per operation (``init(_:_:)``), or once per connection and kept in GRDB's
/// statement cache (``init(cached:_:)``: the statements every request runs); bind, then `run()`
/// (writes) or `step()` (reads).
final class RawStatement {
    private let connection: OpaquePointer
    private let handle: OpaquePointer
    private let sql: String
    /// Whether this object finalizes the statement (GRDB finalizes its cached ones).
    private let owned: Bool

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ db: Database, _ sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the connection is closed")
        }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.connection = connection
        self.handle = statement
        self.sql = sql
        owned = true
    }

    /// The connection's cached statement for `sql` (GRDB's `cachedStatement`: prepared on its
    /// first use on this connection), reset and with its bindings cleared. Not for statements
    /// that may run nested inside themselves.
    init(cached db: Database, _ sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the connection is closed")
        }
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        self.connection = connection
        self.handle = statement
        self.sql = sql
        owned = false
    }

    deinit {
        if owned { sqlite3_finalize(handle) } else { sqlite3_reset(handle) }
    }

    /// Runs `sql` (one or more statements without results) through `sqlite3_exec`.
    ///
    /// GRDB's `execute(sql:)` goes through its SQL builder, whose first use in a process
    /// instantiates generic types by mangled name (about a fifth of a millisecond, measured with
    /// perf on `waterfall page`): opening a database and a read transaction, which every command
    /// does, use this instead.
    static func execute(_ db: Database, _ sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the connection is closed")
        }
        let code = sqlite3_exec(connection, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withUTF8 { bytes in
            if let base = bytes.baseAddress, !bytes.isEmpty {
                _ = sqlite3_bind_text(handle, index, base, Int32(bytes.count), Self.transient)
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
        }
    }

    /// Binds `value` without copying it, runs `body`, which must step the statement, and keeps
    /// the text alive until then. For the per-row loops of bulk writes.
    func withBound<T>(_ index: Int32, _ value: String?, _ body: () throws -> T) rethrows -> T {
        guard var value else {
            sqlite3_bind_null(handle, index)
            return try body()
        }
        return try value.withUTF8 { bytes in
            if let base = bytes.baseAddress, !bytes.isEmpty {
                sqlite3_bind_text(handle, index, base, Int32(bytes.count), nil)  // SQLITE_STATIC
            } else {
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
            return try body()
        }
    }

    func bind(_ index: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
        }
    }

    /// Executes a statement that returns no rows, then resets it for the next bindings.
    func run() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Advances to the next row: `true` while there is one. Call `reset()` when done early.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        if code == SQLITE_DONE { return false }
        throw error(code)
    }

    func reset() {
        sqlite3_reset(handle)
    }

    /// Every row, each read by `row`.
    func all<T>(_ row: (RawStatement) throws -> T) throws -> [T] {
        var result: [T] = []
        while try step() { result.append(try row(self)) }
        return result
    }

    /// The first row read by `row`, or `nil` when there is none.
    func first<T>(_ row: (RawStatement) throws -> T) throws -> T? {
        defer { reset() }
        return try step() ? try row(self) : nil
    }

    func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func string(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let blob = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
    }
}
