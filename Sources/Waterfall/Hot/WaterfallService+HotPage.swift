import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// The same service, keeping feeds' geometry and layouts in `hot` (a server: DESIGN
    /// section 12). Pages then read only their own rows, whatever was written before them.
    public func keepingHotGeometry(_ hot: HotGeometry) -> WaterfallService {
        var service = self
        service.hot = hot
        return service
    }

    /// The hot copy's geometry and placement of `engine`'s layout of `query` at its feed's
    /// revision, for a read inside the transaction `tx` that resolved it (``HotGeometry/placement``).
    func hotLookup<Kind: StreamingLayoutKind>(
        engine: Kind, _ query: LayoutQuery, _ tx: any CatalogTransaction
    ) throws -> HotRead<(HotFeedGeometry, HotPlacement<Kind>)> {
        guard let hot else { return .notKept }
        // A copy newer than the reader's snapshot is another reader's unless this is the read's
        // second try and the feed's id may have been given to a feed made anew.
        let mayBeAhead = hotCopyMayBeAhead || !database.reusesFeedIDs
        return try hot.placement(
            feed: query.feed, engine: engine, key: query.configuration.canonicalJSON, stride: stride, mayBeAhead: mayBeAhead, tx)
    }

    /// ``page(feed:layout:offset:limit:)`` from the hot copy, inside the read transaction that
    /// resolved `query`: lays out, in memory, from the section checkpoint before `offset` to the
    /// end of the page's last row and one image more (which closes its section), then reads the
    /// page's own rows by the copy's keys and checks them against it.
    func hotPage<Kind: StreamingLayoutKind>(
        engine: Kind, _ query: LayoutQuery, offset: Int, limit: Int, _ tx: any CatalogTransaction
    ) throws -> HotRead<LayoutPage> {
        try hotLookup(engine: engine, query, tx).flatMap { geometry, placement in
            let laidOut = try HotPageLayout(
                (offset, limit), engine: engine, geometry: geometry, placement: placement, configuration: query.configuration)
            return try answer(laidOut, feed: query.feed, tx) { rows, labels in page(laidOut, rows: rows, labels: labels, query) }
        }
    }

    /// The answer of `laidOut`, made by `make` from its rows and its sections' labels read in
    /// `tx`; `.notKept` when the rows are not what the copy holds (the copy is then dropped).
    private func answer<Laid: HotLaidOut, Answer>(
        _ laidOut: Laid, feed: FeedRecord, _ tx: any CatalogTransaction, _ make: ([ImageRecord], SectionLabels) -> Answer
    ) throws -> HotRead<Answer> {
        let wanted = laidOut.rows
        let rows = try wanted.firstKey.map { try tx.images(feedID: feed.id, fromKey: $0, limit: wanted.count) } ?? []
        guard wanted.agree(with: rows) else {
            hot?.forget(feedID: feed.id)
            return .notKept
        }
        return .ready(make(rows, try SectionLabels(laidOut.sectionIDs, tx)))
    }

    /// ``page(feed:layout:offset:limit:)`` of a feed the hot copy holds at its current revision
    /// with the layout placed, waiting for the database without blocking a thread where the
    /// engine can (``answerWithoutBlocking(feed:layout:_:_:finish:)``); `nil` when it cannot
    /// answer so, and the caller asks ``page(feed:layout:offset:limit:)``.
    /// - Throws: ``WaterfallError`` `database` when the database fails.
    public func pageWithoutBlocking(feed name: String, layout: LayoutSource, offset: Int, limit: Int) async throws(WaterfallError) -> LayoutPage? {
        guard (try? Self.validateSlice(offset: offset, limit: limit)) != nil else { return nil }
        return try await answerWithoutBlocking(feed: name, layout: layout, HotPageLayout.self, (offset, limit)) { service, reads, laidOut, query in
            guard let (rows, labels) = try await service.rowsAndLabels(of: laidOut, feed: query.feed, reads) else { return nil }
            return service.page(laidOut, rows: rows, labels: labels, query)
        }
    }

    /// ``viewport(feed:layout:y:height:pinOffset:)`` as ``pageWithoutBlocking(feed:layout:offset:limit:)``
    /// answers a page: `nil` when it cannot, and the caller asks
    /// ``viewport(feed:layout:y:height:pinOffset:)``.
    /// - Throws: ``WaterfallError`` `database` when the database fails.
    public func viewportWithoutBlocking(
        feed name: String, layout: LayoutSource, y: Double, height: Double, pinOffset: Double?
    ) async throws(WaterfallError) -> ViewportPage? {
        guard (try? Self.validateBand(y: y, height: height, pinOffset: pinOffset)) != nil else { return nil }
        return try await answerWithoutBlocking(feed: name, layout: layout, HotViewportLayout.self, (y, height, pinOffset)) { service, reads, laidOut, query in
            guard let (rows, labels) = try await service.rowsAndLabels(of: laidOut, feed: query.feed, reads) else { return nil }
            return service.viewportPage(laidOut, rows: rows, labels: labels, query)
        }
    }

    /// ``sectionIndex(feed:layout:)`` as ``pageWithoutBlocking(feed:layout:offset:limit:)``
    /// answers a page (its only other read: the feed's sections); `nil` when it cannot, and the
    /// caller asks ``sectionIndex(feed:layout:)``.
    /// - Throws: ``WaterfallError`` `database` when the database fails.
    public func sectionIndexWithoutBlocking(feed name: String, layout: LayoutSource) async throws(WaterfallError) -> SectionIndex? {
        try await answerWithoutBlocking(feed: name, layout: layout, HotSectionBounds.self, ()) { service, reads, laidOut, query in
            service.sectionIndex(laidOut, records: try await reads.sections(feedID: query.feed.id), query)
        }
    }

    /// An answer from a feed the hot copy holds, waiting for the database without blocking a
    /// thread where the engine can (PostgreSQL: ``CatalogStore/readWithoutBlocking(_:)``): in
    /// one read transaction, the feed, the named layout, and what `finish` reads to complete the
    /// answer (its rows and its sections' labels). `Laid` lays the answer asked by `question`
    /// out from the copy, found reading nothing (``ReadyHotAnswer``). A copy behind the feed's revision is brought
    /// there first by the change log, read in the same transaction by the first such reader,
    /// while the others of that revision wait for it (``HotGeometry/follow(_:reading:)``); a
    /// layout kept at an earlier revision is placed at this one in memory.
    ///
    /// `nil` when it cannot answer so, and the caller asks the synchronous method, which does
    /// everything this leaves out: no hot copy, or an engine without such reads; no copy of the
    /// feed or no such layout kept yet, a copy too far behind to follow, or one another reader
    /// is following to another revision; a copy that disagrees with the catalog (dropped); an
    /// answer that would be an error, which that method words.
    private func answerWithoutBlocking<Laid: HotAnswerLayout, Answer: Sendable>(
        feed name: String, layout: LayoutSource, _ laid: Laid.Type, _ question: Laid.Question,
        finish: @escaping @Sendable (WaterfallService, any CatalogPageReads, Laid, LayoutQuery) async throws -> Answer?
    ) async throws(WaterfallError) -> Answer? {
        guard let hot else { return nil }
        let service = self
        do {
            let answer = try await database.readWithoutBlocking { reads -> Answer? in
                guard let feed = try await reads.feed(named: name), (try? service.checkExpectedRevision(of: feed, named: name)) != nil else { return nil }
                var record: NamedLayoutRecord?
                if case .named(let layoutName) = layout {
                    record = try await reads.layout(feedID: feed.id, name: layoutName)
                }
                guard let (layoutName, configuration) = try? layout.resolved(feed: feed, record: record) else { return nil }
                var sections: [SectionRecord]?
                var followed = false
                // Each step at most once: follow, read the sections, lay out.
                while true {
                    let read = sections
                    let attempt = try await hot.withFeedWithoutBlocking(feed) { held in
                        try configuration.withEngine(ReadyHotAnswer<Laid>(
                            held: held, configuration: configuration, stride: service.stride, question: question, sections: read))
                    }
                    switch attempt ?? .notKept {
                    case .ready(let laidOut):
                        return try await finish(service, reads, laidOut, LayoutQuery(feed: feed, name: layoutName, configuration: configuration))
                    case .behind where !followed:
                        followed = true
                        guard try await hot.follow(feed, reading: { copy in try await copy.followReads(to: feed, reads) }) else { return nil }
                    case .needsSections where sections == nil:
                        sections = try await reads.sections(feedID: feed.id)
                    default:
                        return nil
                    }
                }
            }
            return answer ?? nil
        } catch {
            throw WaterfallError(error)
        }
    }

    /// The rows of `laidOut` and its sections' labels, read without blocking; `nil` when the
    /// rows are not what the copy holds (the copy is then dropped).
    private func rowsAndLabels(
        of laidOut: some HotLaidOut, feed: FeedRecord, _ reads: any CatalogPageReads
    ) async throws -> ([ImageRecord], SectionLabels)? {
        let wanted = laidOut.rows
        var rows: [ImageRecord] = []
        if let key = wanted.firstKey { rows = try await reads.images(feedID: feed.id, fromKey: key, limit: wanted.count) }
        guard wanted.agree(with: rows) else {
            hot?.forget(feedID: feed.id)
            return nil
        }
        return (rows, SectionLabels(try await reads.sections(ids: laidOut.sectionIDs)))
    }

    /// The page of `laidOut` with its rows and its sections' labels.
    private func page(_ laidOut: HotPageLayout, rows: [ImageRecord], labels: SectionLabels, _ query: LayoutQuery) -> LayoutPage {
        let parts = assemble(laidOut.elements, rows: rows, firstIndex: laidOut.offset, labels: labels, scale: query.configuration.common.scale)
        let total = laidOut.rows.geometry.count
        return LayoutPage(
            feed: query.feed.name, revision: query.feed.revision, layout: query.name, contentHeight: laidOut.contentHeight,
            totalItems: total, nextOffset: laidOut.offset + laidOut.limit < total ? laidOut.offset + laidOut.limit : nil,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
    }
}

