import Foundation
import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// What `locate` looks for (DESIGN sections 16 and 17).
public enum LocateTarget: Hashable, Sendable {
    /// The image of this id.
    case id(String)
    /// The first image, in catalog order, taken at or before this moment: `YYYY-MM-DD` (its
    /// midnight) or `YYYY-MM-DDTHH:MM`, in the feed's time zone (UTC when it has none).
    case date(String)
}

/// Where an image is in a layout, the answer of `locate` (DESIGN section 16): its catalog
/// index, section and frame, and the offset of the page of `limit` images that holds it, so
/// that a client keeps its place across a reload, a deep link, a change of column count or an
/// insert above it. The JSON of `locate --json` and of `…/locate`.
public struct LocatedImage: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    /// The named layout, `nil` for an inline configuration.
    public var layout: String?
    public var id: String
    public var index: Int
    public var section: String?
    public var frame: Frame
    /// The first index of the page of `limit` images that holds the image: `index` rounded
    /// down to a multiple of `limit`.
    public var offset: Int
    public var limit: Int
    /// When the image was taken, RFC 3339 in UTC; absent from the JSON when unknown.
    public var takenAt: String?
}

extension WaterfallService {
    /// The default `limit` of ``locate(feed:layout:_:limit:)``: the page size `offset` counts in.
    public static let defaultLocateLimit = 100

    /// Where `target` is in a layout of a feed: its index, section and frame, and the offset of
    /// the page of `limit` images that holds it (DESIGN section 16). In one read transaction:
    /// the image by its id (or the first taken at or before a date: one seek a section up to
    /// its section), its index (from the kept feed's keys by binary search, else from the
    /// layout cache's checkpoint at or below its key and at most one chunk of keys), and its
    /// frame as a page of one image would give it.
    /// - Throws: ``WaterfallError``: `unknownImage` for an id the feed does not hold,
    ///   `nothingTakenBy` when no image was taken by the date, `invalidValue` for a bad date or
    ///   limit; as ``page(feed:layout:offset:limit:)`` for the feed and layout.
    public func locate(
        feed: String?, layout: LayoutSource, _ target: LocateTarget, limit: Int = defaultLocateLimit
    ) async throws(WaterfallError) -> LocatedImage {
        try Self.validateSlice(offset: 0, limit: limit)
        return try await readLayoutAnswer(feed: feed, layout: layout, what: "location") { service, query, tx in
            guard let image = try service.image(of: target, in: query.feed, tx) else { return .readAgain(after: nil) }
            return try query.configuration.withEngine(LocateWork(service: service, query: query, image: image, tx: tx))
                .map { frame, update in
                    (
                        LocatedImage(
                            feed: query.feed.name, revision: query.feed.revision, incarnation: query.feed.id,
                            layout: query.name,
                            id: image.externalID,
                            index: frame.index, section: frame.section, frame: frame.frame,
                            offset: frame.index - frame.index % limit,
                            limit: limit, takenAt: image.takenAt.map(TakenAt.string(milliseconds:))), update
                    )
                }
        }
    }

    /// The viewport of `height` points whose band starts so that the top of image `anchor` is
    /// `anchorY` points below the band's top (DESIGN section 16): a client's place kept across
    /// a change of layout, column count or size, and across inserts above it.
    /// - Throws: ``WaterfallError`` as ``locate(feed:layout:_:limit:)`` and
    ///   ``viewport(feed:layout:y:height:pinOffset:)``.
    public func viewport(
        feed: String?, layout: LayoutSource, anchor: String, anchorY: Double, height: Double, pinOffset: Double? = nil
    ) async throws(WaterfallError) -> ViewportPage {
        guard anchorY.isFinite, abs(anchorY) <= 1e12 else {
            throw WaterfallError.invalidValue(.anchorY, "must be a finite number of points, got \(anchorY).")
        }
        // Two read transactions: a write between them moves the band with the image, and the
        // viewport says the revision it shows.
        let located = try await locate(feed: feed, layout: layout, .id(anchor), limit: 1)
        return try await viewport(
            feed: feed, layout: layout, y: located.frame.y - anchorY, height: height, pinOffset: pinOffset)
    }

