import WaterfallLayout
import WaterfallStore

/// Cache rows a query computed and that should be stored after its read transaction.
struct CacheUpdate {
    var feedID: Int64
    /// The feed's name: its write scope.
    var feedName: String
    var configuration: String
    var stride: Int
    var revision: Int64
    var checkpoints: [CheckpointRecord]
    var sections: [SectionExtentRecord]
    var end: LayoutEndRecord
}

/// Collects what the warm pass needs: the band of the current chunk and closed sections.
private struct WarmSink: LayoutSink {
    var top = Double.infinity
    var bottom = -Double.infinity
    var sections: [SectionExtentRecord] = []

    mutating func place(_ element: PlacedElement) {
        top = min(top, element.frame.minY)
        bottom = max(bottom, element.frame.maxY)
    }

    mutating func closed(_ section: SectionExtentRecord) {
        sections.append(section)
    }

    /// The band so far, (0, 0) when nothing was placed; then starts a new band.
    mutating func takeBand() -> (top: Double, bottom: Double) {
        defer {
            top = .infinity
            bottom = -.infinity
        }
        return top <= bottom ? (top, bottom) : (0, 0)
    }
}

/// A feed's layout for one configuration as the cache knows it, brought up to date inside a
/// read transaction: when the stored end is stale, the layout is recomputed from the last valid
/// checkpoint to the end of the feed, and the new rows are kept in ``update`` for saving.
///
/// Works for every ``StreamingLayoutKind``: a checkpoint is saved before the first image at
/// least `stride` images after the previous checkpoint at which the engine has nothing pending
/// (every image for a waterfall, so one every `stride` images exactly; the next row start for
/// justified rows, DESIGN section 8). A chunk is the images from one checkpoint to the next,
/// and its band holds every frame decided between them.
struct CachedLayout<Kind: StreamingLayoutKind> {
    let feed: FeedRecord
    let name: String?
    let engine: Kind
    /// The feed's section ids, in order (names and titles are read only for the sections an
    /// answer shows: ``SectionLabels``).
    let sections: [Int64]
    /// The engine's variant of each section, by ordinal (empty: all 0).
    let variants: [Int]
    let entry: LayoutCacheRecord?
    let end: LayoutEndRecord
    let stride: Int
    /// Rows computed by this query (nil when the cache was up to date).
    let update: CacheUpdate?

    /// The engine's variant of section `id` (0 when the layout's sections do not differ).
    func variant(of id: Int64) -> Int {
        guard !variants.isEmpty, let ordinal = sections.firstIndex(of: id) else { return 0 }
        return variants[ordinal]
    }

    /// Loads (and if needed completes) the cached layout of `engine`'s configuration, stored
    /// under `key` (its canonical JSON). Reads O(stride) rows when the cache is up to date;
    /// otherwise scans the feed from the last valid checkpoint on.
    init(
        tx: any CatalogTransaction, feed: FeedRecord, name: String?, engine: Kind, key: String,
        stride defaultStride: Int
    ) throws {
        self.feed = feed
        self.name = name
        self.engine = engine
        sections = try tx.sectionIDs(feedID: feed.id)
        variants = try engine.variants(of: sections, tx: tx)
        entry = try tx.cacheEntry(feedID: feed.id, configuration: key)
        stride = entry?.stride ?? defaultStride
        if let end = entry?.end, end.revision == feed.revision {
            self.end = end
            update = nil
            return
        }
        let last = try entry.flatMap { try tx.checkpoint(cacheID: $0.id, atOrBelow: Int.max) }
        var runner = try LayoutRunner(engine: engine, sections: sections, variants: variants, checkpoint: last)
        var sink = WarmSink()
        var checkpoints: [CheckpointRecord] = []
        let stride = self.stride
        var previous = last?.index ?? 0
        try tx.scanGeometry(feedID: feed.id, fromKey: last?.key ?? Int64.min) { image in
            let index = runner.nextIndex
            if index >= previous + stride && runner.state.pendingCount == 0 {
                let band = sink.takeBand()
                checkpoints.append(
                    CheckpointRecord(
                        index: index, key: image.key, sectionID: runner.openSectionID!,
                        state: runner.state.serialized(), bandTop: band.top, bandBottom: band.bottom))
                previous = index
            }
            try runner.place(image, into: &sink)
            return true
        }
        let contentHeight = runner.finish(into: &sink)
        let tail = sink.takeBand()
        let end = LayoutEndRecord(
            revision: feed.revision, totalItems: runner.nextIndex, contentHeight: contentHeight,
            tailTop: tail.top, tailBottom: tail.bottom)
        self.end = end
        update = CacheUpdate(
            feedID: feed.id, feedName: feed.name, configuration: key, stride: stride, revision: feed.revision,
            checkpoints: checkpoints, sections: sink.sections, end: end)
    }

    /// The checkpoint with the greatest index not above `index` (`nil`: start from the top).
    func checkpoint(atOrBelow index: Int, _ tx: any CatalogTransaction) throws -> CheckpointRecord? {
        try lastComputedCheckpoint { $0.index <= index }
            ?? entry.flatMap { try tx.checkpoint(cacheID: $0.id, atOrBelow: index) }
    }

