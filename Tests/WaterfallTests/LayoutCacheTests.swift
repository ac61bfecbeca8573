import Testing
import WaterfallStore
import WaterfallTestSupport

@testable import Waterfall

/// The cache is an optimisation only: after any sequence of imports, moves, order lists and
/// removals, every page, viewport and section index answer equals a fresh computation from the
/// catalog.
@Suite(.onOwnThreads) struct LayoutCacheTests {
    static let configurations: [AnyLayoutConfiguration] = [
        .waterfall(LayoutConfiguration(columns: 3, width: 400)),
        .waterfall(
            LayoutConfiguration(
                columns: 2, width: 375, headerHeight: 44, footerHeight: 20,
                headerInset: EdgeInsets(top: 4, left: 0, bottom: 6, right: 0), captionHeight: 18)),
        .waterfall(
            LayoutConfiguration(
                columns: 4, width: 1024, columnSpacing: 7, rowSpacing: 3, headerHeight: 30,
                order: .leftToRight, scale: 2)),
        .waterfall(
            LayoutConfiguration(
                columns: 1, width: 320, headerHeight: 25, footerHeight: 25, order: .rightToLeft, scale: 3)),
        // Justified rows: a checkpoint waits for a row start, and a page reads to the end of
        // the row of its last image.
        .justified(JustifiedConfiguration(width: 400, rowHeight: 60)),
        .justified(
            JustifiedConfiguration(
                width: 375, rowHeight: 90, rowHeightTolerance: 0.1, lastRow: .center,
                headerHeight: 44, footerHeight: 20, captionHeight: 18)),
        .justified(
            JustifiedConfiguration(
                width: 1024, rowHeight: 120, rowHeightTolerance: 0.5, columnSpacing: 4, rowSpacing: 3,
                lastRow: .justify, headerHeight: 30, headerInset: EdgeInsets(top: 4, left: 0, bottom: 6, right: 0),
                scale: 2)),
        // Per-section overrides (DESIGN section 14), mixed kinds: moves cross sections of
        // different kinds; the last is off the half-point grid (scale 3), so hot sections after
        // a change are laid out again rather than moved.
        .sectioned(
            try! SectionedConfiguration(
                base: .waterfall(LayoutConfiguration(columns: 3, width: 400, headerHeight: 30, footerHeight: 12)),
                entries: [
                    ["section": .string("s1"), "columns": .number(1)],
                    [
                        "section": .string("s2"), "kind": .string("justified"), "rowHeight": .number(80),
                        "lastRow": .string("center"),
                    ],
                    [
                        "section": .string("s4"), "kind": .string("justified"), "rowHeight": .number(60),
                        "headerHeight": .number(0),
                    ],
                    ["section": .string("s9"), "columns": .number(5)],
                ])),
        .sectioned(
            try! SectionedConfiguration(
                base: .justified(
                    JustifiedConfiguration(
                        width: 375, rowHeight: 90, headerHeight: 44, footerHeight: 20, captionHeight: 18)),
                entries: [
                    [
                        "section": .string("s2"), "kind": .string("waterfall"), "columns": .number(2),
                        "captionHeight": .number(0),
                    ],
                    ["section": .string("s0"), "rowHeight": .number(40), "footerHeight": .number(0)],
                    [
                        "section": .string("s3"), "kind": .string("waterfall"), "columns": .number(4),
                        "order": .string("left-to-right"),
                    ],
                ])),
        .sectioned(
            try! SectionedConfiguration(
                base: .waterfall(LayoutConfiguration(columns: 4, width: 1024, headerHeight: 25, scale: 3)),
                entries: [
                    [
                        "section": .string("s1"), "kind": .string("justified"), "rowHeight": .number(100.3),
                        "headerHeight": .number(31.7),
                    ]
                ])),
    ]

