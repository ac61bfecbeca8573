import Foundation

/// A Waterfall catalog in one storage engine: SQLite (``SQLiteCatalog``, the embedded default)
/// or PostgreSQL (``PostgresCatalog``, for several servers over one database).
///
/// The service sees only this interface and ``CatalogTransaction``: every domain read runs in
/// ``read(_:)`` and every domain write in ``write(_:)``, one transaction each, so that `kill -9`
/// at any moment leaves the catalog at the state before or after it. Writes are serialised by
/// the engine (SQLite's write lock; a PostgreSQL advisory lock), reads see one consistent
/// snapshot and never block a writer. The invariants of a write (revision bump, change log,
/// cache invalidation in the same transaction) are the service's, written once above the
/// engines.
public protocol CatalogStore: Sendable {
    /// Where the catalog lives, as the user named it (a file path, or a `postgres://` URL
    /// without its password), for messages and `stats`; `nil` for an in-memory database.
    var location: String? { get }

    /// Runs `body` in one read transaction: a consistent snapshot, never blocking the writer.
    /// - Throws: what `body` throws; engine failures as ``StoreError``.
    func read<T>(_ body: (any CatalogTransaction) throws -> T) throws -> T

    /// Runs `body` in one write transaction: all of it is committed, or none of it.
    /// - Throws: what `body` throws (after rolling back); engine failures as ``StoreError``.
    func write<T>(_ body: (any CatalogTransaction) throws -> T) throws -> T

    /// Runs `body` in one write transaction if the write lock can be had within `timeout`
    /// seconds, else does nothing and returns `nil`. For best-effort writes (the layout cache),
    /// which must not make a query wait for another process's long write.
    func writeIfAvailable<T>(within timeout: TimeInterval, _ body: (any CatalogTransaction) throws -> T) throws -> T?

    /// Runs `body` in a write transaction that is always rolled back: what a write would do.
    func dryRun<T>(_ body: (any CatalogTransaction) throws -> T) throws -> T

    /// The space the catalog takes, in bytes (0 in memory).
    func storageSize() -> Int64

    /// A watcher of the catalog's commits, by this process or any other.
    /// - Throws: ``StoreError`` `cannotOpen` when the catalog cannot be watched (in memory).
    func makeChangeWatcher() throws(StoreError) -> any ChangeWatcher

    /// Closes the engine's connections now; nothing may be read or written afterwards.
    func close()
}

/// Tells, cheaply, whether anything was committed to a catalog since it last looked, by this
/// process or any other (a `waterfall move` beside a server, a second server on PostgreSQL).
public protocol ChangeWatcher: AnyObject, Sendable {
    /// A number that changes whenever anything is committed; equal numbers mean nothing was
    /// committed in between (as far as the watcher has heard: see ``seesCommitsAtOnce``).
    /// - Throws: ``StoreError`` when the catalog cannot be asked. A watcher that cannot hear
    ///   commits now answers a new number at every call, so that nothing is kept on its word.
    func version() throws -> Int64

    /// Whether ``version()`` has changed by the time any commit returns to its writer, in this
    /// process or another (SQLite's WAL index), or only a moment later (PostgreSQL's
    /// notifications): only then may a server keep answers until the version changes.
    var seesCommitsAtOnce: Bool { get }
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
