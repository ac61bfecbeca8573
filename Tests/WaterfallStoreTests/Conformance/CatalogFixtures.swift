import Foundation
import WaterfallStore

/// Order key number `n` of a freshly keyed feed: `n` × ``OrderKeys/spacing``.
func orderKey(_ n: Int64) -> Int64 { n * OrderKeys.spacing }

/// An image row with ordinary values where the test does not care.
func imageRow(
    _ id: String, key: Int64, section: Int64, width: Int32 = 300, height: Int32 = 200,
    fullSpan: Bool = false, url: String? = nil, title: String? = nil
) -> ImageRecord {
    ImageRecord(
        key: key, externalID: id, sectionID: section, width: width, height: height, isFullSpan: fullSpan, url: url,
        title: title)
}

/// A checkpoint whose state and band are derived from its index, so that a test can tell
/// checkpoints apart after a round trip.
func checkpointRow(_ index: Int, key: Int64, section: Int64) -> CheckpointRecord {
    CheckpointRecord(
        index: index, key: key, sectionID: section, state: [0, UInt8(index % 256), 255],
        bandTop: Double(index) * 10, bandBottom: Double(index) * 10 + 7.5)
}

/// A small feed made by ``CatalogTransaction/makeFeed(_:_:)``.
struct SmallFeed {
    var feed: FeedRecord
    /// The sections' ids, in order.
    var sections: [Int64]
    /// The images, in catalog order.
    var images: [ImageRecord]

    var id: Int64 { feed.id }

    /// The image with external id `id`.
    func image(_ id: String) -> ImageRecord { images.first { $0.externalID == id }! }
}

/// Error thrown by a test's own transaction body, to see it rolled back.
struct Abandon: Error, Equatable {}

extension CatalogTransaction {
    /// Creates feed `name` with one section per entry (positions 10, 20, …; undeclared), holding
    /// the entry's images keyed ``orderKey(_:)`` 1, 2, … in catalog order across the sections.
    func makeFeed(_ name: String, _ layout: [(section: String?, images: [String])]) throws -> SmallFeed {
        let feed = try createFeed(named: name)
        var sections: [Int64] = []
        var images: [ImageRecord] = []
        for (offset, entry) in layout.enumerated() {
            let section = try insertSection(
                feedID: feed.id, name: entry.section, title: nil, position: Int64(offset + 1) * 10, isDeclared: false)
            sections.append(section)
            for id in entry.images {
                images.append(imageRow(id, key: orderKey(Int64(images.count + 1)), section: section))
            }
        }
        try insertImages(feedID: feed.id, images)
        return SmallFeed(feed: feed, sections: sections, images: images)
    }

    /// The catalog order of a feed as external ids.
    func order(_ feedID: Int64) throws -> [String] {
        try allImages(feedID: feedID).map(\.externalID)
    }

    /// Everything the store answers about one feed, for "untouched" comparisons: the feed, its
    /// sections, images, change log, layouts, and the cache entries of `configurations` with
    /// their checkpoints and section extents.
    func contents(ofFeed name: String, configurations: [String]) throws -> [String] {
        guard let feed = try feed(named: name) else { return ["no feed \(name)"] }
        let sections = try sections(feedID: feed.id)
        var lines = [
            "\(feed)", "\(sections)", "\(try allImages(feedID: feed.id))", "\(try changes(feedID: feed.id, since: 0))",
            "\(try layouts(feedID: feed.id))", "\(try imageCounts(feedID: feed.id).sorted { $0.key < $1.key })",
        ]
        for configuration in configurations {
            guard let entry = try cacheEntry(feedID: feed.id, configuration: configuration) else {
                lines.append("no cache entry \(configuration)")
                continue
            }
            lines.append("\(entry)")
            lines.append("\(try checkpointBands(cacheID: entry.id).map { "\($0.index) \($0.top) \($0.bottom)" })")
            lines.append("\(try checkpoint(cacheID: entry.id, atOrBelow: .max).map { "\($0)" } ?? "none")")
            let extents = try sectionExtents(cacheID: entry.id, sectionIDs: sections.map(\.id))
            lines.append("\(extents.sorted { $0.key < $1.key })")
        }
        return lines
    }
}