    @Test(arguments: TestEngine.all, 1...6)
    func cachedAnswersEqualAFreshComputation(engine: TestEngine, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let catalog = try TestCatalog(engine, stride: 4, onDisk: true)
        // A server's services over the same catalog opened again (its own connections: another
        // process on SQLite, another instance on PostgreSQL), keeping feeds hot (DESIGN section
        // 12): every write below is made through the first opening, so the kept feed must follow
        // the change log. And one whose budget a feed outgrows: served from the cache.
        let server = try catalog.otherInstance()
        defer { server.closeWhenDone() }
        let geometry = KeptFeeds(budget: 1 << 30)
        let hot = WaterfallService(database: server, stride: 4).keepingFeeds(geometry)
        let tight = WaterfallService(database: server, stride: 4).keepingFeeds(
            KeptFeeds(budget: 45 * 28 + 6 * KeptGeometry.bytesPerSection + 4000))
        var nextID = 0
        func newSpec() -> String {
            nextID += 1
            let section = ["s1", "s2", "s3", "s4", nil].randomElement(using: &random)!
            let size = "\(Int.random(in: 1...2000, using: &random))x\(Int.random(in: 1...2000, using: &random))"
            let full = Int.random(in: 0..<10, using: &random) == 0 ? "!" : ""
            return "i\(nextID)" + (section.map { "@\($0)" } ?? "") + ":" + size + full
        }
        // A server read without blocking wherever it can be: after its copies are loaded, it
        // follows each change itself, in the read that finds the copy behind.
        let follower = WaterfallService(database: server, stride: 4).keepingFeeds(KeptFeeds(budget: 1 << 30))
        try await catalog.importFeed((0..<40).map { _ in newSpec() }, sections: ["s0", "s2"])
        for configuration in Self.configurations.prefix(2) {
            _ = try await catalog.service.page(feed: "f", layout: .inline(configuration), offset: 0, limit: 1)
        }
        for configuration in Self.configurations {
            _ = try await follower.page(feed: "f", layout: .inline(configuration), offset: 0, limit: 1)
        }
        var named: AnyLayoutConfiguration?
        for step in 0..<30 {
            let ids = try await catalog.order().map { String($0.split(separator: "/", maxSplits: 1)[1]) }
            let change = Int.random(in: 0..<11, using: &random)
            switch change {
            case 0, 1:
                // Snapshot: keep most images (some with new sizes or sections), drop some, add some.
                var specs: [String] = []
                for id in ids where Int.random(in: 0..<8, using: &random) > 0 {
                    let spec = newSpec()
                    specs.append(id + spec[spec.firstIndex(where: { $0 == "@" || $0 == ":" })!...])
                }
                for _ in 0..<Int.random(in: 0...12, using: &random) {
                    specs.insert(newSpec(), at: Int.random(in: 0...specs.count, using: &random))
                }
                let declared = ["s0", "s2", "s5"].filter { _ in Bool.random(using: &random) }
                try await catalog.importFeed(
                    specs, sections: declared, resetOrder: Int.random(in: 0..<5, using: &random) == 0)
            case 2:
                try await catalog.importFeed(
                    (0..<Int.random(in: 1...6, using: &random)).map { _ in newSpec() }, mode: .append)
            case 3, 4, 5:
                guard ids.count > 1, let id = ids.randomElement(using: &random),
                    let other = ids.filter({ $0 != id }).randomElement(using: &random)
                else { continue }
                let target: MoveTarget =
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: .before(other)
                    case 1: .after(other)
                    default: .index(0)
                    }
                _ = try await catalog.service.move(feed: "f", id: id, to: target)
            case 6:
                // A drag of a few images, or now and then a large reorder of up to 300 (past the
                // follow limit on a feed that large: the copy is loaded anew).
                let most = Int.random(in: 0..<3, using: &random) == 0 ? 300 : 8
                let chosen = Array(ids.shuffled(using: &random).prefix(Int.random(in: 1...most, using: &random)))
                _ = try await catalog.service.reorder(.init(feed: "f", operations: .order(chosen)), feed: "f")
            case 7:
                guard ids.count > 3 else { continue }
                _ = try await catalog.service.remove(feed: "f", ids: Array(ids.shuffled(using: &random).prefix(2)))
            case 8:
                // A re-import too large to follow (issue 37, fault 1): 300 images more, or all
                // but a tenth fewer; a copy is loaded anew, and no plan of the old one may hold.
                if ids.count > 300 {
                    var specs: [String] = []
                    for id in ids where Int.random(in: 0..<10, using: &random) == 0 {
                        let spec = newSpec()
                        specs.append(id + spec[spec.firstIndex(where: { $0 == "@" || $0 == ":" })!...])
                    }
                    try await catalog.importFeed(specs.isEmpty ? [newSpec()] : specs)
                } else {
                    try await catalog.importFeed((0..<300).map { _ in newSpec() }, mode: .append)
                }
            case 9:
                // The feed removed and made anew under its name (SQLite gives it the same id).
                guard Bool.random(using: &random) else { continue }
                try await catalog.service.removeFeed(named: "f")
                try await catalog.importFeed(
                    (0..<Int.random(in: 1...30, using: &random)).map { _ in newSpec() }, sections: ["s2"])
            case 10:
                // A named layout added, or changed to another configuration (its answers are the
                // new configuration's from then on, hot or not).
                named = Self.configurations.randomElement(using: &random)!
                _ = try await catalog.service.addLayout(feed: "f", name: "named", configuration: named!)
            default:
                break
            }
            // A feed made anew has no named layouts.
            if try await catalog.service.layouts(feed: "f").isEmpty { named = nil }
            // The named layout answers as its configuration inline.
            if let named {
                let offset = await Int.random(in: 0...(try catalog.service.feeds().feeds[0].images + 2), using: &random)
                let inline = try await catalog.service.page(feed: "f", layout: .inline(named), offset: offset, limit: 7)
                for server in [catalog.service, hot, tight, follower] {
                    let page = try await server.page(feed: "f", layout: .named("named"), offset: offset, limit: 7)
                    #expect(
                        page.items == inline.items && page.headers == inline.headers && page.footers == inline.footers,
                        "named layout, seed \(seed) step \(step) offset \(offset)")
                    #expect(page.contentHeight == inline.contentHeight && page.layout == "named")
                    let index = try await server.sectionIndex(feed: "f", layout: .named("named"))
                    await #expect(
                        index.sections
                            == (try catalog.service.sectionIndex(feed: "f", layout: .inline(named)).sections),
                        "named layout's section index, seed \(seed) step \(step)")
                }
                if let unblocked = try await hot.keptPage(
                    feed: "f", layout: .named("named"), offset: offset, limit: 7)
                {
                    #expect(
                        unblocked.items == inline.items && unblocked.contentHeight == inline.contentHeight,
                        "named layout without blocking, seed \(seed) step \(step) offset \(offset)")
                }
            }
            // Query every configuration at random places and compare with a fresh layout.
            let fresh = try await FreshLayouts(catalog: catalog)
            for configuration in Self.configurations {
                let expected = fresh.layout(configuration)
                let total = fresh.itemCount
                let offset = Int.random(in: 0...(total + 2), using: &random)
                let limit = Int.random(in: 1...9, using: &random)
                let page = try await catalog.service.page(
                    feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                let reference = fresh.page(expected, offset: offset, limit: limit)
                #expect(page.contentHeight == expected.contentHeight, "seed \(seed) step \(step)")
                #expect(page.totalItems == total)
                #expect(
                    page.items.map(\.frame) == reference.items.map(\.frame),
                    "seed \(seed) step \(step) offset \(offset)")
                #expect(page.items.map(\.id) == reference.items.map(\.id))
                #expect(page.headers == reference.headers, "seed \(seed) step \(step) offset \(offset) limit \(limit)")
                #expect(page.footers == reference.footers, "seed \(seed) step \(step) offset \(offset) limit \(limit)")
                // The follower: after a move (a short change log, no renumbering behind it), the
                // kept feed's way follows it and answers; when it cannot, the layout cache's way
                // does, as a server's would.
                let followed = try await follower.keptPage(
                    feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                if (3...5).contains(change) {
                    #expect(followed != nil, "follower, seed \(seed) step \(step)")
                }
                let followerPage =
                    if let followed { followed } else {
                        try await follower.page(feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                    }
                #expect(followerPage == page, "follower, seed \(seed) step \(step) offset \(offset) limit \(limit)")
                for server in [hot, tight] {
                    let kept = try await server.page(
                        feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                    #expect(kept == page, "kept feed, seed \(seed) step \(step) offset \(offset) limit \(limit)")
                }
                // Again the kept feed's way alone: the copy the read above brought to this revision
                // answers (over the budget, the caller reads as above).
                let unblocked = try await hot.keptPage(
                    feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                #expect(unblocked != nil, "seed \(seed) step \(step)")
                if let unblocked {
                    #expect(
                        unblocked == page, "without blocking, seed \(seed) step \(step) offset \(offset) limit \(limit)"
                    )
                }
                if let overBudget = try await tight.keptPage(
                    feed: "f", layout: .inline(configuration), offset: offset, limit: limit)
                {
                    #expect(
                        overBudget == page,
                        "without blocking, tight budget, seed \(seed) step \(step) offset \(offset) limit \(limit)")
                }

                let y = Double.random(in: -50...(expected.contentHeight + 50), using: &random)
                let height = Double.random(in: 1...600, using: &random)
                let pin: Double? = Bool.random(using: &random) ? Double.random(in: 0...60, using: &random) : nil
                let viewport = try await catalog.service.viewport(
                    feed: "f", layout: .inline(configuration), y: y, height: height, pinOffset: pin)
                let band = fresh.viewport(expected, y: y, height: height, pinOffset: pin)
                #expect(viewport.items.map(\.index) == band.items.map(\.index), "seed \(seed) step \(step) y \(y)")
                #expect(viewport.items.map(\.frame) == band.items.map(\.frame))
                #expect(
                    viewport.headers == band.headers, "seed \(seed) step \(step) y \(y) pin \(String(describing: pin))")
                #expect(viewport.footers == band.footers, "seed \(seed) step \(step) y \(y)")
                for server in [hot, tight] {
                    let kept = try await server.viewport(
                        feed: "f", layout: .inline(configuration), y: y, height: height, pinOffset: pin)
                    #expect(
                        kept == viewport,
                        "kept feed, seed \(seed) step \(step) y \(y) height \(height) pin \(String(describing: pin))")
                }
                let unblockedBand = try await hot.keptViewport(
                    feed: "f", layout: .inline(configuration), y: y, height: height, pinOffset: pin)
                #expect(unblockedBand != nil, "seed \(seed) step \(step)")
                if let unblockedBand {
                    #expect(
                        unblockedBand == viewport,
                        "without blocking, seed \(seed) step \(step) y \(y) height \(height) pin \(String(describing: pin))"
                    )
                }

                // The section index (DESIGN section 14): from the cache, and from the kept feeds.
                let index = try await catalog.service.sectionIndex(feed: "f", layout: .inline(configuration))
                #expect(index.sections == fresh.sectionIndex(expected), "seed \(seed) step \(step)")
                #expect(index.contentHeight == expected.contentHeight)
                for server in [hot, tight] {
                    await #expect(
                        try server.sectionIndex(feed: "f", layout: .inline(configuration)) == index,
                        "kept feed, seed \(seed) step \(step)")
                }
                let unblockedIndex = try await hot.keptSectionIndex(feed: "f", layout: .inline(configuration))
                #expect(unblockedIndex == index, "the kept feed's way, seed \(seed) step \(step)")
            }
            // The answers above came from the kept feed, followed to the catalog's revision.
            let revision = try await catalog.service.feeds().feeds.first?.revision
            #expect(geometry.report.map(\.revision) == [revision].compactMap { $0 }, "seed \(seed) step \(step)")
            #expect(geometry.report.first?.images == fresh.itemCount)
            // The cover flow, cached the same way, against a scan of the whole row.
            for configuration in Self.coverFlows {
                let layout = try CoverFlowLayout(configuration)
                let frames = layout.frames(fresh.sections.flatMap { $0.items.map(\.item) })
                let contentWidth = layout.contentWidth(frames: frames)
                for _ in 0..<3 {
                    let x = Double.random(in: -300...(contentWidth + 300), using: &random).rounded()
                    let width = [1.0, 37, 390, 2000].randomElement(using: &random)!
                    let answer = try await catalog.service.coverFlow(
                        feed: "f", configuration: configuration, x: x, viewportWidth: width)
                    let visible = layout.visible(frames, x: x, viewportWidth: width)
                    #expect(answer.items.map(\.index) == visible, "seed \(seed) step \(step) x \(x) width \(width)")
                    #expect(answer.items.map(\.frame) == visible.map { frames[$0] })
                    #expect(answer.items.map(\.id) == visible.map { fresh.ids[$0] })
                    #expect(answer.contentWidth == contentWidth)
                    #expect(answer.totalItems == frames.count)
                    #expect(
                        answer.snapOffset == layout.snapOffset(frames, proposed: x, viewportWidth: width),
                        "seed \(seed) step \(step) x \(x) width \(width)")
                }
            }
        }
    }

    @Test(arguments: TestEngine.all) func aFeedKeepsAFewInlineCachesBesideItsNamedLayouts(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importFeed((0..<30).map { "i\($0):\(100 + 7 * $0)x100" })
        let named = AnyLayoutConfiguration.waterfall(LayoutConfiguration(columns: 2, width: 300))
        try await catalog.service.addLayout(feed: "f", name: "phone", configuration: named)
        _ = try await catalog.service.page(feed: "f", layout: .named("phone"), offset: 0, limit: 5)
        // A window resized through twenty widths: one inline configuration each.
        for width in 0..<20 {
            let inline = AnyLayoutConfiguration.waterfall(LayoutConfiguration(columns: 3, width: Double(400 + width)))
            _ = try await catalog.service.page(feed: "f", layout: .inline(inline), offset: 0, limit: 5)
        }
        let caches = try await catalog.service.stats().layouts
        #expect(caches.filter { $0.layouts.isEmpty }.count == LayoutCacheRecord.maximumUnnamedEntries)
        #expect(caches.contains { $0.layouts == ["phone"] && $0.complete })
        // The newest inline configurations are the ones kept.
        #expect(caches.contains { $0.configuration?.width == 419 })
        #expect(!caches.contains { $0.configuration?.width == 400 })
    }

    /// A layout reads only its sections' ids, and names and titles only for the sections an
    /// answer shows: both reads must agree with the whole list.
    @Test(arguments: TestEngine.all) func sectionIdsAndLabelsAgreeWithTheWholeSectionList(engine: TestEngine)
        async throws
    {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed(["a@s1", "b", "c@s2", "d@s3", "e@s1"], sections: ["s3", "s2"])
        let (whole, ids, some, none) = try await catalog.service.database.read { tx in
            let feed = try #require(try tx.feed(named: "f"))
            let whole = try tx.sections(feedID: feed.id)
            let last = whole[whole.count - 1].id
            let first = whole[0].id
            return (
                whole, try tx.sectionIDs(feedID: feed.id), try tx.sections(ids: [last, 987_654_321, first, last]),
                try tx.sections(ids: [])
            )
        }
        #expect(whole.map { $0.name ?? "-" } == ["s3", "s2", "s1", "-"])
        #expect(ids == whole.map(\.id))
        #expect(some.sorted { $0.id < $1.id } == [whole[0], whole[whole.count - 1]].sorted { $0.id < $1.id })
        #expect(none.isEmpty)
        // Headers name their sections and carry their titles.
        let page = try await catalog.service.page(
            feed: "f", layout: .inline(.waterfall(LayoutConfiguration(columns: 2, width: 300, headerHeight: 20))),
            offset: 0, limit: 10)
        #expect(page.headers.map { $0.section ?? "-" } == ["s3", "s2", "s1", "-"])
        #expect(page.headers.map { $0.title } == ["Title s3", "Title s2", nil, nil])
    }

    @Test(arguments: TestEngine.all) func coverFlowsOfEveryFactorShareOneCache(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine, stride: 4)
        try await catalog.importFeed((0..<30).map { "i\($0):\(100 + 7 * $0)x100" })
        for factor in [0.001, 0.003, 0.01] {
            _ = try await catalog.service.coverFlow(
                feed: "f", configuration: CoverFlowConfiguration(itemHeight: 80, factor: factor), x: 500,
                viewportWidth: 300)
        }
        let caches = try await catalog.service.stats().layouts.filter { $0.kind == "coverflow" }
        #expect(caches.count == 1)
        #expect(caches.first?.complete == true)
    }

    static let coverFlows: [CoverFlowConfiguration] = [
        CoverFlowConfiguration(itemHeight: 120),
        CoverFlowConfiguration(itemHeight: 33, spacing: 0, sectionInset: .zero, factor: 0.01, scale: 3),
    ]
}

