import WaterfallLayout
import WaterfallStore

/// Keeps where each section began, for a pass over the whole feed.
private struct SectionStartSink: LayoutSink {
    var starts: [Int64: Double] = [:]

    mutating func place(_ element: PlacedElement) {}

    mutating func closed(_ section: SectionExtentRecord) {
        starts[section.sectionID] = section.startY
    }
}

extension WaterfallService {
    /// The section index of a layout (DESIGN section 14): every section of the feed in catalog
    /// order, empty ones included, with the catalog index of its first image, its image count,
    /// and where it begins and ends in the layout, and the first and last `takenAt` of its
    /// images (DESIGN section 17).
    ///
    /// Reads no image row when a server's kept feed holds the feed (O(sections)); otherwise
    /// answers from the layout cache's section extents and the sections' image counts,
    /// completing the cache first when it is stale (and storing it), or, when the cache lacks
    /// a section's extent, from one pass over the feed's geometry.
    /// - Throws: ``WaterfallError``: `usage` for a bad configuration, `invalidData` for an
    ///   unknown feed or layout.
    public func sectionIndex(feed: String?, layout: LayoutSource) async throws(WaterfallError) -> SectionIndex {
        if let held = try await keptSectionIndex(feed: feed, layout: layout) { return held }
        return try await readLayoutAnswer(feed: feed, layout: layout, what: "section index") { service, query, tx in
            try query.configuration.withEngine(SectionIndexWork(service: service, query: query, tx: tx))
                .map { index, update in (try service.addingSectionDates(to: index, feed: query.feed, tx), update) }
        }
    }

    /// ``sectionIndex(feed:layout:)`` from the database's layout cache, for one kind of layout.
    fileprivate func sectionIndexOfKind(
        engine: some StreamingLayoutKind, _ query: LayoutQuery, _ tx: any CatalogTransaction
    ) throws -> (SectionIndex, CacheUpdate?) {
        let feed = query.feed
        let cache = try CachedLayout(tx: tx, query: query, engine: engine, stride: stride)
        let records = try tx.sections(feedID: feed.id)
        guard records.map(\.id) == cache.sections else {
            throw WaterfallError.database("the feed's sections changed while its section index was read; try again.")
        }
        let counts = try tx.imageCounts(feedID: feed.id)
        let bounds =
            try cachedBounds(cache, tx) ?? laidOutBounds(engine: engine, sections: cache.sections, feed: feed, tx)
        let index = SectionIndex(
            feed: feed, layout: query.name, configuration: query.configuration, contentHeight: cache.end.contentHeight,
            records: records, counts: { counts[records[$0].id] ?? 0 }, bounds: bounds)
        return (index, cache.update)
    }

    /// Where the sections begin and the last ends, from the cache's section extents (the end
    /// below the last one's footer, placed by the engine as closing the section places it);
    /// `nil` when the cache lacks the extent of a section.
    func cachedBounds(_ cache: CachedLayout<some StreamingLayoutKind>, _ tx: any CatalogTransaction) throws
        -> SectionBounds?
    {
        let extents = try cache.extents(of: cache.sections, tx)
        var starts: [Double] = []
        starts.reserveCapacity(cache.sections.count)
        for id in cache.sections {
            guard let extent = extents[id] else { return nil }
            starts.append(extent.startY)
        }
        let end =
            cache.sections.last.map {
                cache.engine.footer(below: extents[$0]!.endY, variant: cache.variant(of: $0)).end
            }
            ?? cache.engine.initialState.y
        return SectionBounds(starts: starts, end: end)
    }

    /// Where the sections begin and the last ends, from one pass over the feed's geometry.
    func laidOutBounds<Kind: StreamingLayoutKind>(
        engine: Kind, sections: [Int64], feed: FeedRecord, _ tx: any CatalogTransaction
    ) throws -> SectionBounds {
        var runner = try LayoutRunner(
            engine: engine, sections: sections, variants: try engine.variants(of: sections, tx: tx), checkpoint: nil)
        var sink = SectionStartSink()
        try tx.scanGeometry(feedID: feed.id, fromKey: Int64.min) { image in
            try runner.place(image, into: &sink)
            return true
        }
        _ = runner.finish(into: &sink)
        return SectionBounds(starts: sections.map { sink.starts[$0]! }, end: runner.state.y)
    }
}

/// ``WaterfallService/sectionIndex(feed:layout:)`` with the engine of the layout's kind.
private struct SectionIndexWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let tx: any CatalogTransaction

    /// The index, from the layout cache.
    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> LayoutRead<SectionIndex> {
        let (index, update) = try service.sectionIndexOfKind(engine: engine, query, tx)
        return .answered(index, update)
    }
}
