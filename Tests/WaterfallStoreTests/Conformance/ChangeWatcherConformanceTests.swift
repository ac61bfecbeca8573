import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, change watchers: a commit by another store on the same catalog changes
/// the version, at once where the engine says it sees commits at once (SQLite's WAL index), a
/// moment later otherwise (PostgreSQL's notifications).
@Suite struct ChangeWatcherConformanceTests {
    @Test(arguments: TestEngine.all)
    func aCommitByAnotherStoreChangesTheVersion(engine: TestEngine) async throws {
        let catalog = try ScratchCatalog(engine)
        let store = try catalog.open()
        defer { store.close() }
        _ = try store.write { tx in try tx.createFeed(named: "setup") }
        let watcher = try store.makeChangeWatcher()
        let before = try watcher.version()

        // When another store on the catalog commits
        let other = try catalog.open()
        _ = try other.write { tx in try tx.createFeed(named: "f") }
        other.close()

        // Then the watcher's version moves on (waiting for the notification where it comes later,
        // without holding a thread that the watcher's listening task may need)
        var after = try watcher.version()
        if !watcher.seesCommitsAtOnce {
            let deadline = Date.now.addingTimeInterval(60)
            while after == before && Date.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                after = try watcher.version()
            }
        }
        #expect(after != before)
    }
}
