import Foundation
import GRDB
import GRDBSQLite

/// ``CatalogStore`` on SQLite, the embedded default: feeds, sections, images in order, the
/// change log, named layouts and the layout cache, in one file (WAL journal, busy timeout,
/// foreign keys on), migrated by `Migrations/sqlite/`.
///
/// Every domain read runs in ``read(_:)`` and every domain write in ``write(_:_:)``: one
/// transaction each, so that `kill -9` at any moment leaves the file at the state before or
/// after it. Tests open it ``inMemory()``.
///
/// A server's catalog (``openForServing(atPath:readers:)``, a pool) runs each transaction on
/// GRDB's queues through its async access, and its callers wait without a thread. A command's
/// catalog (``open(atPath:)``, one connection) runs it on the caller's own thread: the command
/// has nothing else to do meanwhile, and the hop to GRDB's queue made `waterfall page` at a
/// million images 2.9 ms where it is 2.1 ms (`Benchmarks/compare.sh`; the `sqlite3` shell's
/// query: 1.5 ms). Only SQLite's own lock, bounded by the busy timeout, is waited for there.
public struct SQLiteCatalog: CatalogStore {
    /// SQLite's page cache per connection, in KiB (64 MiB).
    static let pageCacheKiB = 65_536
    /// How much of the file SQLite reads through a memory map (1 GiB): queries read pages
    /// without a copy or a system call.
    static let mmapBytes = 1 << 30

    /// A server's page cache per connection, in KiB (2 MiB, SQLite's own default): a server
    /// keeps its feeds' geometry in memory (DESIGN section 12), so its reads touch only their
    /// own rows, which the operating system's cache keeps as well; nine connections of 64 MiB
    /// would hold half a gigabyte of pages that nothing reads twice, and of 8 MiB, 72 MiB of a
    /// 1M-image server's peak memory for no more pages a second (`Benchmarks/serve.sh`).
    static let servingPageCacheKiB = 2_048

    /// SQLite's `application_id` of Waterfall databases: 'WTFL' (0x5754464C).
    public static let applicationID: Int32 = 0x5754_464C
    /// How long a write waits for another process's write to finish before failing.
    public static let busyTimeout: TimeInterval = 10

    let writer: any DatabaseWriter
    /// The file path, or `nil` for an in-memory database.
    public let path: String?
    public var location: String? { path }
    public var readsAreRemote: Bool { false }
    /// Whether this process created the file: it then starts with a rollback journal, so that
    /// a first bulk import writes every page once, straight into the file (no WAL copy and no
    /// checkpoint of the whole database), and switches to WAL after its first committed write.
    let switchesToWALAfterWrite: Bool

    /// Closes the SQLite connections now (the last one to close checkpoints the write-ahead
    /// log and removes it). Nothing may be read or written afterwards. A command-line process
    /// calls it before it exits instead of letting the database be deinitialised: GRDB's
    /// deinitialiser unregisters from `NotificationCenter`, whose first cast of a Swift value
    /// scans every protocol conformance of the executable, a third of a millisecond of a
    /// whole-process query.
    public func close() async {
        try? writer.close()
    }

