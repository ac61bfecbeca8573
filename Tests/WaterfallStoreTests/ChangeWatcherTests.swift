import Foundation
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// The change watcher reads SQLite's WAL index without disturbing SQLite's locks on it.
@Suite(.onOwnThreads) struct ChangeWatcherTests {
    /// Whether another process can take the WAL index's "dead man switch" byte exclusively: what
    /// a process opening the database does to learn that it is the only one, before it truncates
    /// and rebuilds the `-shm` file (and makes every mapping of it elsewhere fault).
    private static func anotherProcessCanTakeTheWALIndex(_ path: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Byte 128 of the -shm file: SQLite's UNIX_SHM_DMS, held shared by every process that
        // has the database open.
        process.arguments = [
            "python3", "-c",
            """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 128)
            except OSError:
                sys.exit(3)
            """, path + "-shm",
        ]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require([0, 3].contains(process.terminationStatus), "python3 could not try the lock")
        return process.terminationStatus == 0
    }

    @Test func watchingLeavesSQLitesLockOnTheWALIndexInPlace() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("watched.sqlite")
        _ = try await SQLiteCatalog.open(atPath: path).write { tx in try tx.createFeed(named: "f") }
        let database = try SQLiteCatalog.openForServing(atPath: path)
        _ = try await database.read { tx in try tx.feed(named: "f") }
        #expect(try !Self.anotherProcessCanTakeTheWALIndex(path), "the open database should hold the WAL index")
        // Watchers come and go (one per server part); each look reads the header.
        for _ in 0..<3 {
            let watcher = try await database.makeChangeWatcher()
            let before = try watcher.version()
            _ = try await database.write { tx in try tx.createFeed(named: "g\(UUID().uuidString.prefix(8))") }
            #expect(try watcher.version() != before, "a commit should change the version")
            #expect(try watcher.version() >= 0, "the version should come from the WAL-index header")
        }
        #expect(
            try !Self.anotherProcessCanTakeTheWALIndex(path),
            "after watching, another process could take the WAL index: it would truncate -shm under this one")
        _ = try await database.read { tx in try tx.feed(named: "f") }
    }

    /// The attacker's reading of issue 53's tagged commits: the tag is announced by a
    /// notification of its own just before the commit's plain one, so that watchers from
    /// before tags, which count only the schema alone, still count every commit (a rolling
    /// upgrade); the watcher of the tag passes over the plain one right after it, and only it.
    @Test func onlyThePlainNotificationRightAfterTheWatchersOwnTagIsPassedOver() {
        var counting = PostgresChangeWatcher.Counting(schema: "s", ignoring: "a1")
        let read = ["s", "s a1", "s", "s", "s b2", "s", "", "t", "t a1", "s a1", "s a1x", "s", "s ", "s a1", "t"]
        #expect(
            read.map { counting.counts($0) }
                == [true, false, false, true, false, true, true, false, false, false, false, true, false, false, false])
        var untagged = PostgresChangeWatcher.Counting(schema: "s", ignoring: nil)
        #expect(["s", "s a1", "s", "s b"].map { untagged.counts($0) } == [true, false, true, false])
    }
}
