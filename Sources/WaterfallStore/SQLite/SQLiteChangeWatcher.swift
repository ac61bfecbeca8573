import Foundation
import GRDB
import GRDBSQLite

/// Tells, cheaply, whether anything committed to the database since it last looked: by this
/// process's own connections or by any other process (a `waterfall move` beside a server).
///
/// In WAL mode every commit rewrites the WAL-index header at the start of the `-shm` file
/// (its change counter, frame count, checksums and salts: https://sqlite.org/walformat.html),
/// which SQLite keeps in two copies so that readers can tell a torn read. The watcher reads
/// that header and hashes it: a look at shared memory, tens of nanoseconds, no lock and no
/// system call, so a server can afford it on every request. The memory is SQLite's own
/// mapping of the `-shm` file, asked of its own read-only connection (`xShmMap` of region 0),
/// never a descriptor of the watcher's: closing any descriptor of a file drops every POSIX lock
/// the process holds on it, SQLite's included, and without its lock on `-shm` another process
/// opening the database believes it is alone, truncates the file and makes every mapping of
/// it in this process fault (SIGBUS). The connection keeps the mapping and the `-shm` file
/// alive, and answers with `PRAGMA data_version` when the header cannot be read consistently.
public final class SQLiteChangeWatcher: ChangeWatcher, @unchecked Sendable {
    private let connection: DatabaseQueue
    /// The start of the `-shm` file (the two header copies) as SQLite maps it for
    /// `connection`; nil when SQLite has no such mapping (then every look goes through SQLite).
    private let walIndex: UnsafeRawPointer?
    private static let headerSize = 48

    init(path: String) throws {
        var configuration = Configuration()
        configuration.readonly = true
        // Reading the WAL index waits only while SQLite rebuilds it (after a crash): a caller on
        // a thread that must not block gives up quickly instead.
        configuration.busyMode = .timeout(0.05)
        configuration.label = "waterfall.watcher"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        // A first read opens (and, for a new file, builds) the WAL index; then SQLite's mapping
        // of its first region is the connection's for as long as the connection is open.
        walIndex = try connection.inDatabase { db in
            _ = try Int64.fetchOne(db, sql: "PRAGMA data_version")
            return Self.walIndexRegion(db)
        }
    }

    /// SQLite's own mapping of the first 32 KiB region of the `-shm` file of `db`'s main
    /// database, or nil (not in WAL mode, a VFS without shared memory, not mapped yet).
    private static func walIndexRegion(_ db: Database) -> UnsafeRawPointer? {
        guard let handle = db.sqliteConnection else { return nil }
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
            let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        // Region 0, 32 KiB (the WAL-index page size), without extending the file.
        guard map(file, 0, 32_768, 0, &region) == SQLITE_OK, let region else { return nil }
        return UnsafeRawPointer(region)
    }

    /// A hash of the WAL-index header when both copies agree and it is initialised, else nil.
    private func headerVersion() -> Int64? {
        guard let walIndex else { return nil }
        for _ in 0..<4 {
            var first = [UInt8](repeating: 0, count: Self.headerSize)
            var second = [UInt8](repeating: 0, count: Self.headerSize)
            first.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: walIndex, count: Self.headerSize))
            }
            second.withUnsafeMutableBytes {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: walIndex + Self.headerSize, count: Self.headerSize))
            }
            // Byte 12 is `isInit`; a writer updates the copies one after the other.
            guard first == second, first[12] != 0 else { continue }
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in first { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return Int64(bitPattern: hash & 0x7FFF_FFFF_FFFF_FFFF)
        }
        return nil
    }

    /// A number that changes whenever any connection, of this process or another, commits;
    /// equal numbers mean nothing was committed in between (up to a 64-bit hash collision).
    /// - Throws: ``StoreError`` when the header cannot be read and the database cannot either,
    ///   or its WAL index stays busy for 50 ms.
    /// Every commit rewrites the WAL-index header before it returns.
    public var seesCommitsAtOnce: Bool { true }

    public func version() throws -> Int64 {
        if let version = headerVersion() { return version }
        do {
            return try connection.inDatabase { db in
                // Negative: never equal to a hash of the header, which is not negative.
                -1 - (try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0)
            }
        } catch let error as DatabaseError {
            throw StoreError(databaseError: error, path: connection.path)
        }
    }
}

extension SQLiteCatalog {
    /// A watcher of this database file's commits (see ``SQLiteChangeWatcher``): every commit
    /// rewrites the WAL index, whoever makes it, so a tag changes nothing.
    /// - Throws: ``StoreError`` `cannotOpen` for an in-memory database or an unreadable file.
    public func makeChangeWatcher(ignoringCommitsTagged tag: String?) async throws(StoreError) -> any ChangeWatcher {
        guard let path else {
            throw StoreError(.cannotOpen, "an in-memory database has no file to watch.")
        }
        do {
            return try SQLiteChangeWatcher(path: path)
        } catch let error as DatabaseError {
            throw StoreError(databaseError: error, path: path)
        } catch {
            throw StoreError(.cannotOpen, "\(path): cannot be watched: \(error).")
        }
    }
}