    /// Opens the database at `path`, creating and migrating it when it is new.
    ///
    /// A file that is not a Waterfall database (not SQLite, another application's SQLite file,
    /// a directory) is refused and left byte-identical; a database written by a newer Waterfall
    /// is refused with a sentence saying so; an older one is migrated forward.
    /// - Throws: ``StoreError`` of kind `cannotCreate` or `cannotOpen`.
    public static func open(atPath path: String) throws(StoreError) -> SQLiteCatalog {
        let isNew = try DatabaseFile.inspect(path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // Waterfall sets the WAL journal itself, after the checks below: GRDB's `.wal` setting
        // writes a throwaway table to any database opened without a `-wal` file, which would
        // modify a refused (newer) database, or fail every command on a full disk.
        configuration.journalMode = .default
        configuration.label = "waterfall"
        // Foreign keys are switched on below with the other settings, without GRDB's SQL builder
        // (see RawStatement.execute).
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase { db in
            // Must precede the first table; ignored by SQLite for an existing file.
            if isNew { try RawStatement.execute(db, "PRAGMA page_size = 8192") }
            // Temporary storage stays SQLite's default (files, cached like any page): with
            // `temp_store = MEMORY` the sorts that rebuild a first import's indexes held about
            // 46 MB more at the import's peak, for no measurable speed.
            // `secure_delete` back to SQLite's own default: Debian builds SQLite to overwrite
            // every deleted row with zeros, a seventh of the instructions of a move (callgrind),
            // which deletes a few thousand layout checkpoints; Waterfall keeps nothing secret
            // in deleted rows (API keys are stored as hashes).
            try RawStatement.execute(
                db,
                """
                PRAGMA foreign_keys = ON;
                PRAGMA secure_delete = OFF;
                PRAGMA synchronous = NORMAL;
                PRAGMA cache_size = -\(SQLiteCatalog.pageCacheKiB);
                PRAGMA mmap_size = \(SQLiteCatalog.mmapBytes);
                """)
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            if isNew {
                // Marked as Waterfall's before anything else is written: GRDB's migrator makes
                // its own table first, in a transaction of its own, and another process opening
                // the file in between would take it for another application's database.
                try queue.writeWithoutTransaction { db in
                    try RawStatement.execute(db, "PRAGMA application_id = \(applicationID)")
                }
            }
            let journalMode = try migrate(queue, path: path)
            // GRDB's authorizer runs at every statement's preparation, for every column it
            // reads, to build the regions its database observation needs: a fifth of the
            // instructions of a `waterfall page` (callgrind). A command observes nothing, and
            // after the migrations it never asks GRDB about the schema (whose cache the
            // authorizer keeps fresh), so its connection goes without.
            queue.writeWithoutTransaction { db in
                _ = sqlite3_set_authorizer(db.sqliteConnection, nil, nil)
            }
            if !isNew && journalMode.lowercased() != "wal" {
                // Needs the file to itself: while another process is still writing its first
                // import, this fails at once and the file stays in rollback mode until a later
                // open (the command itself then waits on locks as usual).
                try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            }
            return SQLiteCatalog(writer: queue, path: path, switchesToWALAfterWrite: isNew)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError(
                error.resultCode == .SQLITE_CANTOPEN ? .cannotCreate : .cannotOpen,
                "\(path): cannot be opened as a Waterfall database: \(error.message ?? "\(error.resultCode)").")
        } catch {
            throw StoreError(.cannotOpen, "\(path): cannot be opened: \(error).")
        }
    }

    /// Opens the database at `path` as ``open(atPath:)`` does, for a long-lived process that
    /// serves many requests at once (`waterfall serve`): reads run in parallel on up to
    /// `readers` connections of a WAL-mode pool, each on a snapshot, while one write at a time
    /// goes through the pool's writer.
    /// - Throws: ``StoreError`` of kind `cannotCreate` or `cannotOpen`.
    public static func openForServing(atPath path: String, readers: Int = 8) throws(StoreError) -> SQLiteCatalog {
        // The checks, the migrations and the switch to WAL, exactly as a command opens the file.
        let checked = try open(atPath: path)
        var configuration = checked.writer.configuration
        configuration.maximumReaderCount = max(1, readers)
        // Pages are read into a small cache, without a memory map: a mapped file's pages count
        // in the server's resident memory as it reads them (a first load of a feed's geometry
        // reads them all), and the bound should be the server's.
        configuration.prepareDatabase { db in
            try RawStatement.execute(
                db, "PRAGMA cache_size = -\(SQLiteCatalog.servingPageCacheKiB); PRAGMA mmap_size = 0")
        }
        do {
            // A pool needs WAL: a file this process just created is still in rollback mode.
            if checked.switchesToWALAfterWrite {
                try checked.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            }
            let pool = try DatabasePool(path: path, configuration: configuration)
            return SQLiteCatalog(writer: pool, path: path, switchesToWALAfterWrite: false)
        } catch let error as DatabaseError {
            throw StoreError(
                .cannotOpen, "\(path): cannot be opened for serving: \(error.message ?? "\(error.resultCode)").")
        } catch {
            throw StoreError(.cannotOpen, "\(path): cannot be opened for serving: \(error).")
        }
    }

    /// Opens a fresh, migrated database in memory (for tests and dry runs).
    public static func inMemory() throws(StoreError) -> SQLiteCatalog {
        do {
            let queue = try DatabaseQueue()
            _ = try migrate(queue, path: ":memory:")
            return SQLiteCatalog(writer: queue, path: nil, switchesToWALAfterWrite: false)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.cannotCreate, "cannot create an in-memory database: \(error).")
        }
    }

