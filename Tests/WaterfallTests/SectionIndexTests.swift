import Testing
import WaterfallStore
import WaterfallTestSupport

@testable import Waterfall

/// The section index of a layout (DESIGN section 14), from the database's layout cache and from
/// a server's kept feed, on both engines.
@Suite(.onOwnThreads(lane: .database)) struct SectionIndexTests {
    static let phone = AnyLayoutConfiguration.waterfall(
        LayoutConfiguration(
            columns: 2, width: 375, headerHeight: 44, footerHeight: 20,
            headerInset: EdgeInsets(top: 4, left: 0, bottom: 6, right: 0),
            footerInset: EdgeInsets(top: 2, left: 0, bottom: 3, right: 0)))

    /// Twelve sections: ten declared (two of them empty, one with a unicode id), one named only
    /// by its images, and the unnamed one; images of all of them interleaved in the file.
    static func twelveSections(_ catalog: TestCatalog) async throws -> (declared: [String], counts: [String: Int]) {
        let declared = [
            "2024-01", "2024-02", "2024-03", "leer", "2024-05", "日本 📷", "2024-07", "2024-08", "vide", "2024-10",
        ]
        var counts: [String: Int] = [:]
        var specs: [String] = []
        var random = SeededGenerator(seed: 12)
        for index in 0..<150 {
            let section = (declared.filter { $0 != "leer" && $0 != "vide" } + ["späť", "-"]).randomElement(
                using: &random)!
            counts[section, default: 0] += 1
            let size = "\(Int.random(in: 50...900, using: &random))x\(Int.random(in: 50...900, using: &random))"
            let full = index % 17 == 0 ? "!" : ""
            specs.append("i\(index)" + (section == "-" ? "" : "@\(section)") + ":" + size + full)
        }
        try await catalog.importFeed(specs, sections: declared)
        return (declared, counts)
    }

    @Test(arguments: TestEngine.all)
    func aTwelveSectionFeedListsEverySectionInOrderWithCountsIndexesAndExtents(engine: TestEngine) async throws {
        // Given a feed of twelve sections, two of them empty, and a saved layout with headers
        // and footers.
        let catalog = try TestCatalog(engine)
        let (declared, counts) = try await Self.twelveSections(catalog)
        _ = try await catalog.service.addLayout(feed: "f", name: "phone", configuration: Self.phone)
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(
            KeptFeeds(budget: 1 << 30))

        // When the index is asked for, from the cache and from a kept feed.
        let index = try await catalog.service.sectionIndex(feed: "f", layout: .named("phone"))
        await #expect(try hot.sectionIndex(feed: "f", layout: .named("phone")) == index)

        // Then every section comes in catalog order, the declared ones first, then the one
        // named by its images, then the unnamed one (in the order of their first images).
        let order = try await catalog.sections()
        #expect(order.count == 12)
        #expect(Array(order.prefix(10)) == declared)
        #expect(index.sections.map { $0.section ?? "-" } == order)
        await #expect(index.revision == (try catalog.revision()))
        for section in index.sections {
            switch section.section {
            case nil: #expect(section.title == nil)
            case "späť"?: #expect(section.title == "späť")
            case let id?: #expect(section.title == "Title \(id)")
            }
            #expect(section.count == counts[section.section ?? "-"] ?? 0)
        }
        #expect(index.sections.filter { $0.count == 0 }.map(\.section) == ["leer", "vide"])
        // Indexes are the catalog index of each section's first image (of the next for empty ones).
        let images = try await catalog.order()
        var expectedIndex = 0
        for section in index.sections {
            #expect(section.index == expectedIndex)
            if section.count > 0 {
                #expect(images[section.index].hasPrefix("\(section.section ?? "-")/"))
            }
            expectedIndex += section.count
        }
        #expect(index.totalItems == images.count)
        // Sections stack: each begins where the previous ended, and the last ends at the
        // content's bottom.
        for (section, next) in zip(index.sections, index.sections.dropFirst()) {
            #expect(section.y < next.y)
            #expect(section.y + section.height == next.y)
        }
        #expect(index.sections[0].y == 0)
        #expect(index.sections.last.map { $0.y + $0.height } == index.contentHeight)
        // An empty section is its header, its insets and its footer.
        let empty = try #require(index.sections.first { $0.section == "leer" })
        #expect(empty.height == 4 + 44 + 6 + 10 + 10 + 2 + 20 + 3)
        // The header of each section is drawn at its y plus the header inset.
        let page = try await catalog.service.page(feed: "f", layout: .named("phone"), offset: 0, limit: 150)
        #expect(page.headers.map(\.frame.y) == index.sections.map { $0.y + 4 })
        #expect(page.footers.map { $0.frame.maxY + 3 } == index.sections.map { $0.y + $0.height })
        #expect(page.contentHeight == index.contentHeight)
    }

    @Test(arguments: TestEngine.all)
    func aLargerMinimumContentHeightLeavesTheLastSectionWhereItEnds(engine: TestEngine) async throws {
        // Given a short feed and a layout whose minimum content height is far below it.
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b@s1", "c@s2"], sections: ["s1", "s2", "s3"])
        let tall = AnyLayoutConfiguration.waterfall(
            LayoutConfiguration(columns: 2, width: 300, minimumContentHeight: 5000))
        let hot = WaterfallService(database: catalog.service.database, stride: 4).keepingFeeds(
            KeptFeeds(budget: 1 << 30))

        // When the index is asked for.
        let index = try await catalog.service.sectionIndex(feed: "f", layout: .inline(tall))

        // Then the content is the minimum, and the last (empty) section ends where it ends.
        await #expect(try hot.sectionIndex(feed: "f", layout: .inline(tall)) == index)
        #expect(index.contentHeight == 5000)
        #expect(index.sections.map(\.count) == [2, 1, 0])
        #expect(index.sections.map(\.index) == [0, 2, 3])
        let last = try #require(index.sections.last)
        #expect(last.height == 20)
        #expect(last.y + last.height < index.contentHeight)
    }

    @Test(arguments: TestEngine.all)
    func anEmptyFeedListsItsDeclaredSectionsAndAFeedOfTheUnnamedSectionOnlyIsOneSection(engine: TestEngine) async throws
    {
        let catalog = try TestCatalog(engine)
        // Given a feed that declares sections and holds no image.
        try await catalog.importFeed([], sections: ["a", "b"])
        let layout = LayoutSource.inline(
            .justified(JustifiedConfiguration(width: 400, rowHeight: 100, headerHeight: 30)))
        // Then each section is its chrome, at index 0.
        let empty = try await catalog.service.sectionIndex(feed: "f", layout: layout)
        #expect(empty.sections.map(\.section) == ["a", "b"])
        #expect(empty.sections.map(\.index) == [0, 0])
        #expect(empty.sections.map(\.y) == [0, 50])
        #expect(empty.sections.map(\.height) == [50, 50])
        #expect(empty.contentHeight == 100)

        // Given a feed of the unnamed section only: one section, id and title null.
        try await catalog.importFeed(["x", "y", "z"])
        let one = try await catalog.service.sectionIndex(feed: "f", layout: layout)
        #expect(one.sections.count == 1)
        #expect(one.sections[0].section == nil && one.sections[0].title == nil)
        #expect(one.sections[0].count == 3 && one.sections[0].index == 0)
        #expect(one.sections[0].height == one.contentHeight)
    }

    @Test(arguments: TestEngine.all)
    func anUnknownFeedOrLayoutIsNamed(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a"])
        await #expect(throws: WaterfallError.unknownFeed("nope")) {
            try await catalog.service.sectionIndex(feed: "nope", layout: .named("phone"))
        }
        await #expect(throws: WaterfallError.unknownLayout(feed: "f", layout: "phone")) {
            try await catalog.service.sectionIndex(feed: "f", layout: .named("phone"))
        }
    }

    /// Without a kept feed the index comes from the cache's section extents, or, when the cache
    /// lacks one, from a pass over the feed: both give the same bounds, bit for bit.
    @Test(arguments: TestEngine.all, LayoutCacheTests.configurations)
    func theCacheAndAPassOverTheFeedGiveTheSameBounds(engine: TestEngine, configuration: AnyLayoutConfiguration)
        async throws
    {
        let catalog = try TestCatalog(engine, stride: 4)
        _ = try await Self.twelveSections(catalog)
        _ = try await catalog.service.move(feed: "f", id: "i40", to: .before("i3"))
        // Warm the cache for the configuration, then compare inside one read.
        _ = try await catalog.service.sectionIndex(feed: "f", layout: .inline(configuration))
        let service = catalog.service
        try await service.database.read { tx in
            let feed = try #require(try tx.feed(named: "f"))
            try configuration.withEngine(
                BoundsComparison(service: service, feed: feed, key: configuration.canonicalJSON, tx: tx))
        }
    }

    private struct BoundsComparison: EngineWork {
        let service: WaterfallService
        let feed: FeedRecord
        let key: String
        let tx: any CatalogTransaction

        func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws {
            let cache = try CachedLayout(tx: tx, feed: feed, name: nil, engine: engine, key: key, stride: 4)
            #expect(cache.update == nil, "the cache was warm")
            let cached = try #require(try service.cachedBounds(cache, tx))
            let laidOut = try service.laidOutBounds(engine: engine, sections: cache.sections, feed: feed, tx)
            #expect(cached.starts == laidOut.starts)
            #expect(cached.end == laidOut.end)
            #expect(engine.contentHeight(engine.state(betweenSectionsAt: laidOut.end)) == cache.end.contentHeight)
        }
    }
}