/// An answer laid out from the hot copy, in memory, before anything is read for it: a page, a
/// viewport, a section index, from what is asked of it (``Question``).
protocol HotAnswerLayout: Sendable {
    /// What is asked: a page's offset and limit, a viewport's band.
    associatedtype Question: Sendable
    init<Kind: StreamingLayoutKind>(
        _ question: Question, engine: Kind, geometry: HotFeedGeometry, placement: HotPlacement<Kind>,
        configuration: AnyLayoutConfiguration) throws
}

/// An answer laid out from the hot copy that shows images, before their rows are read.
protocol HotLaidOut: HotAnswerLayout {
    /// Its headers, images and footers.
    var elements: [PlacedElement] { get }
    /// The rows of its images.
    var rows: HotRows { get }
}

extension HotLaidOut {
    /// The sections it shows, each once, in order.
    var sectionIDs: [Int64] { Self.sectionIDs(of: elements) }

    /// The sections `elements` show, each once, in order.
    static func sectionIDs(of elements: [PlacedElement]) -> [Int64] {
        var seen: Set<Int64> = []
        return elements.compactMap { seen.insert($0.sectionID).inserted ? $0.sectionID : nil }
    }
}

/// The rows an answer from the hot copy reads: `count` images in catalog order from index
/// `first`, read by the copy's order key of the first.
struct HotRows {
    let geometry: HotFeedGeometry
    let first: Int
    let count: Int
    /// Where the rows are read from (`nil`: none are).
    let firstKey: Int64?

