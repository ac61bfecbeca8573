import Foundation

/// A Waterfall catalog in one storage engine: SQLite (``SQLiteCatalog``, the embedded default)
/// or PostgreSQL (``PostgresCatalog``, for several servers over one database).
///
/// The service sees only this interface, ``CatalogTransaction`` and ``CatalogPageReads``: every
/// domain read runs in ``read(_:)`` (or, for an answer from a kept feed,
/// ``readAwaitingStatements(_:)``) and every domain write in ``write(_:_:)``, one transaction
/// each, so that `kill -9` at any moment leaves the catalog at the state before or after it.
/// Writes are serialised by the engine (SQLite's write lock; a PostgreSQL advisory lock), reads
/// see one consistent snapshot and never block a writer. The invariants of a write (revision
/// bump, change log, cache invalidation in the same transaction) are the service's, written
/// once above the engines.
///
/// The door is asynchronous, as GRDB's is: a caller awaits its transaction and never holds a
/// thread meanwhile. The transaction's body is synchronous, and runs on a thread of the
/// engine's own: GRDB's connection queues for SQLite; for PostgreSQL, threads of the catalog
/// (``PostgresCatalog``), which wait for each statement's answer up to its deadline. A body is
/// `@escaping @Sendable`: it is handed to that thread, and runs there while its caller waits.
public protocol CatalogStore: Sendable {
    /// Where the catalog lives, as the user named it (a file path, or a `postgres://` URL
    /// without its password), for messages and `stats`; `nil` for an in-memory database.
    var location: String? { get }

    /// Whether each transaction is a trip to a server (PostgreSQL: a pooled connection and a
    /// round trip per statement) rather than a read of a local file (SQLite: pages most likely
    /// in memory). Callers that all want the same small read then share one (a server's
    /// keys, once per version); on a local file each reads it, which is cheaper than making
    /// them wait for each other.
    var readsAreRemote: Bool { get }

    /// Runs `body` in one read transaction: a consistent snapshot, never blocking the writer.
    /// - Throws: what `body` throws; engine failures as ``StoreError``; `CancellationError`
    ///   when the caller's task is cancelled before the transaction begins.
    func read<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T

    /// Runs `body` in one read transaction as ``read(_:)`` does, each of its statements awaited
    /// (``CatalogPageReads``): the reads of an answer from a kept feed, which are a few short
    /// statements. PostgreSQL awaits each on the caller's task, holding no thread; SQLite runs
    /// every part of `body` on the reader connection's thread, where each answers at once.
    /// - Throws: what `body` throws; engine failures as ``StoreError``.
    func readAwaitingStatements<T: Sendable>(_ body: @escaping @Sendable (any CatalogPageReads) async throws -> T)
        async throws -> T

    /// Up to `limit` images of feed `feedID` from order key `key` on, in catalog order, only
    /// while the feed is at `revision`: none when it is not. One statement outside any
    /// transaction, which is one snapshot on both engines: the rows of a page whose feed a
    /// caller knows from before (a server's records kept for the catalog's version), without
    /// reading the feed again, or the `BEGIN` and `COMMIT` round trips of PostgreSQL.
    /// - Throws: engine failures as ``StoreError``.
    func images(feedID: Int64, fromKey key: Int64, limit: Int, atRevision revision: Int64) async throws
        -> [ImageRecord]

    /// Runs `body` in one write transaction that changes only what `scope` names: all of it is
    /// committed, or none of it.
    /// - Throws: what `body` throws (after rolling back); engine failures as ``StoreError``.
    func write<T: Sendable>(_ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T)
        async throws -> T

    /// Runs `body` in one write transaction if the write lock of `scope` can be had within
    /// `timeout` seconds, else does nothing and returns `nil`. For best-effort writes (the
    /// layout cache, a key's last use), which must not make a query wait for another process's
    /// long write, and which change no answer: other instances are not told of them.
    func writeIfAvailable<T: Sendable>(
        _ scope: WriteScope, within timeout: TimeInterval,
        _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T?

    /// Runs `body` in a write transaction that is always rolled back: what a write would do.
    func dryRun<T: Sendable>(_ scope: WriteScope, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T)
        async throws -> T

    /// The space the catalog takes, in bytes (0 in memory, or when the server cannot say).
    func storageSize() async -> Int64

    /// A watcher of the catalog's commits, by this process or any other; one is enough for a
    /// whole server, since ``ChangeWatcher/version()`` may be asked from any thread. Where the
    /// engine hears commits by notification, it does not count those of writes made under
    /// ``CommitTag`` `tag` (their writer counts them itself); elsewhere it sees every commit.
    /// - Throws: ``StoreError`` `cannotOpen` when the catalog cannot be watched (in memory).
    func makeChangeWatcher(ignoringCommitsTagged tag: String?) async throws(StoreError) -> any ChangeWatcher

    /// Closes the engine's connections, waiting for them to say goodbye; nothing may be read
    /// or written afterwards.
    func close() async
}

extension CatalogStore {
    /// A write that may change anything (``WriteScope/catalog``).
    public func write<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T {
        try await write(.catalog, body)
    }

