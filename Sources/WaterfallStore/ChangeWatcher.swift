import GRDB

/// Tells, cheaply, whether anything committed to the database since it last looked: by this
/// process's own connections or by any other process (a `waterfall move` beside a server).
///
/// It keeps one read-only connection of its own and asks SQLite's `PRAGMA data_version`, which
/// changes whenever another connection commits. In WAL mode that is a look at the shared WAL
/// index, a few microseconds, and it never waits for a writer. A long-lived front end uses it
/// to keep answers it computed while the version stays the same.
public final class ChangeWatcher: Sendable {
    private let connection: DatabaseQueue

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        // Reading the WAL index waits only while SQLite rebuilds it (after a crash): a caller on
        // a thread that must not block gives up quickly instead.
        configuration.busyMode = .timeout(0.05)
        configuration.label = "waterfall.watcher"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A number that differs from every earlier answer once any connection other than this
    /// watcher's committed a change (SQLite's data version of this connection).
    /// - Throws: ``StoreError`` when the database cannot be read, or its WAL index stays busy
    ///   for 50 ms.
    public func version() throws -> Int64 {
        do {
            return try connection.inDatabase { db in
                try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
            }
        } catch let error as DatabaseError {
            throw StoreError(databaseError: error, path: connection.path)
        }
    }
}

extension CatalogDatabase {
    /// A watcher of this database file's commits (see ``ChangeWatcher``).
    /// - Throws: ``StoreError`` `cannotOpen` for an in-memory database or an unreadable file.
    public func makeChangeWatcher() throws(StoreError) -> ChangeWatcher {
        guard let path else {
            throw StoreError(.cannotOpen, "an in-memory database has no file to watch.")
        }
        do {
            return try ChangeWatcher(path: path)
        } catch let error as DatabaseError {
            throw StoreError(databaseError: error, path: path)
        } catch {
            throw StoreError(.cannotOpen, "\(path): cannot be watched: \(error).")
        }
    }
}