    /// The numbered files of `Migrations/sqlite/`, compiled in by the EmbedMigrations plugin: each
    /// identifier (the file name without `.sql`, as databases record it) and its SQL.
    static let migrations = EmbeddedSQLiteMigrations.all.map { (identifier: String($0.name.dropLast(4)), sql: $0.text) }

    /// The migrator of ``migrations``.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for migration in migrations {
            migrator.registerMigration(migration.identifier) { db in
                try db.execute(sql: migration.sql)
            }
        }
        return migrator
    }

    /// Migrates the database if it lacks migrations, and returns its journal mode.
    private static func migrate(_ writer: any DatabaseWriter, path: String) throws -> String {
        // One read decides (the migrations the file records, as GRDB's migrator records them,
        // and the journal mode); only a database with pending migrations takes the write lock,
        // so that read commands never queue behind a writer just to open the file.
        let (applied, journalMode) = try readTransactionHere(writer) { db in
            let hasTable =
                try RawStatement(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
                .first { _ in true } ?? false
            let applied =
                hasTable
                ? try RawStatement(db, "SELECT identifier FROM grdb_migrations").all { $0.string(0) ?? "" } : []
            return (Set(applied), try RawStatement(db, "PRAGMA journal_mode").first { $0.string(0) ?? "" } ?? "")
        }
        let known = Set(migrations.map(\.identifier))
        if !applied.isSubset(of: known) {
            throw StoreError(
                .cannotOpen,
                "\(path) was written by a newer version of Waterfall (its schema has migrations this version does not know); upgrade waterfall to open it."
            )
        }
        if !known.isSubset(of: applied) { try migrateRacing(writer) }
        return journalMode
    }

    /// Runs the pending migrations, beside other processes that may be migrating the same new
    /// file at the same moment (an import and a server started together). GRDB's migrator
    /// decides which migrations to run before it takes the write lock, so the second of two
    /// openers would run the first's again and fail ("duplicate column"). Each migration is
    /// its own transaction, and one that fails is rolled back: the migrator runs again, with
    /// what the file records by then, until every migration is recorded (whoever ran it), up
    /// to five times; then the last failure stands (a full disk, a foreign file).
    private static func migrateRacing(_ writer: any DatabaseWriter) throws {
        var tries = 0
        while true {
            do {
                return try migrator.migrate(writer)
            } catch {
                tries += 1
                let pending = try readTransactionHere(writer) { db in try migrator.hasCompletedMigrations(db) } == false
                if !pending { return }
                if tries >= 5 { throw error }
            }
        }
    }

    /// Runs `body` in one read transaction: a consistent snapshot, never blocking the writer.
    /// - Throws: what `body` throws; SQLite failures as ``StoreError``.
    public func read<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T {
        try await translatingErrors {
            try await Self.readTransaction(writer) { db in try body(SQLiteTransaction(db: db)) }
        }
    }

    public func images(feedID: Int64, fromKey key: Int64, limit: Int, atRevision revision: Int64) async throws
        -> [ImageRecord]
    {
        try await translatingErrors {
            try await Self.readTransaction(writer) { db in
                try SQLiteTransaction(db: db).images(feedID: feedID, fromKey: key, limit: limit, atRevision: revision)
            }
        }
    }

    /// Runs `body` in one read transaction through GRDB's asynchronous read, on the
    /// connection's own thread: every part of it runs there (``TransactionPump``), and each
    /// statement answers at once.
    public func readAwaitingStatements<T: Sendable>(
        _ body: @escaping @Sendable (any CatalogPageReads) async throws -> T
    ) async throws -> T {
        try await translatingErrors {
            try await writer.read { db in
                // Used by the pump's parts alone, all of them on this thread, in this transaction.
                let reads = SQLitePageReads(tx: SQLiteTransaction(db: db))
                return try TransactionPump.run { try await body(reads) }
            }
        }
    }

    /// One read transaction on `writer`. A server's pool reads through GRDB's async access, on
    /// one of its reader connections, while the caller waits without a thread. The single
    /// connection of a command is read on the caller's own thread (the command's lane, see
    /// ``SQLiteCatalog``), with a plain `BEGIN` and `COMMIT` through `sqlite3_exec`, read-only by
    /// `PRAGMA query_only` as GRDB's read is, but without the first use of GRDB's SQL builder (a
    /// fifth of a millisecond of every `waterfall page`).
    static func readTransaction<T: Sendable>(
        _ writer: any DatabaseWriter, _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        guard writer is DatabaseQueue else { return try await writer.read(body) }
        // A command's one connection: the command's lane (see ``SQLiteCatalog``).
        return try readTransactionHere(writer, body)
    }

    /// ``readTransaction(_:_:)`` on the caller's thread: a command's one connection, and a file
    /// being opened (before anyone waits); a pool through GRDB's synchronous read.
    static func readTransactionHere<T>(_ writer: any DatabaseWriter, _ body: (Database) throws -> T) throws -> T {
        guard let queue = writer as? DatabaseQueue else { return try writer.read(body) }
        return try queue.writeWithoutTransaction { db in try readOnly(db, body) }
    }

    /// Runs `body` on a command's one connection, on the caller's thread (GRDB's synchronous
    /// access, which an `async` caller would not pick by itself).
    private static func onCallersThread<T>(_ queue: DatabaseQueue, _ body: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction(body)
    }

    /// `body` in a read-only transaction of `db`, as GRDB's read is: a write inside fails
    /// instead of committing.
    private static func readOnly<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try RawStatement.execute(db, "PRAGMA query_only = 1")
        defer { try? RawStatement.execute(db, "PRAGMA query_only = 0") }
        return try transaction(db, "BEGIN DEFERRED TRANSACTION", .commit) { try body(db) }
    }

    /// Runs `body` between `begin` and `COMMIT` (or `ROLLBACK`, as `completion` says), all
    /// through `sqlite3_exec`. When anything fails the transaction is rolled back: the
    /// connection is never left inside one.
    private static func transaction<T>(
        _ db: Database, _ begin: String, _ completion: Database.TransactionCompletion, _ body: () throws -> T
    ) throws -> T {
        try RawStatement.execute(db, begin)
        do {
            let result = try body()
            try RawStatement.execute(db, completion == .commit ? "COMMIT" : "ROLLBACK")
            return result
        } catch {
            if sqlite3_get_autocommit(db.sqliteConnection) == 0 { try? RawStatement.execute(db, "ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in one write transaction: all of it is committed, or none of it. SQLite has
    /// one writer at a time, so `scope` changes nothing here.
    /// - Throws: what `body` throws (after rolling back); SQLite failures as ``StoreError``.
    public func write<T: Sendable>(
        _ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        try await writeTransaction(.commit, body)
    }

    /// Runs `body` in one write transaction if the write lock can be had within `timeout`
    /// seconds, else does nothing and returns `nil`. For best-effort writes (the layout cache),
    /// which must not make a query wait for another process's long write.
    public func writeIfAvailable<T: Sendable>(
        _ scope: WriteScope, within timeout: TimeInterval,
        _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T? {
        do {
            return try await writeTransaction(.commit, busyTimeout: timeout, body)
        } catch let error as StoreError where error.kind == .busy {
            return nil
        }
    }

    /// Runs `body` in a write transaction that is always rolled back: what a write would do.
    public func dryRun<T: Sendable>(
        _ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        try await writeTransaction(.rollback, body)
    }

    /// One `BEGIN IMMEDIATE` transaction ending with `completion`; with `busyTimeout`, the lock
    /// wait of this transaction only.
    private func writeTransaction<T: Sendable>(
        _ completion: Database.TransactionCompletion, busyTimeout timeout: TimeInterval? = nil,
        _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        // A command's one connection runs on the caller's thread (see ``SQLiteCatalog``), a
        // server's pool on GRDB's writer queue.
        let write = { @Sendable [switchesToWALAfterWrite] (db: Database) throws -> T in
            if let timeout {
                try RawStatement.execute(db, "PRAGMA busy_timeout = \(Int(timeout * 1000))")
            }
            defer {
                if timeout != nil {
                    try? RawStatement.execute(db, "PRAGMA busy_timeout = \(Int(Self.busyTimeout * 1000))")
                }
            }
            // BEGIN and COMMIT without GRDB's SQL builder, as reads do (see readTransaction).
            let result = try Self.transaction(db, "BEGIN IMMEDIATE TRANSACTION", completion) {
                try body(SQLiteTransaction(db: db))
            }
            if completion == .commit && switchesToWALAfterWrite {
                // Best effort: another process holding the file keeps it in rollback mode
                // until the next open, which switches it.
                try? RawStatement.execute(db, "PRAGMA journal_mode = WAL")
            }
            return result
        }
        return try await translatingErrors {
            if let queue = writer as? DatabaseQueue { return try Self.onCallersThread(queue, write) }
            return try await writer.writeWithoutTransaction(write)
        }
    }

    /// The size of the database file and its WAL, in bytes (0 in memory).
    public func storageSize() async -> Int64 {
        guard let path else { return 0 }
        return [path, path + "-wal"].reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
            return total + (size ?? 0)
        }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            throw StoreError(databaseError: error, path: path)
        }
    }
}

extension StoreError {
    /// Turns an SQLite failure into one sentence and a kind a front end can map to an exit status.
    init(databaseError error: DatabaseError, path: String?) {
        let file = path ?? "the database"
        switch error.resultCode {
        case .SQLITE_FULL:
            self.init(.diskFull, "\(file): the disk is full; nothing was written.")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            self.init(
                .busy,
                "\(file): another process kept the database locked for more than \(Int(SQLiteCatalog.busyTimeout)) seconds; nothing was written."
            )
        case .SQLITE_READONLY:
            self.init(.cannotWrite, "\(file): the database is read-only; nothing was written.")
        case .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_PERM:
            self.init(
                .cannotWrite,
                "\(file): input/output error (\(error.message ?? "\(error.resultCode)")); nothing was written.")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            self.init(.cannotOpen, "\(file): the database is damaged or not a database (\(error.message ?? "")).")
        case .SQLITE_CONSTRAINT:
            self.init(
                .invalidRequest,
                "\(file): the change breaks a rule of the catalog (\(error.message ?? "constraint failed")); nothing was written."
            )
        default:
            self.init(
                .cannotWrite,
                "\(file): SQLite error \(error.resultCode.rawValue) (\(error.message ?? "")); nothing was written.")
        }
    }
}
