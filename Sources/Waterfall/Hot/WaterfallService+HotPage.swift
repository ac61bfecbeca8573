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

    /// The hot copy's geometry and placement of `engine`'s layout at `feed`'s revision, for a
    /// read inside the transaction `tx` that resolved `feed` (``HotGeometry/placement``).
    func hotLookup<Kind: StreamingLayoutKind>(
        engine: Kind, configuration: AnyLayoutConfiguration, feed: FeedRecord, _ tx: any CatalogTransaction
    ) throws -> HotLookup<Kind> {
        guard let hot else { return .notKept }
        return try hot.placement(
            feed: feed, engine: engine, key: configuration.canonicalJSON, stride: stride, mayBeAhead: hotCopyMayBeAhead, tx)
    }

    /// ``page(feed:layout:offset:limit:)`` from the hot copy, inside the read transaction that
    /// resolved `feed`: lays out, in memory, from the section checkpoint before `offset` to the
    /// end of the page's last row and one image more (which closes its section), then reads the
    /// page's own rows by the copy's keys and checks them against it.
    func hotPage<Kind: StreamingLayoutKind>(
        engine: Kind, configuration: AnyLayoutConfiguration, name: String?, feed: FeedRecord,
        offset: Int, limit: Int, _ tx: any CatalogTransaction
    ) throws -> HotAnswer<LayoutPage> {
        let lookup = try hotLookup(engine: engine, configuration: configuration, feed: feed, tx)
        guard let hot, case .placed(let geometry, let placement) = lookup else { return lookup.unanswered() }
        let laidOut = try HotPageLayout(engine: engine, geometry: geometry, placement: placement, offset: offset, limit: limit)
        let rows = try laidOut.firstKey.map { try tx.images(feedID: feed.id, fromKey: $0, limit: laidOut.rowCount) } ?? []
        guard laidOut.agrees(with: rows) else {
            hot.forget(feedID: feed.id)
            return .notKept
        }
        let labels = try SectionLabels(laidOut.elements.lazy.map(\.sectionID), tx)
        return .answer(page(laidOut, rows: rows, labels: labels, feed: feed, name: name, configuration: configuration))
    }

    /// ``page(feed:layout:offset:limit:)`` of a feed the hot copy holds at its current revision
    /// with the layout placed, waiting for the database without blocking a thread where the
    /// engine can (PostgreSQL: ``CatalogStore/readWithoutBlocking(_:)``): in one read
    /// transaction, the feed, the named layout, the page's rows and its sections' labels.
    ///
    /// `nil` when it cannot answer so, and the caller asks ``page(feed:layout:offset:limit:)``,
    /// which does everything this leaves out: no hot copy, or an engine without such reads; the
    /// copy not yet at the feed's revision, or the layout not placed there yet (the first read
    /// after a change brings them, once for all); an answer that would be an error, which that
    /// path words.
    /// - Throws: ``WaterfallError`` `database` when the database fails.
    public func pageWithoutBlocking(feed name: String, layout: LayoutSource, offset: Int, limit: Int) async throws(WaterfallError) -> LayoutPage? {
        guard let hot, (try? Self.validateSlice(offset: offset, limit: limit)) != nil else { return nil }
        let service = self
        do {
            let page = try await database.readWithoutBlocking { reads -> LayoutPage? in
                guard let feed = try await reads.feed(named: name), (try? service.checkExpectedRevision(of: feed, named: name)) != nil else { return nil }
                var record: NamedLayoutRecord?
                if case .named(let layoutName) = layout {
                    record = try await reads.layout(feedID: feed.id, name: layoutName)
                }
                guard let (layoutName, configuration) = try? layout.resolved(feed: feed, record: record),
                      let laidOut = try configuration.withEngine(ReadyHotPage(
                          hot: hot, feed: feed, key: configuration.canonicalJSON, stride: service.stride, offset: offset, limit: limit))
                else { return nil }
                let rows = try await laidOut.firstKey.asyncMap { try await reads.images(feedID: feed.id, fromKey: $0, limit: laidOut.rowCount) } ?? []
                guard laidOut.agrees(with: rows) else {
                    hot.forget(feedID: feed.id)
                    return nil
                }
                let labels = SectionLabels(try await reads.sections(ids: laidOut.sectionIDs))
                return service.page(laidOut, rows: rows, labels: labels, feed: feed, name: layoutName, configuration: configuration)
            }
            return page ?? nil
        } catch {
            throw WaterfallError(error)
        }
    }

    /// The page of `laidOut` with its rows and its sections' labels.
    private func page(
        _ laidOut: HotPageLayout, rows: [ImageRecord], labels: SectionLabels, feed: FeedRecord, name: String?,
        configuration: AnyLayoutConfiguration
    ) -> LayoutPage {
        let parts = assemble(laidOut.elements, rows: rows, firstIndex: laidOut.offset, labels: labels)
        let total = laidOut.geometry.count
        return LayoutPage(
            feed: feed.name, revision: feed.revision, layout: name, contentHeight: laidOut.contentHeight,
            totalItems: total, nextOffset: laidOut.offset + laidOut.limit < total ? laidOut.offset + laidOut.limit : nil,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: configuration)
    }
}