    init(_ geometry: HotFeedGeometry, first: Int, count: Int) {
        self.geometry = geometry
        self.first = first
        self.count = count
        if count > 0 {
            var images = HotImages(geometry, from: geometry.locate(first))
            firstKey = images.peek()!.key
        } else {
            firstKey = nil
        }
    }

    /// Whether `rows`, read from ``firstKey``, are these images as the copy has them; if not,
    /// the copy disagrees with the catalog and must be dropped.
    func agree(with rows: [ImageRecord]) -> Bool {
        guard rows.count == count else { return false }
        guard count > 0 else { return true }
        var check = HotImages(geometry, from: geometry.locate(first))
        return rows.allSatisfy { row in check.next() == row.geometry }
    }
}

/// A page laid out from the hot copy: from the section checkpoint before its first image to the
/// end of its last image's row and one image more (which closes that image's section).
struct HotPageLayout: HotLaidOut {
    let offset: Int
    let limit: Int
    let contentHeight: Double
    let elements: [PlacedElement]
    let rows: HotRows

    /// The page of `limit` images from catalog index `offset`.
    init<Kind: StreamingLayoutKind>(
        _ question: (offset: Int, limit: Int), engine: Kind, geometry: HotFeedGeometry, placement: HotPlacement<Kind>,
        configuration: AnyLayoutConfiguration
    ) throws {
        let (offset, limit) = question
        let total = geometry.count
        let range = offset..<(offset + limit)
        let expected = max(0, min(range.upperBound, total) - offset)
        var (images, runner) = Self.resume(geometry, placement, engine, before: min(offset, max(total - 1, 0)))
        var sink = CollectingSink { range.contains($0.owner) }
        while let image = images.peek() {
            if runner.nextIndex > range.upperBound && sink.itemCount >= expected { break }
            try runner.place(image, into: &sink)
            _ = images.next()
        }
        if images.peek() == nil { _ = runner.finish(into: &sink) }
        self.offset = offset
        self.limit = limit
        contentHeight = placement.contentHeight
        elements = sink.elements
        rows = HotRows(geometry, first: offset, count: expected)
    }

