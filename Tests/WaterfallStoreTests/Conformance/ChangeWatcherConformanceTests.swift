import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, change watchers: a commit by another store on the same catalog changes
/// the version, at once where the engine says it sees commits at once (SQLite's WAL index), a
/// moment later otherwise (PostgreSQL's notifications).
@Suite(.onOwnThreads(lane: .database)) struct ChangeWatcherConformanceTests {
    /// The watcher's version once it differs from `other` (any version when `nil`), asked
    /// again and again while the watcher has not heard the commit yet (PostgreSQL's listens from
    /// a task of its own, and answers a new version at every call until its LISTEN is in place).
    /// Waits asleep in a task, not holding a cooperative thread that the listening task may
    /// need; gives up after a minute.
    private static func version(of watcher: any ChangeWatcher, differentFrom other: Int64? = nil) async throws -> Int64
    {
        let deadline = Date.now.addingTimeInterval(60)
        while true {
            do {
                let version = try watcher.version()
                if version != other || Date.now >= deadline { return version }
            } catch  where Date.now < deadline {}
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test(arguments: TestEngine.all)
    func aCommitByAnotherStoreChangesTheVersion(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            _ = try await store.write { tx in try tx.createFeed(named: "setup") }
            let watcher = try await store.makeChangeWatcher()
            let before = try await Self.version(of: watcher)

            // When another store on the catalog commits
            let other = try catalog.open()
            _ = try await other.write { tx in try tx.createFeed(named: "f") }
            await other.close()

            // Then the watcher's version moves on: at once, or a moment later as the engine says
            if watcher.seesCommitsAtOnce {
                #expect(try watcher.version() != before)
            } else {
                #expect(try await Self.version(of: watcher, differentFrom: before) != before)
            }
        }
    }
}

extension ChangeWatcherConformanceTests {
    /// The watcher's version once two looks in a row agree: on PostgreSQL, once its LISTEN is
    /// in place (until then every look is a new version). Gives up after a minute.
    private static func listeningVersion(of watcher: any ChangeWatcher) async throws -> Int64 {
        let deadline = Date.now.addingTimeInterval(60)
        while true {
            let version = try watcher.version()
            if try watcher.version() == version || Date.now >= deadline { return version }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Fault 9 of issue 37: a best-effort bookkeeping write (a layout cache saved, a key's last
    /// use) changed nothing a reader sees, yet notified every instance, whose kept answers were
    /// all retired. Where the engine hears commits by notification, such a write sends none.
    @Test(arguments: TestEngine.all)
    func aBookkeepingWriteIsNotHeardAsACommit(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let setup = try await store.write { tx in try tx.createFeed(named: "setup") }
            let watcher = try await store.makeChangeWatcher()
            // On SQLite any commit rewrites the WAL-index header, which is all the watcher reads.
            guard !watcher.seesCommitsAtOnce else { return }
            // Opened, and its notifications heard, before the version is read (opening the catalog
            // checks its schema in a write transaction)
            let other = try catalog.open()
            defer { other.closeWhenDone() }
            try await Task.sleep(for: .milliseconds(500))
            let before = try await Self.listeningVersion(of: watcher)
            let wrote = try await other.writeIfAvailable(.feed("setup"), within: 0.5) { tx -> Bool in
                try tx.adjustImageCount(feedID: setup.id, by: 0)
                return true
            }
            #expect(wrote == true)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try watcher.version() == before, "a bookkeeping write was heard as a commit")
            // A write that commits is still heard
            _ = try await other.write { tx in try tx.createFeed(named: "g") }
            #expect(try await Self.version(of: watcher, differentFrom: before) != before)
        }
    }

    /// Issue 53's tail under a writer: a server counts its own writes as each returns, after it
    /// has brought its kept feed along, and its watcher leaves their commits out (their
    /// ``CommitTag``), where the engine can tell them by their notification. Another writer's
    /// commits, untagged or tagged otherwise, are heard; and on SQLite every commit is seen.
    @Test(arguments: TestEngine.all)
    func aCommitTaggedAsTheWatchersOwnIsLeftOutWhereTheEngineCanTell(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            _ = try await store.write { tx in try tx.createFeed(named: "setup") }
            let watcher = try await store.makeChangeWatcher(ignoringCommitsTagged: "own")
            let other = try catalog.open()
            defer { other.closeWhenDone() }
            try await Task.sleep(for: .milliseconds(500))
            let before = try await Self.listeningVersion(of: watcher)
            _ = try await CommitTag.$current.withValue("own") {
                try await store.write { tx in try tx.createFeed(named: "own") }
            }
            if watcher.seesCommitsAtOnce {
                #expect(try watcher.version() != before, "SQLite sees every commit")
                return
            }
            // Notifications come in the order of their commits: once the next one is heard, the
            // tagged one before it has been passed over.
            _ = try await CommitTag.$current.withValue("another") {
                try await other.write { tx in try tx.createFeed(named: "tagged otherwise") }
            }
            let heard = try await Self.version(of: watcher, differentFrom: before)
            #expect(heard == before + 1, "only the commit tagged otherwise was counted")
            _ = try await other.write { tx in try tx.createFeed(named: "untagged") }
            #expect(try await Self.version(of: watcher, differentFrom: heard) == heard + 1)
        }
    }
}
