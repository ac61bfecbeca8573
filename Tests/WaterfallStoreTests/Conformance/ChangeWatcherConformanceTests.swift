import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, change watchers: a commit by another store on the same catalog changes
/// the version, at once where the engine says it sees commits at once (SQLite's WAL index), a
/// moment later otherwise (PostgreSQL's notifications).
@Suite struct ChangeWatcherConformanceTests {
    /// The watcher's version once it differs from `other` (any version when `nil`), asked
    /// again and again while the watcher has not heard the commit yet (PostgreSQL's listens from
    /// a task of its own, and answers a new version at every call until its LISTEN is in place).
    /// Waits asleep in a task, not holding a cooperative thread that the listening task may
    /// need; gives up after a minute.
    private static func version(of watcher: any ChangeWatcher, differentFrom other: Int64? = nil) async throws -> Int64 {
        let deadline = Date.now.addingTimeInterval(60)
        while true {
            do {
                let version = try watcher.version()
                if version != other || Date.now >= deadline { return version }
            } catch where Date.now < deadline {}
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test(arguments: TestEngine.all)
    func aCommitByAnotherStoreChangesTheVersion(engine: TestEngine) async throws {
        let catalog = try ScratchCatalog(engine)
        let store = try catalog.open()
        defer { store.close() }
        _ = try store.write { tx in try tx.createFeed(named: "setup") }
        let watcher = try store.makeChangeWatcher()
        let before = try await Self.version(of: watcher)

        // When another store on the catalog commits
        let other = try catalog.open()
        _ = try other.write { tx in try tx.createFeed(named: "f") }
        other.close()

        // Then the watcher's version moves on: at once, or a moment later as the engine says
        if watcher.seesCommitsAtOnce {
            #expect(try watcher.version() != before)
        } else {
            #expect(try await Self.version(of: watcher, differentFrom: before) != before)
        }
    }
}
