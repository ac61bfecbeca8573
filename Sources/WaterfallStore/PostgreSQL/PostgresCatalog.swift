import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// ``CatalogStore`` on PostgreSQL: the catalog of several `waterfall serve` instances (and
/// commands) sharing one database server, migrated by `Migrations/postgres/`.
///
/// - Reads run at `REPEATABLE READ`, read only: one snapshot per transaction, as SQLite's.
/// - Writes are serialised by the database, per ``WriteScope``: a write to a feed first takes
///   that feed's transaction-level advisory lock (and the catalog's, shared), so writers to one
///   feed, from any instance, run one at a time and each sees every commit before it
///   (`READ COMMITTED` after the lock), while writers to other feeds go on. A write of the
///   whole catalog takes the catalog's lock alone, waiting for every other. Readers never wait
///   for a lock.
/// - Every write transaction notifies channel `waterfall_commit` (delivered at its commit), so
///   that the event streams of every instance see it (``PostgresChangeWatcher``).
/// - A connection that breaks mid-transaction rolls the transaction back (the server's rule);
///   `kill -9` of a writer leaves the state before or after each transaction.
public struct PostgresCatalog: CatalogStore {
    /// The first half of the advisory locks writes hold: 'WTFL' (0x5754464C, as SQLite's
    /// `application_id`). The second is the hash of the catalog's schema (so that catalogs in
    /// different schemas of one database do not wait for each other), followed for a scoped
    /// write by its scope (``lockName(_:)``).
    static let writeLock: Int32 = 0x5754_464C
    /// The advisory lock the migrations hold, so that instances starting together migrate once.
    static let migrationLock: Int64 = 0x5754_464D
    /// How many seconds a write waits for the write lock before failing as busy.
    static let lockTimeout = SQLiteCatalog.busyTimeout

    let pool: PostgresPool
    public var location: String? { pool.settings.displayName }
    public var readsAreRemote: Bool { true }

    /// Connects to the database at `url` (see ``PostgresSettings``) with `connections`
    /// connections (1 for a command; a server runs reads in parallel on more), creating the
    /// schema in an empty database and migrating an older one (on a connection of its own,
    /// which tells at once when no server answers).
    ///
    /// A database that holds tables but no Waterfall schema is refused untouched, and so is one
    /// migrated by a newer Waterfall.
    /// - Throws: ``StoreError`` `cannotOpen`.
    public static func open(url: String, connections: Int = 1) throws(StoreError) -> PostgresCatalog {
        try open(settings: try PostgresSettings(url: url), connections: connections)
    }

    /// ``open(url:connections:)`` with settings of the caller's (tests shorten the deadlines).
    static func open(settings: PostgresSettings, connections: Int) throws(StoreError) -> PostgresCatalog {
        let first = try PostgresSession.connect(settings)
        do {
            try migrate(first)
        } catch {
            first.close()
            throw error
        }
        // A command keeps the connection; a server's pool opens its own.
        if connections <= 1 { return PostgresCatalog(pool: PostgresPool(settings: settings, own: first)) }
        first.close()
        return PostgresCatalog(pool: PostgresPool(settings: settings, connections: connections))
    }

    /// The numbered files of `Migrations/postgres/`, compiled in by the EmbedMigrations plugin.
    static let migrations = EmbeddedPostgresMigrations.all.map {
        (identifier: String($0.name.dropLast(4)), sql: $0.text)
    }

    /// Creates or migrates the schema, under ``migrationLock``; refuses a foreign or newer one.
    private static func migrate(_ session: PostgresSession) throws(StoreError) {
        let name = session.settings.displayName
        do {
            try session.execute("BEGIN")
            // Another instance may be migrating, and a migration may build indexes over millions
            // of rows: bulk work (``StatementLength``).
            try session.execute("SELECT pg_advisory_xact_lock($1)", .int(migrationLock), length: .bulk)
            let hasTable =
                try session.scalar(Bool.self, "SELECT to_regclass('waterfall_migrations') IS NOT NULL") ?? false
            if !hasTable {
                let tables =
                    try session.scalar(
                        Int64.self,
                        """
                        SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()
                        """) ?? 0
                if tables > 0 {
                    throw StoreError(
                        .cannotOpen,
                        "\(name) is not a Waterfall database (its schema holds \(tables) tables of something else); nothing was changed. Give --db an empty database."
                    )
                }
                try session.execute("CREATE TABLE waterfall_migrations (identifier TEXT PRIMARY KEY)")
            }
            let applied = Set(
                try session.rows("SELECT identifier FROM waterfall_migrations").map { try $0.decode(String.self) })
            let known = Set(migrations.map(\.identifier))
            if !applied.isSubset(of: known) {
                throw StoreError(
                    .cannotOpen,
                    "\(name) was written by a newer version of Waterfall (its schema has migrations this version does not know); upgrade waterfall to open it."
                )
            }
            for migration in migrations where !applied.contains(migration.identifier) {
                for statement in statements(of: migration.sql) { try session.execute(statement, length: .bulk) }
                try session.execute(
                    "INSERT INTO waterfall_migrations (identifier) VALUES ($1)", .text(migration.identifier))
            }
            try session.execute("COMMIT")
        } catch let error as StoreError {
            _ = try? session.execute("ROLLBACK")
            throw error
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw StoreError(
                .cannotOpen, "\(name): cannot be opened as a Waterfall database: \(PostgresSession.reason(error)).")
        }
    }