    /// The checkpoint with the greatest order key not above `key` (`nil`: start from the top):
    /// checkpoints' keys grow with their indexes.
    func checkpoint(atOrBelowKey key: Int64, _ tx: any CatalogTransaction) throws -> CheckpointRecord? {
        try lastComputedCheckpoint { $0.key <= key }
            ?? entry.flatMap { try tx.checkpoint(cacheID: $0.id, atOrBelowKey: key) }
    }

    /// The last of the checkpoints this query computed that `isAtOrBelow` holds for (they hold
    /// for a prefix: indexes and keys grow together), by binary search; `nil` when it holds for
    /// none, and the stored checkpoints, all before them, answer.
    private func lastComputedCheckpoint(_ isAtOrBelow: (CheckpointRecord) -> Bool) -> CheckpointRecord? {
        guard let checkpoints = update?.checkpoints, let first = checkpoints.first, isAtOrBelow(first) else {
            return nil
        }
        var low = 0
        var high = checkpoints.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if isAtOrBelow(checkpoints[middle]) { low = middle } else { high = middle }
        }
        return checkpoints[low]
    }

    /// Every chunk of the layout with the band it occupies, in index order: the chunks
    /// `[previous checkpoint, checkpoint)`, then the tail `[last checkpoint, end]`.
    func chunks(_ tx: any CatalogTransaction) throws -> [(
        start: Int, end: Int, top: Double, bottom: Double, isTail: Bool
    )] {
        // The stored checkpoints come in index order, and those this query computed follow
        // them: they start after the greatest stored one.
        let stored = try entry.map { try tx.checkpointBands(cacheID: $0.id) } ?? []
        var result: [(start: Int, end: Int, top: Double, bottom: Double, isTail: Bool)] = []
        result.reserveCapacity(stored.count + (update?.checkpoints.count ?? 0) + 1)
        var start = 0
        for band in stored where band.index > start {
            result.append((start, band.index, band.top, band.bottom, false))
            start = band.index
        }
        for checkpoint in update?.checkpoints ?? [] where checkpoint.index > start {
            result.append((start, checkpoint.index, checkpoint.bandTop, checkpoint.bandBottom, false))
            start = checkpoint.index
        }
        result.append((start, end.totalItems, end.tailTop, end.tailBottom, true))
        return result
    }

    /// Where the given sections start and end (for pinned headers).
    func extents(of ids: [Int64], _ tx: any CatalogTransaction) throws -> [Int64: SectionExtentRecord] {
        var result: [Int64: SectionExtentRecord] = [:]
        for section in update?.sections ?? [] { result[section.sectionID] = section }
        let missing = ids.filter { result[$0] == nil }
        if let entry, !missing.isEmpty {
            result.merge(try tx.sectionExtents(cacheID: entry.id, sectionIDs: missing)) { new, _ in new }
        }
        return result
    }

}

extension WaterfallService {
    /// Stores what a query computed for the cache. Best effort: the cache is an optimisation,
    /// so a failure here (a lock held by another writer for more than half a second, a full
    /// disk) never fails or delays the query; the next query computes it again.
    func save(_ update: CacheUpdate?) async {
        guard let update else { return }
        _ = try? await database.writeIfAvailable(.feed(update.feedName), within: 0.5) { tx in
            let entry = try tx.makeCacheEntry(
                feedID: update.feedID, configuration: update.configuration, stride: update.stride)
            return try tx.saveLayoutCache(
                cacheID: entry.id, feedID: update.feedID, revision: update.revision,
                checkpoints: update.checkpoints, sections: update.sections, end: update.end)
        }
    }

    /// The configuration (and name) a layout source stands for, for one feed.
    func resolveLayout(_ source: LayoutSource, feed: FeedRecord, _ tx: any CatalogTransaction) throws -> LayoutQuery {
        var record: NamedLayoutRecord?
        if case .named(let name) = source { record = try tx.layout(feedID: feed.layoutFeedID, name: name) }
        return try source.resolved(feed: feed, record: record)
    }
}

extension LayoutSource {
    /// The configuration (and name) the source stands for in `feed`, whose layout of the
    /// source's name is `record` (read for a named source only).
    func resolved(feed: FeedRecord, record: NamedLayoutRecord?) throws -> LayoutQuery {
        switch self {
        case .inline(let configuration):
            try configuration.validate()
            return LayoutQuery(feed: feed, name: nil, configuration: configuration)
        case .named(let name):
            guard let record else { throw WaterfallError.unknownLayout(feed: feed.name, layout: name) }
            let (configuration, key) = try AnyLayoutConfiguration.fromStored(record.configuration)
            return LayoutQuery(feed: feed, name: name, configuration: configuration, key: key)
        }
    }
}

/// The names and titles of the sections an answer shows, read for those sections only (a feed
/// may have thousands of sections; a page shows a few).
struct SectionLabels {
    private let sections: [Int64: SectionRecord]

    /// Reads the sections with these ids (repeated ids are read once).
    init(_ ids: some Sequence<Int64>, _ tx: any CatalogTransaction) throws {
        self.init(try tx.sections(ids: Array(ids)))
    }

    /// The labels of `sections`, read already.
    init(_ sections: [SectionRecord]) {
        self.sections = Dictionary(sections.map { ($0.id, $0) }) { first, _ in first }
    }

    /// The section's name (`nil`: the unnamed section).
    func name(_ id: Int64) -> String? { sections[id]?.name ?? nil }

    /// The section's title (`nil`: none).
    func title(_ id: Int64) -> String? { sections[id]?.title ?? nil }
}