    /// A ``LayoutRunner`` resumed before catalog index `index` (`0..<count`, or 0 in an empty
    /// feed) at the section checkpoint before it (or at the start of its section, after the
    /// empty sections before it, whose headers and footers go with its first image), with the
    /// images from there.
    private static func resume<Kind: StreamingLayoutKind>(
        _ geometry: HotFeedGeometry, _ placement: HotPlacement<Kind>, _ engine: Kind, before index: Int
    ) -> (HotImages, LayoutRunner<Kind>) {
        let ids = geometry.sectionIDs
        guard geometry.count > 0 else {
            return (
                HotImages(geometry, from: (geometry.sections.count, 0)),
                LayoutRunner(engine: engine, sections: ids, variants: placement.variants, state: engine.initialState, ordinal: -1, nextIndex: 0))
        }
        let target = geometry.locate(index)
        if let checkpoint = placement.checkpoint(section: target.section, atOrBefore: target.local) {
            return (
                HotImages(geometry, from: (target.section, checkpoint.index)),
                LayoutRunner(
                    engine: engine, sections: ids, variants: placement.variants, state: checkpoint.state, ordinal: target.section,
                    nextIndex: geometry.start(of: target.section) + checkpoint.index))
        }
        var first = target.section
        while first > 0 && geometry.sections[first - 1].keys.isEmpty { first -= 1 }
        return (
            HotImages(geometry, from: (target.section, 0)),
            LayoutRunner(
                engine: engine, sections: ids, variants: placement.variants, state: engine.state(betweenSectionsAt: placement.origin(of: first)),
                ordinal: first - 1, nextIndex: geometry.start(of: target.section)))
    }
}

/// `Laid`, the answer asked by `question`, laid out from the hot copy `held` when its geometry
/// is at the feed's revision, found reading nothing
/// (``HotHeldFeed/readyPlacement(engine:key:stride:sections:)``); else what the copy lacks.
private struct ReadyHotAnswer<Laid: HotAnswerLayout>: EngineWork {
    let held: HotHeldFeed
    let configuration: AnyLayoutConfiguration
    let stride: Int
    let question: Laid.Question
    /// The feed's sections, once read for a layout whose sections may differ.
    let sections: [SectionRecord]?

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> HotRead<Laid> {
        try held.readyPlacement(engine: engine, key: configuration.canonicalJSON, stride: stride, sections: sections).map { geometry, placement in
            try Laid(question, engine: engine, geometry: geometry, placement: placement, configuration: configuration)
        }
    }
}

