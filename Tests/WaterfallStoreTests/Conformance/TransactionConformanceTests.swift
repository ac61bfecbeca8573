import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, transactions: a write is all or nothing, a dry run nothing, a read
/// cannot write; two stores on one catalog write one at a time, and reads see only commits.
/// What depends on how the connections are held runs for a command's store and a server's.
@Suite(.onOwnThreads) struct TransactionConformanceTests {
    /// Writes a little of everything the catalog holds, for "nothing was left" checks.
    private static func writeSomethingOfEverything(_ tx: any CatalogTransaction) throws {
        let feed = try tx.makeFeed("f", [(section: nil, images: ["a", "b"]), (section: "s", images: ["c"])])
        let revision = try tx.bumpRevision(feedID: feed.id)
        try tx.appendInsertChangesForWholeFeed(feedID: feed.id, revision: revision)
        try tx.saveLayout(feedID: feed.id, NamedLayoutRecord(name: "phone", configuration: "C"))
        _ = try tx.makeCacheEntry(feedID: feed.id, configuration: "C", stride: 2)
        _ = try tx.insertAPIKey(
            APIKeyRecord(name: "k", secretSHA256: Array(repeating: 7, count: 32), canWrite: true, feeds: []))
    }

    /// Whether the catalog holds nothing but the feeds named `feeds` (and no API key).
    private static func holdsOnly(_ feeds: [String], _ store: any CatalogStore) async throws -> Bool {
        try await store.read { tx in try tx.feeds().map(\.name) == feeds && !tx.hasAPIKeys() }
    }

    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func aWriteThatThrowsLeavesNothingAndTheStoreWritesOn(engine: TestEngine, opening: ScratchCatalog.Opening)
        async throws
    {
        let catalog = try ScratchCatalog(engine)
        let store = try catalog.open(opening)
        defer { store.closeWhenDone() }

        // When a write does a little of everything, then throws
        await #expect(throws: Abandon.self) {
            try await store.write { tx throws in
                try Self.writeSomethingOfEverything(tx)
                throw Abandon()
            }
        }

