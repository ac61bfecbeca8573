import Foundation
import GRDB
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// Opening files: new databases are created and migrated; foreign files are refused untouched.
@Suite(.onOwnThreads) struct DatabaseOpeningTests {
    @Test func aNewFileIsCreatedMigratedAndMarkedAsWaterfall() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("new.sqlite")
        let database = try SQLiteCatalog.open(atPath: path)
        // A new file starts with a rollback journal (a first bulk import writes each page once)
        // and switches to WAL after its first committed write.
        await #expect(try database.read { tx in try String.fetchOne(tx.db, sql: "PRAGMA journal_mode") } == "delete")
        _ = try await database.write { tx in try tx.createFeed(named: "f") }
        let (applicationID, journal, tables) = try await database.read { tx in
            (
                try Int32.fetchOne(tx.db, sql: "PRAGMA application_id")!,
                try String.fetchOne(tx.db, sql: "PRAGMA journal_mode")!,
                try String.fetchAll(tx.db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            )
        }
        #expect(applicationID == SQLiteCatalog.applicationID)
        #expect(journal == "wal")
        #expect(
            tables == [
                "api_key", "api_key_feed", "catalog_identity", "change", "feed", "grdb_migrations", "image", "layout",
                "layout_cache",
                "layout_checkpoint", "layout_section", "mirror_feed", "mirror_source", "revision_time", "section",
                "share",
                "view",
            ])
        // Reopening an existing Waterfall database works.
        _ = try SQLiteCatalog.open(atPath: path)
    }

    /// Two commands started at once on a file that does not exist yet (an import and a server)
    /// both found its migrations pending; GRDB's migrator decides which to run before it takes
    /// the write lock, so the second ran the first's again and failed ("duplicate column").
    @Test func openersRacingOnANewFileAllOpenIt() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        for round in 0..<12 {
            let path = folder.path("race-\(round).sqlite")
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    try SQLiteCatalog.open(atPath: path).closeWhenDone()
                } catch {
                    failures.withLockedValue { $0.append("\(error)") }
                }
            }
            #expect(failures.withLockedValue { $0 }.isEmpty, "round \(round)")
        }
    }

    @Test func migrationsAreCarriedInTheBinaryAndMatchTheFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Migrations/sqlite")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
            .sorted()
        #expect(SQLiteCatalog.migrations.map(\.identifier) == files.map { String($0.dropLast(4)) })
        for (migration, file) in zip(SQLiteCatalog.migrations, files) {
            #expect(migration.sql == (try String(contentsOf: folder.appending(path: file), encoding: .utf8)))
        }
    }

    @Test func aReadCannotWriteAndAFailedTransactionLeavesTheConnectionUsable() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let database = try SQLiteCatalog.open(atPath: folder.path("reads.sqlite"))
        defer { database.closeWhenDone() }
        // A write inside a read fails and leaves nothing
        await #expect(throws: (any Error).self) { try await database.read { tx in try tx.createFeed(named: "sneaky") } }
        // A write transaction that throws is rolled back
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await database.write { tx in
                _ = try tx.createFeed(named: "half")
                throw Stop()
            }
        }
        // And the connection still reads and writes, with foreign keys on
        _ = try await database.write { tx in try tx.createFeed(named: "whole") }
        await #expect(try database.read { tx in try tx.feeds().map(\.name) } == ["whole"])
        await #expect(try database.read { tx in try Bool.fetchOne(tx.db, sql: "PRAGMA foreign_keys") } == true)
    }

    @Test func keysMadeBeforeMigration0005NeverExpireAndCanBeUsed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("keys.sqlite")
        // Given a database of migration 0004 holding a key
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        for migration in SQLiteCatalog.migrations.prefix(4) {
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
        }
        try migrator.migrate(queue)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO api_key (name, secret_sha256, can_write) VALUES ('old', zeroblob(32), 1)")
        }
        try queue.close()

        // When Waterfall opens it and records the key's use
        let database = try SQLiteCatalog.open(atPath: path)
        defer { database.closeWhenDone() }
        try await database.write { tx in try tx.recordAPIKeyUse(named: "old", at: 1_800_000_000) }

        // Then the key is there, without expiry, with its use
        let keys = try await database.read { tx in try tx.apiKeys() }
        #expect(
            keys == [
                APIKeyRecord(
                    name: "old", secretSHA256: Array(repeating: 0, count: 32), canWrite: true, feeds: [],
                    lastUsedAt: 1_800_000_000)
            ])
    }

    @Test func aDatabaseOfTheFirstSchemasIsMigratedForwardKeepingItsChangeLog() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("old.sqlite")
        // Given a database written before migration 0003, as its migrations left it, with
        // change rows of two revisions logged in an order their ids alone keep
        let queue = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        for migration in SQLiteCatalog.migrations.prefix(2) {
            migrator.registerMigration(migration.identifier) { db in try db.execute(sql: migration.sql) }
        }
        try migrator.migrate(queue)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO feed (id, name, revision) VALUES (1, 'old', 2);
                    INSERT INTO change (id, feed_id, revision, kind, external_id, section) VALUES
                        (1, 1, 1, 'insert', 'b', NULL), (2, 1, 1, 'insert', 'a', 's'), (3, 1, 2, 'move', 'a', NULL);
                    """)
        }
        try queue.close()

        // When Waterfall opens it, and logs another revision
        let database = try SQLiteCatalog.open(atPath: path)
        defer { database.closeWhenDone() }
        try await database.write { tx in
            try tx.appendChanges(feedID: 1, revision: 3, [(.remove, "b", nil), (.update, "a", "s")])
        }

        // Then the log reads back complete and in order
        let changes = try await database.read { tx in try tx.changes(feedID: 1, since: 0) }
        #expect(
            changes.map { "\($0.revision) \($0.kind.rawValue) \($0.externalID)" } == [
                "1 insert b", "1 insert a", "2 move a", "3 remove b", "3 update a",
            ])
        #expect(changes[1].section == "s")
    }

    @Test(arguments: [
        ("notes.txt", Array("plain text, not a database\n".utf8)),
        ("truncated.sqlite", Array("SQLite format 3\u{0}".utf8)),
    ])
    func nonSQLiteFilesAreRefusedAndLeftByteIdentical(name: String, bytes: [UInt8]) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.self) { try SQLiteCatalog.open(atPath: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [name])
    }

    @Test func anotherApplicationsSQLiteFileIsRefusedUntouched() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("other.db")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(
            throws: StoreError(
                .cannotOpen,
                "\(path) is a SQLite database of another application, not a Waterfall database; it was left untouched.")
        ) {
            try SQLiteCatalog.open(atPath: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aDatabaseFromANewerWaterfallIsRefused() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = folder.path("future.sqlite")
        let database = try SQLiteCatalog.open(atPath: path)
        try await database.write { tx in
            try tx.db.execute(sql: "INSERT INTO grdb_migrations VALUES ('9999_from_the_future')")
        }
        #expect(throws: StoreError.self) { try SQLiteCatalog.open(atPath: path) }
        do {
            _ = try SQLiteCatalog.open(atPath: path)
        } catch {
            #expect(error.message.contains("newer version of Waterfall"))
        }
    }

    @Test func aDirectoryOrAMissingFolderIsRefused() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        #expect(
            throws: StoreError(
                .cannotOpen, "\(folder.url.path) is a directory, not a database file; it was left untouched.")
        ) {
            try SQLiteCatalog.open(atPath: folder.url.path)
        }
        #expect(throws: StoreError.self) { try SQLiteCatalog.open(atPath: folder.path("missing/db.sqlite")) }
    }
}
