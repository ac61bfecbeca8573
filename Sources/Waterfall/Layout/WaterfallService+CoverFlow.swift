import Foundation
import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// A visible cover-flow image: its frame and the scale it is drawn at.
public struct CoverFlowImage: Hashable, Sendable {
    public var index: Int
    public var id: String
    public var section: String?
    public var frame: Frame
    /// `1 / (1 + |centerX - (x + V/2)| * factor)`.
    public var scale: Double
    /// The rendition for the asked `dpr` (default: the configuration's `scale`) of a frame
    /// this wide, else the image's own URL (DESIGN section 16).
    public var url: String?
    /// The image's ThumbHash or BlurHash and its colour; each absent from the JSON when the
    /// feed gives none.
    public var placeholder: String? = nil
    public var color: String? = nil
    /// The sizes the image is served at (not part of the JSON).
    public var renditions: Renditions? = nil
    /// Pixel width (not part of the JSON): a URL template's largest width.
    public var pixelWidth: Int32 = 0

    /// Makes `url` the rendition for a screen of `dpr` device pixels a point, as a page's
    /// images choose theirs (``PlacedImage/chooseRendition(dpr:)``).
    public mutating func chooseRendition(dpr: Double) {
        guard let renditions else { return }
        url = renditions.url(forPixels: frame.width * dpr, imageWidth: pixelWidth)
    }
}

/// `coverflow --json`: the images visible at offset `x`, the content width and the snap offset.
public struct CoverFlowPage: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    public var contentWidth: Double
    public var x: Double
    public var viewportWidth: Double
    /// The offset that puts the image centre nearest to the viewport's centre exactly at it
    /// (lowest index on ties; not clamped to the content; `x` itself for an empty feed).
    public var snapOffset: Double
    public var totalItems: Int
    public var items: [CoverFlowImage]

    /// The answer with each image's `url` chosen for `dpr`; the service's answer chose them
    /// for the configuration's `scale`.
    public func choosingRenditions(dpr: Double) -> CoverFlowPage {
        var page = self
        for index in page.items.indices { page.items[index].chooseRendition(dpr: dpr) }
        return page
    }
}

extension WaterfallService {
    /// The cover-flow layout (DESIGN section 2) of a feed at horizontal offset `x` for a viewport
    /// `viewportWidth` wide: the visible images with their scale, the content width and the
    /// snapped offset.
    ///
    /// Cached like a page layout (``CoverFlowStream`` lays the row out transposed, so the
    /// cache's bands are horizontal extents): a query reads the checkpoint bands, one
    /// checkpoint, and the images of the chunks that meet the viewport plus one chunk on each
    /// side, where the image nearest to the viewport's centre must be (centres only grow along
    /// the row, so it is the last one before the centre or the first one after it). O(log n +
    /// stride + answer) rows when the cache is warm; the first query after a change completes
    /// the cache from the last valid checkpoint.
    /// - Throws: ``WaterfallError`` `usage` for a bad configuration, offset or width.
    public func coverFlow(
        feed: String?, configuration: CoverFlowConfiguration, x: Double, viewportWidth: Double
    ) async throws(WaterfallError) -> CoverFlowPage {
        guard x.isFinite, abs(x) <= 1e15 else {
            throw WaterfallError.invalidValue(.x, "must be a finite number of points, got \(x).")
        }
        guard viewportWidth.isFinite, viewportWidth > 0, viewportWidth <= 1e12 else {
            throw WaterfallError.invalidValue(
                .viewportWidth, "must be a number of points above 0, got \(viewportWidth).")
        }
        let layout = try performNow { try CoverFlowLayout(configuration) }
        let stream = try performNow { try CoverFlowStream(configuration) }
        let (page, update) = try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let cache = try CachedLayout(
                    tx: tx, feed: feed, name: nil, engine: stream, key: configuration.cacheKey, stride: stride)
                let chunks = try cache.chunks(tx)
                let end = x + viewportWidth
                // The chunks that meet [x, end); when none does (the viewport is before, after or
                // between chunks), the one or two next to it. Then one more on each side.
                var first = chunks.firstIndex { $0.bottom > x } ?? chunks.count - 1
                var last = chunks.lastIndex { $0.top < end } ?? 0
                if first > last { (first, last) = (last, first) }
                first = max(0, first - 1)
                last = min(chunks.count - 1, last + 1)
                let start = chunks[first].start == 0 ? nil : try cache.checkpoint(atOrBelow: chunks[first].start, tx)
                let from = start?.index ?? 0
                let rows = try tx.images(
                    feedID: feed.id, fromKey: start?.key ?? Int64.min, limit: chunks[last].end - from)
                var runner = try LayoutRunner(
                    engine: stream, sections: cache.sections, variants: cache.variants, checkpoint: start)
                var sink = CoverFlowSink(target: x + viewportWidth / 2, x: x, end: end)
                for row in rows { try runner.place(row.geometry, into: &sink) }
                let labels = try SectionLabels(sink.visible.lazy.map { index, _ in rows[index - from].sectionID }, tx)
                let items = sink.visible.map { index, frame -> CoverFlowImage in
                    let row = rows[index - from]
                    var item = CoverFlowImage(
                        index: index, id: row.externalID, section: labels.name(row.sectionID), frame: frame,
                        scale: layout.scale(of: frame, x: x, viewportWidth: viewportWidth), url: row.url,
                        placeholder: row.placeholder, color: row.color,
                        renditions: row.renditions.flatMap(Renditions.init(storedText:)), pixelWidth: row.width)
                    item.chooseRendition(dpr: Double(configuration.scale))
                    return item
                }
                let page = CoverFlowPage(
                    feed: feed.name, revision: feed.revision, incarnation: feed.id,
                    contentWidth: cache.end.contentHeight, x: x,
                    viewportWidth: viewportWidth,
                    snapOffset: sink.nearest.map { $0.frame.midX - viewportWidth / 2 } ?? x,
                    totalItems: cache.end.totalItems, items: items)
                return (page, cache.update)
            }
        }
        await save(update)
        return page
    }
}

/// Collects, from a ``CoverFlowStream`` run, the images meeting `[x, end)` and the one whose
/// centre is nearest to `target` (the first of equals).
private struct CoverFlowSink: LayoutSink {
    let target: Double
    let x: Double
    let end: Double
    var visible: [(index: Int, frame: Frame)] = []
    var nearest: (distance: Double, frame: Frame)?

    mutating func place(_ element: PlacedElement) {
        guard element.kind == .item else { return }
        let frame = element.frame.transposed
        if frame.minX < end && frame.maxX > x { visible.append((element.owner, frame)) }
        let distance = abs(frame.midX - target)
        if nearest.map({ distance < $0.distance }) ?? true { nearest = (distance, frame) }
    }

    mutating func closed(_ section: SectionExtentRecord) {}
}

extension CoverFlowConfiguration {
    /// The key of the cover flow's layout cache: its JSON with `"kind":"coverflow"`, keys
    /// sorted (never equal to a page layout's canonical JSON), and `factor` set to 0: frames do
    /// not depend on how fast covers shrink, so every factor shares one cache.
    var cacheKey: String {
        var positions = self
        positions.factor = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(positions)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Self.cacheKeyPrefix + json.dropFirst()
    }

    /// How every cover-flow cache key starts.
    static let cacheKeyPrefix = #"{"kind":"coverflow","#
}
