import Foundation
import GRDB

/// Tells, cheaply, whether anything committed to the database since it last looked: by this
/// process's own connections or by any other process (a `waterfall move` beside a server).
///
/// In WAL mode every commit rewrites the WAL-index header at the start of the `-shm` file
/// (its change counter, frame count, checksums and salts: https://sqlite.org/walformat.html),
/// which SQLite keeps in two copies so that readers can tell a torn read. The watcher maps
/// that header read-only and hashes it: a look at shared memory, tens of nanoseconds, no lock
/// and no system call, so a server can afford it on every request. Its own read-only
/// connection keeps the `-shm` file alive (SQLite truncates it only when it opens a database
/// nobody else has open) and answers with `PRAGMA data_version` when the header cannot be
/// read consistently.
public final class ChangeWatcher: @unchecked Sendable {
    private let connection: DatabaseQueue
    /// The first bytes of the `-shm` file (the two header copies), mapped read-only; nil when
    /// the file could not be mapped (then every look goes through SQLite).
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
        // A first read opens (and, for a new file, builds) the WAL index.
        _ = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
        walIndex = Self.map(path + "-shm", bytes: 2 * Self.headerSize)
    }

    deinit {
        if let walIndex { munmap(UnsafeMutableRawPointer(mutating: walIndex), 2 * Self.headerSize) }
    }

    private static func map(_ path: String, bytes: Int) -> UnsafeRawPointer? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) >= bytes else { return nil }
        guard let address = mmap(nil, bytes, PROT_READ, MAP_SHARED, descriptor, 0), address != MAP_FAILED else { return nil }
        return UnsafeRawPointer(address)
    }

    /// A hash of the WAL-index header when both copies agree and it is initialised, else nil.
    private func headerVersion() -> Int64? {
        guard let walIndex else { return nil }
        for _ in 0..<4 {
            var first = [UInt8](repeating: 0, count: Self.headerSize)
            var second = [UInt8](repeating: 0, count: Self.headerSize)
            first.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(start: walIndex, count: Self.headerSize)) }
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