    /// The image `target` names in `feed`, read in `tx`.
    private func image(of target: LocateTarget, in feed: FeedRecord, _ tx: any CatalogTransaction) throws
        -> ImageRecord?
    {
        switch target {
        case .id(let id):
            guard let image = try tx.image(feedID: feed.id, externalID: id) else {
                throw WaterfallError.unknownImage(feed: feed.name, id: id, place: "")
            }
            return image
        case .date(let text):
            let zoneName = feed.timeZone ?? "UTC"
            guard let zone = TimeZoneName.zone(named: zoneName) else {
                throw WaterfallError.database(
                    "feed \(feed.name.quoted) names a time zone this system does not know, \(zoneName.quoted).")
            }
            guard let moment = TakenAt.milliseconds(localMoment: text, in: zone) else {
                throw WaterfallError.invalidValue(
                    .date,
                    "must be a date YYYY-MM-DD or a date and time YYYY-MM-DDTHH:MM (in the feed's time zone, \(zoneName)), got \(text.quoted)."
                )
            }
            guard let key = try tx.firstKey(sectionIDs: tx.sectionIDs(feedID: feed.id), takenAtOrBefore: moment) else {
                throw WaterfallError.nothingTakenBy(feed: feed.name, date: text)
            }
            // The key was read in this transaction: the image is there.
            return try tx.image(feedID: feed.id, key: key)
        }
    }
}

/// ``WaterfallService/locate(feed:layout:_:limit:)`` with the engine of the layout's kind: the
/// image's index, then its frame as the page of one image at that index gives it.
private struct LocateWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let image: ImageRecord
    let tx: any CatalogTransaction

    /// The placed image, from the kept feed or the layout cache; or read again.
    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> LayoutRead<PlacedImage> {
        let fromCopy = try service.keptPlacement(engine: engine, query).flatMap {
            geometry, _ -> KeptRead<PlacedImage> in
            // A page of one from the copy, the image's row (read above) checked against it: a
            // copy that disagrees is dropped, and the cache answers.
            guard let index = geometry.index(ofKey: image.key, inSection: image.sectionID) else { return .notKept }
            return try service.keptLaidOut(.page(offset: index, limit: 1), engine: engine, query).flatMap { laidOut in
                guard laidOut.agrees(with: [image]) else {
                    service.keptFeeds?.forget(feedID: query.feed.id)
                    return .notKept
                }
                let parts = service.assemble(
                    laidOut.elements, rows: [image], firstIndex: index,
                    labels: try SectionLabels(laidOut.sectionIDs, tx), scale: query.configuration.common.scale)
                return parts.items.first.map { .ready($0) } ?? .notKept
            }
        }
        return try fromCopy.answer { try placedFromCache(engine) }
    }

    /// The placed image, from the layout cache.
    private func placedFromCache<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> (PlacedImage, CacheUpdate?) {
        let cache = try CachedLayout(tx: tx, query: query, engine: engine, stride: service.stride)
        let (page, update) = try service.page(of: cache, query, offset: try index(in: cache), limit: 1, tx)
        guard let item = placed(page) else {
            throw WaterfallError.database(
                "the layout cache placed another image at the index of \(image.externalID.quoted).")
        }
        return (item, update)
    }

    /// The image's catalog index: from the checkpoint at or below its key, counting keys.
    private func index<Kind>(in cache: CachedLayout<Kind>) throws -> Int {
        let start = try cache.checkpoint(atOrBelowKey: image.key, tx)
        var index = start?.index ?? 0
        var from = start?.key ?? Int64.min
        let batch = 1_024
        while true {
            let keys = try tx.keys(feedID: query.feed.id, atOrAbove: from, limit: batch)
            if let last = keys.last, last >= image.key {
                // Keys come in order: the image's is the first at or above its own.
                var low = 0
                var high = keys.count - 1
                while low < high {
                    let middle = (low + high) / 2
                    if keys[middle] < image.key { low = middle + 1 } else { high = middle }
                }
                guard keys[low] == image.key else { break }
                return index + low
            }
            guard keys.count == batch, let last = keys.last, last < Int64.max else { break }
            index += keys.count
            from = last + 1
        }
        throw WaterfallError.database("the image \(image.externalID.quoted) was not found among its feed's order keys.")
    }

    /// The page's one image, checked to be the one asked for; `nil` when it is another.
    private func placed(_ page: LayoutPage) -> PlacedImage? {
        guard let item = page.items.first, item.id == image.externalID else { return nil }
        return item
    }
}