/// A hot feed's images in catalog order from a place.
struct HotImages: IteratorProtocol {
    private let geometry: HotFeedGeometry
    private var position: (section: Int, local: Int)

    init(_ geometry: HotFeedGeometry, from position: (section: Int, local: Int)) {
        self.geometry = geometry
        self.position = position
    }

    /// The next image, without moving past it.
    mutating func peek() -> ImageGeometry? {
        while position.section < geometry.sections.count && position.local >= geometry.sections[position.section].keys.count {
            position = (position.section + 1, 0)
        }
        return position.section < geometry.sections.count ? geometry.geometry(at: position) : nil
    }

    mutating func next() -> ImageGeometry? {
        guard let image = peek() else { return nil }
        position.local += 1
        return image
    }
}

extension WaterfallService {
    /// ``viewport(feed:layout:y:height:pinOffset:)`` from the hot copy: finds the chunks of the
    /// sections whose bands meet the band, lays out from the checkpoint that starts the first to
    /// the end of the last (closing its section when it is the section's last), and reads the
    /// rows of the images that meet it.
    func hotViewport<Kind: StreamingLayoutKind>(
        engine: Kind, _ query: LayoutQuery, y: Double, height: Double, pinOffset: Double?, _ tx: any CatalogTransaction
    ) throws -> HotRead<ViewportPage> {
        try hotLookup(engine: engine, query, tx).flatMap { geometry, placement in
            let laidOut = try HotViewportLayout(
                (y, height, pinOffset), engine: engine, geometry: geometry, placement: placement, configuration: query.configuration)
            return try answer(laidOut, feed: query.feed, tx) { rows, labels in viewportPage(laidOut, rows: rows, labels: labels, query) }
        }
    }

    /// The viewport of `laidOut` with its rows and its sections' labels.
    fileprivate func viewportPage(
        _ laidOut: HotViewportLayout, rows: [ImageRecord], labels: SectionLabels, _ query: LayoutQuery
    ) -> ViewportPage {
        var parts = assemble(laidOut.elements, rows: rows, firstIndex: laidOut.rows.first, labels: labels, scale: query.configuration.common.scale)
        if let pinned = laidOut.pinnedHeaders {
            parts.headers = pinned.map { header in
                PlacedSupplement(section: labels.name(header.sectionID), frame: header.frame, pinned: header.isPinned, title: labels.title(header.sectionID))
            }
        }
        return ViewportPage(
            feed: query.feed.name, revision: query.feed.revision, layout: query.name, contentHeight: laidOut.contentHeight,
            totalItems: laidOut.rows.geometry.count, y: laidOut.y, height: laidOut.height,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
    }
}

/// A viewport laid out from the hot copy: the chunks of the sections whose bands meet the band,
/// from the checkpoint that starts the first to the end of the last (closing its section when it
/// is the section's last), and with a pin offset the header of every section it shows, pinned.
struct HotViewportLayout: HotLaidOut {
    let y: Double
    let height: Double
    let contentHeight: Double
    let elements: [PlacedElement]
    let rows: HotRows
    /// With a pin offset (and headers), the header of every section with an element in the
    /// band, where it stands pinned; else `nil` (the headers are the laid-out elements').
    let pinnedHeaders: [(sectionID: Int64, frame: Frame, isPinned: Bool)]?