/// A page laid out from the hot copy, in memory, before its rows are read: from the section
/// checkpoint before its first image to the end of its last image's row and one image more
/// (which closes that image's section).
struct HotPageLayout {
    let geometry: HotFeedGeometry
    let offset: Int
    let limit: Int
    let contentHeight: Double
    /// The page's headers, images and footers.
    let elements: [PlacedElement]
    /// How many images (rows) the page shows.
    let rowCount: Int
    /// The order key of the page's first image: where its rows are read from (`nil`: none).
    let firstKey: Int64?

    init<Kind: StreamingLayoutKind>(
        engine: Kind, geometry: HotFeedGeometry, placement: HotPlacement<Kind>, offset: Int, limit: Int
    ) throws {
        let total = geometry.count
        let range = offset..<(offset + limit)
        let expected = max(0, min(range.upperBound, total) - offset)
        var cursor = HotCursor(geometry: geometry, placement: placement, engine: engine, from: min(offset, max(total - 1, 0)))
        var sink = CollectingSink { range.contains($0.owner) }
        while let image = cursor.images.peek() {
            if cursor.runner.nextIndex > range.upperBound && sink.itemCount >= expected { break }
            try cursor.runner.place(image, into: &sink)
            _ = cursor.images.next()
        }
        if cursor.images.peek() == nil { _ = cursor.runner.finish(into: &sink) }
        self.geometry = geometry
        self.offset = offset
        self.limit = limit
        contentHeight = placement.contentHeight
        elements = sink.elements
        rowCount = expected
        if expected > 0 {
            var first = HotImages(geometry, from: geometry.locate(offset))
            firstKey = first.peek()!.key
        } else {
            firstKey = nil
        }
    }

    /// The sections the page shows, each once.
    var sectionIDs: [Int64] {
        var seen: Set<Int64> = []
        return elements.compactMap { seen.insert($0.sectionID).inserted ? $0.sectionID : nil }
    }

    /// Whether `rows`, read from ``firstKey``, are the page's images as the copy has them; if
    /// not, the copy disagrees with the catalog and must be dropped.
    func agrees(with rows: [ImageRecord]) -> Bool {
        guard rows.count == rowCount else { return false }
        guard rowCount > 0 else { return true }
        var check = HotImages(geometry, from: geometry.locate(offset))
        return rows.allSatisfy { row in check.next() == row.geometry }
    }
}

/// A page from the hot copy when its geometry and the layout's placement are there at the
/// feed's revision, reading nothing to find them (``HotGeometry/readyPlacement(feed:key:stride:)``).
private struct ReadyHotPage: EngineWork {
    let hot: HotGeometry
    let feed: FeedRecord
    let key: String
    let stride: Int
    let offset: Int
    let limit: Int

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> HotPageLayout? {
        guard let (geometry, placement): (HotFeedGeometry, HotPlacement<Kind>) = hot.readyPlacement(feed: feed, key: key, stride: stride) else {
            return nil
        }
        return try HotPageLayout(engine: engine, geometry: geometry, placement: placement, offset: offset, limit: limit)
    }
}

extension Optional {
    /// `map` with an asynchronous transform.
    fileprivate func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension HotLookup {
    /// What a read answers when the copy has no placement for it: read again, or from the cache.
    func unanswered<Answer>() -> HotAnswer<Answer> {
        if case .ahead = self { return .ahead }
        return .notKept
    }
}

/// What a read gets from the hot copy.
enum HotAnswer<Answer> {
    case answer(Answer)
    /// The copy is newer than the reader's transaction: read again in a new one.
    case ahead
    /// Not kept (over the budget, or the copy disagreed with the catalog and was dropped):
    /// answer from the database's layout cache.
    case notKept
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

/// A ``LayoutRunner`` resumed over a hot feed at the section checkpoint before an image (or at
/// the start of its section, after the empty sections before it, whose headers and footers go
/// with its first image), with the images from there.
struct HotCursor<Kind: StreamingLayoutKind> {
    var images: HotImages
    var runner: LayoutRunner<Kind>

