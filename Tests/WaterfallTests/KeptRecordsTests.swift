import Synchronization
import Testing
import WaterfallTestSupport

@testable import Waterfall
@testable import WaterfallStore

/// The records a server keeps for the catalog's version (``KeptRecords``): a page answered
/// from them reads only its rows, and only while the feed is at the revision they give.
@Suite struct KeptRecordsTests {
    static let layout = LayoutSource.inline(
        .waterfall(LayoutConfiguration(columns: 2, width: 375, headerHeight: 44, footerHeight: 10)))

    /// A watcher whose version moves only when told: one that has not heard of a commit yet
    /// (another server's, on PostgreSQL).
    final class HeldWatcher: ChangeWatcher {
        let value = Atomic<Int64>(1)
        func version() throws -> Int64 { value.load(ordering: .relaxed) }
        var seesCommitsAtOnce: Bool { false }
    }

    /// The version of a watcher at `catalog` before any of the server's own commits.
    static func at(_ catalog: Int64) -> KeptRecords.Version {
        KeptRecords.Version(catalog: catalog, ownCommits: 0)
    }

    /// A feed of 30 images in three sections, each with `url`'s address.
    static func feed(url: String) -> String {
        let images = (0..<30).map { i in
            "{\"id\":\"i\(i)\",\"width\":\(100 + i),\"height\":\(150 + i % 4 * 20),\"section\":\"s\(i / 10)\","
                + "\"url\":\"https://example.com/\(url)/\(i).jpg\"}"
        }
        return "{\"feed\":\"f\",\"images\":[\(images.joined(separator: ","))]}"
    }

    @Test(arguments: TestEngine.all)
    func aPageFromKeptRecordsIsOfTheFeedsRevisionWhenTheWatcherHasNotHeardOfACommit(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importJSON(Self.feed(url: "old"))
        let watcher = HeldWatcher()
        let records = KeptRecords(watcher: watcher)
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(
            KeptFeeds(budget: 1 << 20), records: records)
        for _ in 0..<3 { _ = try await hot.page(feed: "f", layout: Self.layout, offset: 12, limit: 5) }
        #expect(records.answers > 0, "the pages after the first were answered from the kept records")
        let before = records.answers

        // The same images, sizes and order, at new addresses: a commit the watcher does not
        // count, whose rows the kept copy agrees with.
        try await catalog.importJSON(Self.feed(url: "new"))
        let revision = try await catalog.revision()
        let page = try await hot.page(feed: "f", layout: Self.layout, offset: 12, limit: 5)
        #expect(page.revision == revision)
        #expect(page.items.allSatisfy { $0.url?.contains("/new/") == true }, "\(page.items.map(\.url))")
        #expect(page == (try await catalog.service.page(feed: "f", layout: Self.layout, offset: 12, limit: 5)))
        #expect(records.answers == before, "the feed had moved on: read in a transaction")

        // Kept again at the new revision, the next pages are answered from the records.
        for offset in [0, 9, 25] {
            let kept = try await hot.page(feed: "f", layout: Self.layout, offset: offset, limit: 5)
            #expect(kept == (try await catalog.service.page(feed: "f", layout: Self.layout, offset: offset, limit: 5)))
        }
        #expect(records.answers > before)
    }