    /// The band `[y, y + height)`, its headers pinned with a `pinOffset` (when the layout has
    /// headers).
    init<Kind: StreamingLayoutKind>(
        _ question: (y: Double, height: Double, pinOffset: Double?), engine: Kind, geometry: HotFeedGeometry,
        placement: HotPlacement<Kind>, configuration: AnyLayoutConfiguration
    ) throws {
        let (y, height) = (question.y, question.height)
        let pinOffset = configuration.hasHeaders ? question.pinOffset : nil
        var sink = CollectingSink { $0.frame.meetsBand(y: y, height: height) }
        if let (first, last) = WaterfallService.chunks(meeting: y, height, placement, geometry) {
            var runner: LayoutRunner<Kind>
            let plan = placement.plans[first.section]
            let start = plan.chunk(first.chunk, count: geometry.sections[first.section].keys.count).lowerBound
            if first.chunk == 0 {
                runner = LayoutRunner(
                    engine: engine, sections: geometry.sectionIDs, variants: placement.variants,
                    state: engine.state(betweenSectionsAt: placement.origin(of: first.section)),
                    ordinal: first.section - 1, nextIndex: geometry.start(of: first.section))
            } else {
                let checkpoint = placement.checkpoint(section: first.section, atOrBefore: start)!
                runner = LayoutRunner(
                    engine: engine, sections: geometry.sectionIDs, variants: placement.variants, state: checkpoint.state, ordinal: first.section,
                    nextIndex: geometry.start(of: first.section) + checkpoint.index)
            }
            let lastPlan = placement.plans[last.section]
            let lastCount = geometry.sections[last.section].keys.count
            var end = geometry.start(of: last.section) + lastPlan.chunk(last.chunk, count: lastCount).upperBound
            // The last chunk of a section ends when the section closes: one image more.
            if last.chunk == lastPlan.bands.count - 1 { end += 1 }
            var images = HotImages(geometry, from: (first.section, start))
            while runner.nextIndex < end, let image = images.next() { try runner.place(image, into: &sink) }
            if images.peek() == nil && runner.nextIndex < end { _ = runner.finish(into: &sink) }
        }
        self.y = y
        self.height = height
        contentHeight = placement.contentHeight
        elements = sink.elements
        let indexes = elements.lazy.filter { $0.kind == .item }.map(\.owner)
        let firstIndex = indexes.min() ?? 0
        rows = HotRows(geometry, first: firstIndex, count: indexes.max().map { $0 - firstIndex + 1 } ?? 0)
        guard let pinOffset else {
            pinnedHeaders = nil
            return
        }
        pinnedHeaders = Self.sectionIDs(of: elements).compactMap { id in
            guard let ordinal = geometry.ordinal(ofSection: id),
                  let natural = engine.headerFrame(sectionStartY: placement.origin(of: ordinal), variant: placement.variant(of: ordinal))
            else { return nil }
            let sectionEnd = placement.plans[ordinal].sectionEnd + placement.shifts[ordinal]
            let pinned = engine.pinnedHeader(
                natural: natural, sectionEnd: sectionEnd, viewportY: y, pinOffset: pinOffset, variant: placement.variant(of: ordinal))
            return (id, pinned.frame, pinned.isPinned)
        }
    }
}

extension WaterfallService {
    /// The first and the last (section, chunk) whose band, where the section stands now, meets
    /// `[y, y + height)`; `nil` when none does.
    fileprivate static func chunks<Kind: StreamingLayoutKind>(
        meeting y: Double, _ height: Double, _ placement: HotPlacement<Kind>, _ geometry: HotFeedGeometry
    ) -> (first: (section: Int, chunk: Int), last: (section: Int, chunk: Int))? {
        var first: (section: Int, chunk: Int)?
        var last: (section: Int, chunk: Int)?
        for (ordinal, plan) in placement.plans.enumerated() {
            let shift = placement.shifts[ordinal]
            // Sections stack downwards: one that starts below the band ends the search.
            if plan.origin + shift >= y + height, first != nil { break }
            for (chunk, band) in plan.bands.enumerated() where band.top + shift < y + height && band.bottom + shift > y {
                if first == nil { first = (ordinal, chunk) }
                last = (ordinal, chunk)
            }
        }
        guard let first, let last else { return nil }
        return (first, last)
    }
}