        // Then its error came through, nothing of it is left, and the next write commits
        #expect(try await Self.holdsOnly([], store))
        try await store.write { tx in try Self.writeSomethingOfEverything(tx) }
        try await store.read { tx throws in
            let feed = try #require(try tx.feed(named: "f"))
            #expect(try tx.order(feed.id) == ["a", "b", "c"])
            #expect(try tx.changes(feedID: feed.id, since: 0).count == 3)
        }
    }

    @Test(arguments: TestEngine.all)
    func aStatementTheCatalogRefusesRollsBackTheWholeWrite(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // When a write's last statement breaks a rule (a feed name taken in the same write)
            let error = await #expect(throws: StoreError.self) {
                try await store.write { tx throws in
                    try Self.writeSomethingOfEverything(tx)
                    _ = try tx.createFeed(named: "f")
                }
            }

            // Then the store says so, and nothing before it in the write was kept
            #expect(error?.kind == .invalidRequest)
            #expect(try await Self.holdsOnly([], store))
            _ = try await store.write { tx in try tx.createFeed(named: "after") }
            #expect(try await Self.holdsOnly(["after"], store))
        }
    }

    /// A write whose body catches a refused statement and goes on is where the engines differ:
    /// SQLite undoes only that statement and commits the rest, PostgreSQL has aborted the whole
    /// transaction. Either is allowed; what is not is a write that reports success and kept
    /// nothing.
    @Test(arguments: TestEngine.all)
    func aWriteThatSwallowsARefusedStatementNeverReportsSuccessForNothing(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // When a write's body catches the refusal of a statement and returns normally
            let outcome = await Result(awaiting: {
                try await store.write { tx throws in
                    _ = try tx.createFeed(named: "f")
                    #expect(throws: (any Error).self) { try tx.createFeed(named: "f") }
                }
            })

            // Then either it committed what was not refused, or it said it committed nothing
            switch outcome {
            case .success:
                await #expect(
                    try Self.holdsOnly(["f"], store), "the write succeeded, so its first statement must be kept")
            case .failure: await #expect(try Self.holdsOnly([], store))
            }
            _ = try await store.write { tx in try tx.createFeed(named: "next") }
            #expect(try await store.read { tx in try tx.feed(named: "next") } != nil)
        }
    }

    @Test(arguments: TestEngine.all)
    func aReadOrADryRunPassesItsBodysErrorOn(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            await #expect(throws: Abandon.self) { try await store.read { _ in throw Abandon() } }
            await #expect(throws: Abandon.self) {
                try await store.dryRun { tx in
                    _ = try tx.createFeed(named: "f")
                    throw Abandon()
                }
            }
            await #expect(throws: Abandon.self) { try await store.writeIfAvailable(within: 5) { _ in throw Abandon() } }
            #expect(try await Self.holdsOnly([], store))
        }
    }

    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func aReadSeesOneSnapshotWhileAnotherStoreCommits(engine: TestEngine, opening: ScratchCatalog.Opening) async throws
    {
        let catalog = try ScratchCatalog(engine)
        let reader = try catalog.open(opening)
        defer { reader.closeWhenDone() }
        _ = try await reader.write { tx in try tx.makeFeed("f", [(section: nil, images: ["a"])]) }
        let writer = try catalog.open(opening)
        defer { writer.closeWhenDone() }

        // When another store commits in the middle of a read transaction (without waiting for it)
        let (before, during) = try await reader.read { tx throws in
            let feed = try #require(try tx.feed(named: "f"))
            let before = (try tx.feeds().map(\.name), try tx.order(feed.id), feed.revision)
            try waitingHere {
                try await writer.write { other in
                    _ = try other.createFeed(named: "g")
                    let section = try #require(try other.sections(feedID: feed.id).first)
                    try other.insertImages(feedID: feed.id, [imageRow("b", key: orderKey(2), section: section.id)])
                    _ = try other.bumpRevision(feedID: feed.id)
                }
            }
            let during = (try tx.feeds().map(\.name), try tx.order(feed.id), try tx.feed(named: "f")?.revision ?? -1)
            return (before, during)
        }

        // Then the read saw the catalog as of its start throughout, and the next read sees the commit
        #expect(before == (["f"], ["a"], 0))
        #expect(during == before)
        let after = try await reader.read { tx throws in
            (try tx.feeds().map(\.name), try tx.order(try #require(try tx.feed(named: "f")).id))
        }
        #expect(after == (["f", "g"], ["a", "b"]))
    }

    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func aDryRunAnswersAsAWriteWouldAndWritesNothing(engine: TestEngine, opening: ScratchCatalog.Opening) async throws {
        let catalog = try ScratchCatalog(engine)
        let store = try catalog.open(opening)
        defer { store.closeWhenDone() }
        let feedID = try await store.write { tx in try tx.createFeed(named: "kept").id }

        let answer = try await store.dryRun { tx throws in
            try Self.writeSomethingOfEverything(tx)
            _ = try tx.bumpRevision(feedID: feedID)
            return try tx.feeds().map(\.name)
        }

        #expect(answer == ["f", "kept"])
        #expect(try await Self.holdsOnly(["kept"], store))
        #expect(try await store.read { tx in try tx.feed(named: "kept")?.revision } == 0)
    }

    /// Both engines refuse the same way: the read transaction is read-only (SQLite's
    /// `query_only` or a read-only pool connection, PostgreSQL's `READ ONLY`), and the refusal
    /// is a failure to write.
    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func aReadCannotWrite(engine: TestEngine, opening: ScratchCatalog.Opening) async throws {
        let catalog = try ScratchCatalog(engine)
        let store = try catalog.open(opening)
        defer { store.closeWhenDone() }

        let error = await #expect(throws: StoreError.self) {
            try await store.read { tx in _ = try tx.createFeed(named: "sneaky") }
        }

        #expect(error?.kind == .cannotWrite)
        #expect(try await Self.holdsOnly([], store))
        _ = try await store.write { tx in try tx.createFeed(named: "honest") }
        #expect(try await Self.holdsOnly(["honest"], store))
    }

    @Test(arguments: TestEngine.all)
    func aBestEffortWriteRunsWhenTheCatalogIsFree(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let answer = try await store.writeIfAvailable(within: 5) { tx in try tx.createFeed(named: "f").revision }
            #expect(answer == 0)
            #expect(try await Self.holdsOnly(["f"], store))
        }
    }

    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func writersOfTwoStoresOnOneCatalogTakeTurns(engine: TestEngine, opening: ScratchCatalog.Opening) async throws {
        // Given two stores opened on one catalog (two connections; two processes would do the same)
        let catalog = try ScratchCatalog(engine)
        let first = try catalog.open(opening)
        defer { first.closeWhenDone() }
        _ = try await first.write { tx in try tx.createFeed(named: "setup") }
        let second = try catalog.open(opening)
        defer { second.closeWhenDone() }
        let log = EventLog()
        let firstIsInside = DispatchSemaphore(value: 0)
        let secondIsStarting = DispatchSemaphore(value: 0)

        // When the first opens a write and, inside it, lets the second start its own
        let firstWriter = Background {
            try await first.write { tx throws in
                log.append("first begins")
                _ = try tx.createFeed(named: "a")
                firstIsInside.signal()
                _ = secondIsStarting.wait(timeout: .now() + 600)
                // Room for the second write to begin now, were the engine to let it
                Thread.sleep(forTimeInterval: 0.3)
                log.append("first ends")
            }
        }
        try #require(firstIsInside.wait(timeout: .now() + 600) == .success)
        let secondWriter = Background {
            secondIsStarting.signal()
            return try await second.write { tx throws in
                log.append("second begins")
                let sawFirst = try tx.feed(named: "a") != nil
                _ = try tx.createFeed(named: "b")
                log.append("second ends")
                return sawFirst
            }
        }
        try firstWriter.value()
        let secondSawFirst = try secondWriter.value()

        // Then the second waited for the first to commit, saw its commit, and both applied
        #expect(log.events == ["first begins", "first ends", "second begins", "second ends"])
        #expect(secondSawFirst)
        #expect(try await Self.holdsOnly(["a", "b", "setup"], first))
        #expect(try await Self.holdsOnly(["a", "b", "setup"], second))
    }

    @Test(arguments: TestEngine.all, ScratchCatalog.Opening.allCases)
    func whileAWriteIsOpenABestEffortWriteGivesWayAndReadsSeeTheLastCommit(
        engine: TestEngine, opening: ScratchCatalog.Opening
    ) async throws {
        let catalog = try ScratchCatalog(engine)
        let first = try catalog.open(opening)
        defer { first.closeWhenDone() }
        _ = try await first.write { tx in try tx.createFeed(named: "setup") }
        let second = try catalog.open(opening)
        defer { second.closeWhenDone() }
        let firstIsInside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        // Given a write transaction held open by the first store
        let firstWriter = Background {
            try await first.write { tx throws in
                _ = try tx.createFeed(named: "a")
                firstIsInside.signal()
                _ = release.wait(timeout: .now() + 600)
            }
        }
        try #require(firstIsInside.wait(timeout: .now() + 600) == .success)
        defer { release.signal() }

        // When the second store tries a best-effort write that may not wait, and reads
        let skipped = try await second.writeIfAvailable(within: 0) { tx in try tx.createFeed(named: "b").id }
        let seen = try await second.read { tx in try tx.feeds().map(\.name) }

        // Then the write was skipped, and the read saw the catalog without the open write
        #expect(skipped == nil)
        #expect(seen == ["setup"])

        // And once the first commits, the best-effort write goes through
        release.signal()
        try firstWriter.value()
        let done = try await second.writeIfAvailable(within: 30) { tx in try tx.createFeed(named: "b").name }
        #expect(done == "b")
        #expect(try await Self.holdsOnly(["a", "b", "setup"], second))
    }

    /// Write scopes (DESIGN section 12: writers to one feed are serialised by the database). On
    /// PostgreSQL a write to one feed holds that feed's lock, so another feed's writers, and the
    /// API keys', go on beside it while the same feed's and the whole catalog's wait; SQLite has
    /// one writer at a time, whatever the scope.
    @Test(arguments: TestEngine.all)
    func whileAFeedIsBeingWrittenOnlyWritesThatMustWaitForItDo(engine: TestEngine) async throws {
        let catalog = try ScratchCatalog(engine)
        let first = try catalog.open(.server)
        defer { first.closeWhenDone() }
        _ = try await first.write(.feed("a")) { tx in try tx.createFeed(named: "a") }
        let second = try catalog.open(.server)
        defer { second.closeWhenDone() }
        let firstIsInside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        // Given a write to feed "a" held open by the first store
        let firstWriter = Background {
            try await first.write(.feed("a")) { tx throws in
                try tx.deleteFeed(id: try tx.feed(named: "a")!.id)
                _ = try tx.createFeed(named: "a")
                firstIsInside.signal()
                _ = release.wait(timeout: .now() + 600)
            }
        }
        try #require(firstIsInside.wait(timeout: .now() + 600) == .success)
        defer { release.signal() }

        // When the second store tries best-effort writes of every scope
        let sameFeed = try await second.writeIfAvailable(.feed("a"), within: 0) { _ in "a" }
        let wholeCatalog = try await second.writeIfAvailable(.catalog, within: 0) { _ in "catalog" }
        let otherFeed = try await second.writeIfAvailable(.feed("b"), within: 0) { tx in
            try tx.createFeed(named: "b").name
        }
        let keys = try await second.writeIfAvailable(.apiKeys, within: 0) { tx in try tx.hasAPIKeys() }

        // Then the same feed's and the whole catalog's gave way, and the others ran on
        // PostgreSQL (committed while the first write is still open) but not on SQLite
        #expect(sameFeed == nil)
        #expect(wholeCatalog == nil)
        switch engine {
        case .postgres:
            #expect(otherFeed == "b")
            #expect(keys == false)
            #expect(try await second.read { tx in try tx.feeds().map(\.name) } == ["a", "b"])
        case .sqlite:
            #expect(otherFeed == nil)
            #expect(keys == nil)
        }

        // And once the first commits, a write to its feed waits no more
        release.signal()
        try firstWriter.value()
        #expect(try await second.writeIfAvailable(.feed("a"), within: 30) { _ in "a" } == "a")
    }
}

/// Runs `body` on a thread of its own; ``value()`` waits for it and returns or throws its result.
private final class Background<T: Sendable>: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    init(_ body: @escaping @Sendable () async throws -> T) {
        Task { [self] in
            let outcome = await Result(awaiting: body)
            lock.withLock { result = outcome }
            finished.signal()
        }
    }

    func value() throws -> T {
        finished.wait()
        return try lock.withLock { result! }.get()
    }
}

/// Events appended from several threads, in the order they happened.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []

    func append(_ event: String) { lock.withLock { list.append(event) } }
    var events: [String] { lock.withLock { list } }
}