/// Lays the catalog out from scratch (no cache) and answers pages and viewports by brute force.
struct FreshLayouts {
    let sections: [(name: String?, title: String?, items: [(id: String, item: LayoutItem)])]

    init(catalog: TestCatalog) async throws {
        sections = try await catalog.service.database.read { tx in
            let feed = try tx.feed(named: "f")!
            let images = try tx.allImages(feedID: feed.id)
            return try tx.sections(feedID: feed.id).map { section in
                (
                    section.name, section.title,
                    images.filter { $0.sectionID == section.id }.map {
                        ($0.externalID, LayoutItem(width: $0.width, height: $0.height, isFullSpan: $0.isFullSpan))
                    }
                )
            }
        }
    }

    var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }
    var ids: [String] { sections.flatMap { $0.items.map(\.id) } }

    /// A whole layout of any kind, as the engines' own bulk runs give it.
    struct Layout {
        var itemFrames: [Frame]
        var sections: [SectionLayout]
        var contentHeight: Double
        /// Where section `index`'s header is pinned.
        var pinnedHeader:
            (_ section: Int, _ natural: Frame, _ sectionEnd: Double, _ viewportY: Double, _ pinOffset: Double) ->
                PinnedHeader
    }

    func layout(_ configuration: AnyLayoutConfiguration) -> Layout {
        let items = sections.map { $0.items.map(\.item) }
        switch configuration {
        case .waterfall(let configuration):
            let engine = try! WaterfallLayout(configuration)
            let layout = engine.layout(items)
            return Layout(
                itemFrames: layout.itemFrames, sections: layout.sections, contentHeight: layout.contentHeight,
                pinnedHeader: { engine.pinnedHeader(natural: $1, sectionEnd: $2, viewportY: $3, pinOffset: $4) })
        case .justified(let configuration):
            let engine = try! JustifiedLayout(configuration)
            let layout = engine.layout(items)
            return Layout(
                itemFrames: layout.itemFrames, sections: layout.sections, contentHeight: layout.contentHeight,
                pinnedHeader: { engine.pinnedHeader(natural: $1, sectionEnd: $2, viewportY: $3, pinOffset: $4) })
        case .sectioned(let sectioned):
            return stacked(sectioned, items)
        }
    }

    /// DESIGN section 14 read literally: each section laid out by its own kind's engine, alone,
    /// from the `y` where the previous one ended.
    private func stacked(_ configuration: SectionedConfiguration, _ items: [[LayoutItem]]) -> Layout {
        var frames: [Frame] = []
        var laidOut: [SectionLayout] = []
        var chromes: [SectionChrome] = []
        var y = 0.0
        for (ordinal, section) in sections.enumerated() {
            let own = configuration.overrides.first { $0.section == section.name }?.configuration ?? configuration.base
            let one: (frames: [Frame], section: SectionLayout, end: Double)
            switch own {
            case .waterfall(let own):
                one = Self.section(try! WaterfallLayout(own), items[ordinal], at: y, first: frames.count)
            case .justified(let own):
                one = Self.section(try! JustifiedLayout(own), items[ordinal], at: y, first: frames.count)
            case .sectioned: fatalError("a section's configuration has no sections")
            }
            chromes.append(own.chrome)
            frames += one.frames
            laidOut.append(one.section)
            y = one.end
        }
        return Layout(
            itemFrames: frames, sections: laidOut, contentHeight: max(y, configuration.base.minimumContentHeight)
        ) { section, natural, sectionEnd, viewportY, pinOffset in
            chromes[section].pinnedHeader(
                natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
        }
    }

    /// One section opened at `y` and laid out image by image.
    private static func section<Kind: StreamingLayoutKind>(
        _ engine: Kind, _ items: [LayoutItem], at y: Double, first: Int
    ) -> (frames: [Frame], section: SectionLayout, end: Double) {
        var state = engine.state(betweenSectionsAt: y)
        let header = engine.openSection(&state)
        var frames = Array(repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
        for item in items { engine.append(item, &state) { frames[$0] = $1 } }
        let end = engine.closeSection(&state) { frames[$0] = $1 }
        let section = SectionLayout(
            header: header, footer: end.footer, items: first..<(first + items.count), sectionStartY: y,
            sectionEnd: end.sectionEnd)
        return (frames, section, state.y)
    }

    /// The catalog index whose page carries a section's header and footer (DESIGN section 2).
    private func owners(_ layout: Layout) -> [(header: Int, footer: Int)] {
        layout.sections.enumerated().map { index, section in
            if !section.items.isEmpty { return (section.items.lowerBound, section.items.upperBound - 1) }
            let next = layout.sections[(index + 1)...].first { !$0.items.isEmpty }?.items.lowerBound
            let owner = next ?? max(itemCount - 1, 0)
            return (owner, owner)
        }
    }

    func page(_ layout: Layout, offset: Int, limit: Int) -> (
        items: [PlacedImage], headers: [PlacedSupplement], footers: [PlacedSupplement]
    ) {
        let range = offset..<(offset + limit)
        let ids = self.ids
        let items = range.clamped(to: 0..<itemCount).map { index in
            PlacedImage(
                index: index, id: ids[index], section: nil, frame: layout.itemFrames[index], url: nil, title: nil,
                pixelWidth: 0, pixelHeight: 0)
        }
        var headers: [PlacedSupplement] = []
        var footers: [PlacedSupplement] = []
        for (index, owner) in owners(layout).enumerated() {
            let section = layout.sections[index]
            if let header = section.header, range.contains(owner.header) {
                headers.append(
                    PlacedSupplement(
                        section: sections[index].name, frame: header, pinned: false, title: sections[index].title))
            }
            if let footer = section.footer, range.contains(owner.footer) {
                footers.append(
                    PlacedSupplement(
                        section: sections[index].name, frame: footer, pinned: nil, title: sections[index].title))
            }
        }
        return (items, headers, footers)
    }

    /// The section index: each section from its start to the next one's (the last to the
    /// content's bottom: these configurations have no minimum content height).
    func sectionIndex(_ layout: Layout) -> [SectionIndex.Section] {
        var index = 0
        return sections.indices.map { ordinal in
            let start = layout.sections[ordinal].sectionStartY
            let end = ordinal + 1 < sections.count ? layout.sections[ordinal + 1].sectionStartY : layout.contentHeight
            defer { index += sections[ordinal].items.count }
            return SectionIndex.Section(
                section: sections[ordinal].name, title: sections[ordinal].title ?? sections[ordinal].name, index: index,
                count: sections[ordinal].items.count, y: start, height: end - start)
        }
    }

    func viewport(_ layout: Layout, y: Double, height: Double, pinOffset: Double?) -> (
        items: [PlacedImage], headers: [PlacedSupplement], footers: [PlacedSupplement]
    ) {
        func meets(_ frame: Frame) -> Bool { frame.minY < y + height && frame.maxY > y }
        let ids = self.ids
        let items = layout.itemFrames.indices.filter { meets(layout.itemFrames[$0]) }.map { index in
            PlacedImage(
                index: index, id: ids[index], section: nil, frame: layout.itemFrames[index], url: nil, title: nil,
                pixelWidth: 0, pixelHeight: 0)
        }
        var headers: [PlacedSupplement] = []
        var footers: [PlacedSupplement] = []
        for (index, section) in layout.sections.enumerated() {
            let name = sections[index].name
            let visible =
                section.header.map(meets) == true || section.footer.map(meets) == true
                || section.items.contains { meets(layout.itemFrames[$0]) }
            if let pinOffset, let header = section.header {
                if visible {
                    let pinned = layout.pinnedHeader(index, header, section.sectionEnd, y, pinOffset)
                    headers.append(
                        PlacedSupplement(
                            section: name, frame: pinned.frame, pinned: pinned.isPinned, title: sections[index].title))
                }
            } else if let header = section.header, meets(header) {
                headers.append(
                    PlacedSupplement(section: name, frame: header, pinned: false, title: sections[index].title))
            }
            if let footer = section.footer, meets(footer) {
                footers.append(
                    PlacedSupplement(section: name, frame: footer, pinned: nil, title: sections[index].title))
            }
        }
        return (items, headers, footers)
    }
}