    /// The statements of a migration file: its text without `--` comments, split at the
    /// semicolons that end a line (the files hold no functions or quoted semicolons).
    static func statements(of sql: String) -> [String] {
        let lines = sql.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard let comment = line.range(of: "--") else { return line }
            return line[..<comment.lowerBound]
        }
        var statements: [String] = []
        var current = ""
        for line in lines {
            current += line + "\n"
            if line.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                let statement = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if statement != ";" { statements.append(String(statement.dropLast())) }
                current = ""
            }
        }
        let rest = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !rest.isEmpty { statements.append(rest) }
        return statements
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T {
        try await pool.withSession { [location = pool.settings.displayName] session in
            try transaction(session, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", commits: true) {
                try body(PostgresTransaction(session: session, location: location))
            }
        }
    }

    /// The read transaction of ``read(_:)``, every statement awaited: on a server's pool on the
    /// caller's task, holding no thread; on a command's connection on a thread of
    /// ``BlockingThreads``, where ``TransactionPump`` runs every part of `body`
    /// (``PostgresPool/withSessionAwaitingStatements(_:)``).
    public func readAwaitingStatements<T: Sendable>(
        _ body: @escaping @Sendable (any CatalogPageReads) async throws -> T
    ) async throws -> T {
        let transaction = {
            @Sendable [location = pool.settings.displayName] (session: PostgresSession) async throws -> T in
            // The connection answers in turn: the body's first statement is sent behind BEGIN at
            // once, and BEGIN's answer is looked at once the body has its own.
            let begun = session.send("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            do {
                let result = try await body(PostgresPageReads(session: session))
                _ = try await begun.get()
                // Awaited, though a read-only snapshot's COMMIT changes nothing: one whose answer
                // never came would fail the connection's next transaction, under another's name.
                try await session.executeAwaitingAnswer("COMMIT")
                return result
            } catch {
                // BEGIN's failure (a connection fallen silent, cut at its deadline) is the cause
                // of what followed it, and the one said.
                var failure = error
                do { _ = try await begun.get() } catch { failure = error }
                _ = try? await session.executeAwaitingAnswer("ROLLBACK")
                throw Self.storeError(failure, location: location)
            }
        }
        return try await pool.withSessionAwaitingStatements(transaction)
    }

    /// One statement, outside any transaction: no `BEGIN` and `COMMIT` round trips.
    public func images(feedID: Int64, fromKey key: Int64, limit: Int, atRevision revision: Int64) async throws
        -> [ImageRecord]
    {
        try await pool.withSessionAwaitingStatements { [location = pool.settings.displayName] session in
            do {
                return try await PostgresPageReads(session: session).images(
                    feedID: feedID, fromKey: key, limit: limit, atRevision: revision)
            } catch {
                throw Self.storeError(error, location: location)
            }
        }
    }

    public func write<T: Sendable>(
        _ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        let tag = CommitTag.current
        return try await pool.withSession(writer: true) { session in
            try writeTransaction(session, scope, lockTimeout: Self.lockTimeout, commits: true, tag: tag, body)
        }
    }

    /// Takes the scope's write lock only if it is free at once, whatever `timeout` says.
    /// PostgreSQL queues lock requests in order, so best-effort writes that waited (the layout
    /// cache saves of every reader that re-laid a feed out after a move) would each go before a
    /// write that came after them, and a move would wait for dozens of them.
    public func writeIfAvailable<T: Sendable>(
        _ scope: WriteScope, within timeout: TimeInterval,
        _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T? {
        try await pool.withSession { session in
            try transaction(session, begin: "BEGIN ISOLATION LEVEL READ COMMITTED", commits: true) { () throws -> T? in
                guard try Self.lock(scope, waits: false, session) else { return nil }
                return try writing(session, notifies: false, tag: nil, body)
            }
        }
    }

    public func dryRun<T: Sendable>(
        _ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T {
        try await pool.withSession(writer: true) { session in
            try writeTransaction(session, scope, lockTimeout: Self.lockTimeout, commits: false, tag: nil, body)
        }
    }

    /// The text hashed, after the schema's name, into the second half of `scope`'s lock (empty
    /// for the whole catalog).
    static func lockName(_ scope: WriteScope) -> String {
        switch scope {
        case .catalog: ""
        case .feed(let name): "/feed/" + name
        case .apiKeys: "/api-keys"
        }
    }

    /// Takes `scope`'s locks, waiting for them or only trying (then answering whether both
    /// were had). A scoped write holds the catalog's lock shared and its scope's exclusively; a
    /// write of the whole catalog holds the catalog's exclusively. Two names whose hashes
    /// collide only make their writers wait for each other.
    private static func lock(_ scope: WriteScope, waits: Bool, _ session: PostgresSession) throws -> Bool {
        let rows: [PostgresRow]
        switch (scope, waits) {
        case (.catalog, true): rows = try session.rows(PostgresStatement.LockCatalog.self, .int32(writeLock))
        case (.catalog, false): rows = try session.rows(PostgresStatement.TryLockCatalog.self, .int32(writeLock))
        case (_, true):
            rows = try session.rows(PostgresStatement.LockScope.self, .int32(writeLock), .text(lockName(scope)))
        case (_, false):
            rows = try session.rows(PostgresStatement.TryLockScope.self, .int32(writeLock), .text(lockName(scope)))
        }
        guard !waits else { return true }
        let (catalog, own) = try rows[0].decode((Bool, Bool).self)
        return catalog && own
    }

    /// One write transaction on the writer's `session`: `scope`'s write lock (waiting at most
    /// `lockTimeout` seconds), `body` and its notification, then `COMMIT` (or `ROLLBACK` unless
    /// `commits`).
    private func writeTransaction<T>(
        _ session: PostgresSession, _ scope: WriteScope, lockTimeout: TimeInterval, commits: Bool, tag: String?,
        _ body: (any CatalogTransaction) throws -> T
    ) throws -> T {
        try transaction(session, begin: "BEGIN ISOLATION LEVEL READ COMMITTED", commits: commits) {
            try session.execute(
                "SELECT set_config('lock_timeout', $1, true)", .text("\(max(1, Int(lockTimeout * 1000)))ms"))
            _ = try Self.lock(scope, waits: true, session)
            try session.execute("SELECT set_config('lock_timeout', '0', true)")
            return try writing(session, notifies: true, tag: tag, body)
        }
    }

    /// `body` inside a write transaction that holds the write lock, then the notification
    /// other instances hear when it commits.
    /// Runs `body` in the write transaction of `session`, and notifies every instance's
    /// watcher of the commit when `notifies`: not for a best-effort write (a layout cache saved,
    /// a key's last use), which changes no answer, and would retire every instance's kept
    /// answers for nothing (DESIGN section 15). A write with a ``CommitTag``, `tag`, announces
    /// it first (``PostgresChangeWatcher/notifyTag``).
    private func writing<T>(
        _ session: PostgresSession, notifies: Bool, tag: String?, _ body: (any CatalogTransaction) throws -> T
    ) throws -> T {
        let result = try body(PostgresTransaction(session: session, location: pool.settings.displayName))
        if notifies {
            if let tag { try session.execute(PostgresChangeWatcher.notifyTag, .text(tag)) }
            try session.execute(PostgresChangeWatcher.notify)
        }
        return result
    }

    /// Runs `body` between `begin` and `COMMIT` (or `ROLLBACK`); rolls back whenever anything
    /// fails, and turns server failures into ``StoreError``s.
    private func transaction<T>(_ session: PostgresSession, begin: String, commits: Bool, _ body: () throws -> T) throws
        -> T
    {
        do {
            try session.execute(begin)
            let result = try body()
            try session.execute(commits ? "COMMIT" : "ROLLBACK")
            return result
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw Self.storeError(error, location: pool.settings.displayName)
        }
    }

    /// A server's failure as a ``StoreError``; any other error as it is.
    private static func storeError(_ error: any Error, location: String) -> any Error {
        error is PSQLError || error is PostgresDecodingError
            ? StoreError(postgresError: error, location: location) : error
    }

    /// The schema the catalog's tables live in: the connection's `current_schema()`, `public`
    /// unless the URL's `options` set a `search_path`. What `pg_dump --schema` copies.
    /// - Throws: ``StoreError`` when the server cannot be asked.
    public func schemaName() async throws -> String {
        do {
            return try await pool.withSession { session in
                try session.scalar(String.self, "SELECT current_schema()")
            } ?? "public"
        } catch {
            throw Self.storeError(error, location: pool.settings.displayName)
        }
    }

    /// The size of the database on the server, in bytes.
    public func storageSize() async -> Int64 {
        (try? await pool.withSession { session in
            try session.scalar(Int64.self, "SELECT pg_database_size(current_database())")
        }) ?? 0
    }

    public func makeChangeWatcher(ignoringCommitsTagged tag: String?) async throws(StoreError) -> any ChangeWatcher {
        // The watcher is often the first to hear of a server gone: once a try of a new
        // connection confirms it, the pool stops waiting on PostgresNIO's back-off
        // (``PostgresPool/checkAfterWatcherLoss()``).
        try await PostgresChangeWatcher.start(settings: pool.settings, ignoring: tag) { [weak pool] _ in
            pool?.checkAfterWatcherLoss()
        }
    }

    public func close() async {
        await pool.close()
    }
}