    @Test func recordsAreKeptForOneVersionAndBounded() throws {
        let watcher = HeldWatcher()
        let records = KeptRecords(watcher: watcher)
        let feed = FeedRecord(id: 1, name: "f", revision: 3, imageCount: 10)
        let query = LayoutQuery(
            feed: feed, name: "l", configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375)))
        let section = SectionRecord(id: 7, name: "s", title: nil, position: 0, isDeclared: false)

        records.keep(query, feed: "f", layout: .named("l"), sections: [section], readAt: Self.at(0))
        #expect(records.query(feed: "f", layout: .named("l"), at: Self.at(0)) == nil, "read at a version not current")
        records.keep(query, feed: "f", layout: .named("l"), sections: [section], readAt: Self.at(1))
        #expect(records.query(feed: "f", layout: .named("l"), at: Self.at(1))?.feed == feed)
        #expect(records.sections([7], revision: 3, at: Self.at(1)) == [section])
        #expect(records.sections([7, 8], revision: 3, at: Self.at(1)) == nil, "one of them not kept")

        watcher.value.store(2, ordering: .relaxed)
        #expect(records.query(feed: "f", layout: .named("l"), at: Self.at(2)) == nil, "a commit since")
        for i in 0...KeptRecords.queryLimit {
            records.keep(query, feed: "f", layout: .named("l\(i)"), sections: [], readAt: Self.at(2))
        }
        #expect(records.query(feed: "f", layout: .named("l0"), at: Self.at(2)) == nil, "dropped past the bound")
        #expect(records.query(feed: "f", layout: .named("l\(KeptRecords.queryLimit)"), at: Self.at(2)) != nil)
    }

    /// Where the watcher hears of another server's commit late, two transactions of one version
    /// may read a feed at two revisions (the attacker's reading): the one that keeps last must
    /// not give its labels to a page of the other's revision.
    @Test func labelsAreKeptWithTheRevisionTheyWereReadWith() throws {
        let records = KeptRecords(watcher: HeldWatcher())
        let layout = LayoutConfiguration(columns: 2, width: 375)
        func query(_ revision: Int64, _ name: String) -> LayoutQuery {
            LayoutQuery(
                feed: FeedRecord(id: 1, name: "f", revision: revision, imageCount: 10), name: name,
                configuration: .waterfall(layout))
        }
        let retitled = SectionRecord(id: 7, name: "s", title: "B", position: 0, isDeclared: true)
        let before = SectionRecord(id: 7, name: "s", title: "A", position: 0, isDeclared: true)
        records.keep(query(4, "l1"), feed: "f", layout: .named("l1"), sections: [retitled], readAt: Self.at(1))
        records.keep(query(3, "l2"), feed: "f", layout: .named("l2"), sections: [before], readAt: Self.at(1))
        let newer = try #require(records.query(feed: "f", layout: .named("l1"), at: Self.at(1)))
        #expect(records.sections([7], revision: newer.feed.revision, at: Self.at(1)) == [retitled])
        #expect(records.sections([7], revision: 3, at: Self.at(1)) == [before])
    }

    /// A server's own write that has committed makes what is kept the catalog's before it at
    /// once, though its watcher counts the write only when it returns: a reader that read
    /// before the commit keeps nothing after it.
    @Test func aServersOwnCommitEndsTheVersionAtOnce() throws {
        let records = KeptRecords(watcher: HeldWatcher())
        let query = LayoutQuery(
            feed: FeedRecord(id: 1, name: "f", revision: 3, imageCount: 10), name: "l",
            configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375)))
        let before = try #require(records.version())
        records.keep(query, feed: "f", layout: .named("l"), sections: [], readAt: before)
        #expect(records.query(feed: "f", layout: .named("l"), at: before) != nil)
        records.committed()
        let after = records.version()
        #expect(after != before)
        #expect(records.query(feed: "f", layout: .named("l"), at: after!) == nil)
        records.keep(query, feed: "f", layout: .named("l2"), sections: [], readAt: before)
        #expect(records.query(feed: "f", layout: .named("l2"), at: before) == nil, "read before the commit")
    }

    /// A write to a feed the service keeps ends the records' version when it commits, before
    /// its kept feed is brought along (``WaterfallService/writeContent(_:dryRun:_:)``), though
    /// the watcher has not heard of it.
    @Test(arguments: TestEngine.all)
    func aWriteToAKeptFeedEndsTheRecordsVersionWhenItCommits(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importJSON(Self.feed(url: "a"))
        let records = KeptRecords(watcher: HeldWatcher())
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(
            KeptFeeds(budget: 1 << 20), bringingWritesAlong: .seconds(1), records: records)
        _ = try await hot.page(feed: "f", layout: Self.layout, offset: 0, limit: 5)
        let before = records.version()
        _ = try await hot.move(feed: "f", id: "i20", to: .index(1))
        #expect(records.version() != before)
        #expect(
            try await hot.page(feed: "f", layout: Self.layout, offset: 0, limit: 5)
                == (try await catalog.service.page(feed: "f", layout: Self.layout, offset: 0, limit: 5)))
    }

    /// Past ``KeptRecords/byteLimit`` bytes of text, what was kept goes.
    @Test func recordsAreBoundedInBytes() throws {
        let records = KeptRecords(watcher: HeldWatcher())
        let version = try #require(records.version())
        let title = String(repeating: "t", count: 1 << 20)
        func query(_ i: Int) -> LayoutQuery {
            LayoutQuery(
                feed: FeedRecord(id: 1, name: "f", revision: 3, imageCount: 10), name: "l\(i)",
                configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375)))
        }
        let count = KeptRecords.byteLimit / (1 << 20) + 1
        for i in 0..<count {
            let section = SectionRecord(id: Int64(i), name: "s", title: title, position: 0, isDeclared: true)
            records.keep(query(i), feed: "f", layout: .named("l\(i)"), sections: [section], readAt: version)
        }
        #expect(records.query(feed: "f", layout: .named("l0"), at: version) == nil)
        #expect(records.query(feed: "f", layout: .named("l\(count - 1)"), at: version) != nil)
    }
}