    /// Resumes before catalog index `index` (`0..<count`, or 0 in an empty feed).
    init(geometry: HotFeedGeometry, placement: HotPlacement<Kind>, engine: Kind, from index: Int) {
        let ids = geometry.sectionIDs
        guard geometry.count > 0 else {
            images = HotImages(geometry, from: (geometry.sections.count, 0))
            runner = LayoutRunner(engine: engine, sections: ids, variants: placement.variants, state: engine.initialState, ordinal: -1, nextIndex: 0)
            return
        }
        let target = geometry.locate(index)
        if let checkpoint = placement.checkpoint(section: target.section, atOrBefore: target.local) {
            images = HotImages(geometry, from: (target.section, checkpoint.index))
            runner = LayoutRunner(
                engine: engine, sections: ids, variants: placement.variants, state: checkpoint.state, ordinal: target.section,
                nextIndex: geometry.start(of: target.section) + checkpoint.index)
        } else {
            var first = target.section
            while first > 0 && geometry.sections[first - 1].keys.isEmpty { first -= 1 }
            images = HotImages(geometry, from: (target.section, 0))
            runner = LayoutRunner(
                engine: engine, sections: ids, variants: placement.variants, state: engine.state(betweenSectionsAt: placement.origin(of: first)),
                ordinal: first - 1, nextIndex: geometry.start(of: target.section))
        }
    }
}

extension WaterfallService {
    /// ``viewport(feed:layout:y:height:pinOffset:)`` from the hot copy: finds the chunks of the
    /// sections whose bands meet the band, lays out from the checkpoint that starts the first to
    /// the end of the last (closing its section when it is the section's last), and reads the
    /// rows of the images that meet it.
    func hotViewport<Kind: StreamingLayoutKind>(
        engine: Kind, configuration: AnyLayoutConfiguration, name: String?, feed: FeedRecord,
        y: Double, height: Double, pinOffset: Double?, _ tx: any CatalogTransaction
    ) throws -> HotAnswer<ViewportPage> {
        let lookup = try hotLookup(engine: engine, configuration: configuration, feed: feed, tx)
        guard let hot, case .placed(let geometry, let placement) = lookup else { return lookup.unanswered() }
        var sink = CollectingSink { $0.frame.meetsBand(y: y, height: height) }
        if let (first, last) = Self.chunks(meeting: y, height, placement, geometry) {
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
        let elements = sink.elements
        let indexes = elements.lazy.filter { $0.kind == .item }.map(\.owner)
        var rows: [ImageRecord] = []
        let firstIndex = indexes.min() ?? 0
        if let lastIndex = indexes.max() {
            var check = HotImages(geometry, from: geometry.locate(firstIndex))
            rows = try tx.images(feedID: feed.id, fromKey: check.peek()!.key, limit: lastIndex - firstIndex + 1)
            guard rows.count == lastIndex - firstIndex + 1, rows.allSatisfy({ check.next() == $0.geometry }) else {
                hot.forget(feedID: feed.id)
                return .notKept
            }
        }
        let labels = try SectionLabels(elements.lazy.map(\.sectionID), tx)
        var parts = assemble(elements, rows: rows, firstIndex: firstIndex, labels: labels)
        if let pinOffset, configuration.hasHeaders {
            var visible: [Int64] = []
            var seen: Set<Int64> = []
            for element in elements where seen.insert(element.sectionID).inserted { visible.append(element.sectionID) }
            let ordinals = Dictionary(uniqueKeysWithValues: geometry.sectionIDs.enumerated().map { ($1, $0) })
            parts.headers = visible.compactMap { id in
                guard let ordinal = ordinals[id],
                      let natural = engine.headerFrame(sectionStartY: placement.origin(of: ordinal), variant: placement.variant(of: ordinal))
                else { return nil }
                let sectionEnd = placement.plans[ordinal].sectionEnd + placement.shifts[ordinal]
                let pinned = engine.pinnedHeader(
                    natural: natural, sectionEnd: sectionEnd, viewportY: y, pinOffset: pinOffset, variant: placement.variant(of: ordinal))
                return PlacedSupplement(section: labels.name(id), frame: pinned.frame, pinned: pinned.isPinned, title: labels.title(id))
            }
        }
        return .answer(ViewportPage(
            feed: feed.name, revision: feed.revision, layout: name, contentHeight: placement.contentHeight,
            totalItems: geometry.count, y: y, height: height,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: configuration))
    }

    /// The first and the last (section, chunk) whose band, where the section stands now, meets
    /// `[y, y + height)`; `nil` when none does.
    private static func chunks<Kind: StreamingLayoutKind>(
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