    /// A best-effort write that may change anything (``WriteScope/catalog``).
    public func writeIfAvailable<T: Sendable>(
        within timeout: TimeInterval, _ body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T? {
        try await writeIfAvailable(.catalog, within: timeout, body)
    }

    /// A dry run of a write that may change anything (``WriteScope/catalog``).
    public func dryRun<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T
    {
        try await dryRun(.catalog, body)
    }
}

/// What a write transaction changes, so that an engine can let writes to different feeds run
/// at the same time (DESIGN section 12: writers to one feed are serialised by the database).
///
/// SQLite has one writer at a time whatever the scope. PostgreSQL holds a transaction-level
/// advisory lock per scope: a feed's writes wait for each other and for ``catalog`` writes,
/// never for another feed's; ``apiKeys`` writes wait only for each other and ``catalog``.
public enum WriteScope: Sendable, Hashable {
    /// Anything in the catalog: waits for every other write. For a write that cannot name its
    /// feed before it starts (a command that picks the catalog's only feed).
    case catalog
    /// One feed, by name: its row, sections, images, change log, named layouts and layout cache
    /// (also when the write creates or removes the feed).
    case feed(String)
    /// The API keys and their feed lists.
    case apiKeys

    /// A feed's scope, or ``catalog`` when the write does not know its feed yet.
    public static func feed(named name: String?) -> WriteScope {
        name.map(WriteScope.feed) ?? .catalog
    }
}

/// Tells, cheaply, whether anything was committed to a catalog since it last looked, by this
/// process or any other (a `waterfall move` beside a server, a second server on PostgreSQL).
public protocol ChangeWatcher: AnyObject, Sendable {
    /// A number that changes whenever anything is committed (but for the commits it was made
    /// to leave out: ``CatalogStore/makeChangeWatcher(ignoringCommitsTagged:)``); equal numbers
    /// mean nothing was committed in between (as far as the watcher has heard: see
    /// ``seesCommitsAtOnce``).
    /// - Throws: ``StoreError`` when the catalog cannot be asked. A watcher that cannot hear
    ///   commits now answers a new number at every call, so that nothing is kept on its word.
    func version() throws -> Int64

    /// Whether ``version()`` has changed by the time any commit returns to its writer, in this
    /// process or another (SQLite's WAL index), or only a moment later (PostgreSQL's
    /// notifications): only then may a server keep answers until the version changes.
    var seesCommitsAtOnce: Bool { get }
}

extension CatalogStore {
    /// A watcher of every commit of the catalog (``makeChangeWatcher(ignoringCommitsTagged:)``).
    public func makeChangeWatcher() async throws(StoreError) -> any ChangeWatcher {
        try await makeChangeWatcher(ignoringCommitsTagged: nil)
    }
}

/// The tag of the commits of the writes a task makes while it is set (a task-local value: the
/// writes of the task and of its child tasks). A server tags its own writes with a tag of its
/// own, counts them itself when each returns, and watches the catalog with a watcher that does
/// not count them (``CatalogStore/makeChangeWatcher(ignoringCommitsTagged:)``): so its readers
/// take the catalog for changed when the write returns, once the writer has brought what the
/// server keeps to the new revision, not when the commit's notification comes back a moment
/// earlier. A write of another process or server is never tagged so.
public enum CommitTag {
    @TaskLocal public static var current: String?

    /// A new tag, unlike any other process's: a random 64-bit number in hexadecimal.
    public static func make() -> String {
        String(UInt64.random(in: .min ... .max), radix: 16)
    }
}

/// Opens catalogs by the name a user gives: a `postgres://` or `postgresql://` URL is a
/// PostgreSQL database, anything else the path of an SQLite file.
public enum CatalogLocation {
    /// Whether `location` names a PostgreSQL database rather than an SQLite file.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// Opens (creating and migrating when new) the catalog at `location`, for one command.
    /// - Throws: ``StoreError`` of kind `cannotCreate` or `cannotOpen`.
    public static func open(_ location: String) throws(StoreError) -> any CatalogStore {
        if isPostgres(location) { return try PostgresCatalog.open(url: location) }
        return try SQLiteCatalog.open(atPath: location)
    }

    /// Opens the catalog at `location` for a long-lived server: reads in parallel on a pool of
    /// connections, one write at a time.
    /// - Throws: ``StoreError`` of kind `cannotCreate` or `cannotOpen`.
    public static func openForServing(_ location: String) throws(StoreError) -> any CatalogStore {
        if isPostgres(location) { return try PostgresCatalog.open(url: location, connections: 8) }
        return try SQLiteCatalog.openForServing(atPath: location)
    }
}
