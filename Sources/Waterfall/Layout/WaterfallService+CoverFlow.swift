import WaterfallLayout
import WaterfallStore

/// A visible cover-flow image: its frame and the scale it is drawn at.
public struct CoverFlowImage: Hashable, Sendable, Encodable {
    public var index: Int
    public var id: String
    public var section: String?
    public var frame: Frame
    /// `1 / (1 + |centerX - (x + V/2)| * factor)`.
    public var scale: Double
    public var url: String?

    enum CodingKeys: String, FrameCodingKeys { case index, id, section, x, y, width, height, scale, url }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(id, forKey: .id)
        try container.encode(section, forKey: .section)
        try container.encode(frame)
        try container.encode(scale, forKey: .scale)
        try container.encode(url, forKey: .url)
    }
}

/// `coverflow --json`: the images visible at offset `x`, the content width and the snap offset.
public struct CoverFlowPage: Hashable, Sendable, Encodable {
    public var feed: String
    public var revision: Int64
    public var contentWidth: Double
    public var x: Double
    public var viewportWidth: Double
    /// The offset that puts the image centre nearest to the viewport's centre exactly at it
    /// (lowest index on ties; not clamped to the content; `x` itself for an empty feed).
    public var snapOffset: Double
    public var totalItems: Int
    public var items: [CoverFlowImage]
}

extension WaterfallService {
    /// The cover-flow layout (DESIGN section 2) of a feed at horizontal offset `x` for a viewport
    /// `viewportWidth` wide: the visible images with their scale, the content width and the
    /// snapped offset. One sequential scan of the feed's sizes: O(n) reads, O(visible) memory.
    /// - Throws: ``WaterfallError`` `usage` for a bad configuration, offset or width.
    public func coverFlow(
        feed: String?, configuration: CoverFlowConfiguration, x: Double, viewportWidth: Double
    ) throws(WaterfallError) -> CoverFlowPage {
        guard x.isFinite, abs(x) <= 1e15 else { throw WaterfallError.invalidValue(.x, "must be a finite number of points, got \(x).") }
        guard viewportWidth.isFinite, viewportWidth > 0, viewportWidth <= 1e12 else {
            throw WaterfallError.invalidValue(.viewportWidth, "must be a number of points above 0, got \(viewportWidth).")
        }
        let layout = try perform { try CoverFlowLayout(configuration) }
        return try perform {
            try database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let names = try tx.sections(feedID: feed.id).namesByID
                let target = x + viewportWidth / 2
                var previous: Frame?
                var index = 0
                var visible: [(index: Int, key: Int64, frame: Frame)] = []
                var nearest: (distance: Double, frame: Frame)?
                try tx.scanGeometry(feedID: feed.id, fromKey: Int64.min) { image in
                    let frame = layout.nextFrame(after: previous, item: LayoutItem(width: image.width, height: image.height))
                    if frame.minX < x + viewportWidth && frame.maxX > x { visible.append((index, image.key, frame)) }
                    let distance = abs(frame.midX - target)
                    if nearest.map({ distance < $0.distance }) ?? true { nearest = (distance, frame) }
                    previous = frame
                    index += 1
                    return true
                }
                let inset = configuration.sectionInset
                let contentWidth = previous.map { $0.maxX + inset.right } ?? inset.left + inset.right
                let items = try visible.map { entry -> CoverFlowImage in
                    let row = try tx.image(feedID: feed.id, key: entry.key)!
                    return CoverFlowImage(
                        index: entry.index, id: row.externalID, section: names[row.sectionID] ?? nil, frame: entry.frame,
                        scale: layout.scale(of: entry.frame, x: x, viewportWidth: viewportWidth), url: row.url)
                }
                return CoverFlowPage(
                    feed: feed.name, revision: feed.revision, contentWidth: contentWidth, x: x, viewportWidth: viewportWidth,
                    snapOffset: nearest.map { $0.frame.midX - viewportWidth / 2 } ?? x, totalItems: index, items: items)
            }
        }
    }
}
