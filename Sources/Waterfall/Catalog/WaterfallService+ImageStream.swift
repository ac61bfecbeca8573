import WaterfallStore
import WaterfallSync

/// The first line of a feed's images streamed whole (DESIGN section 16): the feed, the revision
/// every line shows, and how many images follow.
public struct ImageStreamHead: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    public var totalItems: Int

    public init(feed: String, revision: Int64, totalItems: Int) {
        self.feed = feed
        self.revision = revision
        self.totalItems = totalItems
    }
}

extension WaterfallService {
    /// How many images a streamed listing reads, and hands on, at a time.
    public static let imageStreamBatch = 1_000

    /// Every image of a feed, in catalog order, at one revision: `head` first, then `images`
    /// with batches of at most ``imageStreamBatch`` images, each as `images --json` lists them
    /// (DESIGN section 16). One read transaction, read by order key a batch at a time, so the
    /// memory held is a batch's whatever the feed's size. `head` and `images` run on the
    /// store's thread, inside the transaction: `images` may block it (a client that reads
    /// slowly) or throw (one that went away), which ends the transaction.
    /// With `tag`, only the images carrying it, counted among themselves (`totalItems`, `index`).
    /// - Throws: ``WaterfallError`` as ``images(feed:offset:limit:tag:)``, or what `images` throws.
    public func streamImages(
        feed: String?, tag: String? = nil, head: @escaping @Sendable (ImageStreamHead) throws -> Void,
        images: @escaping @Sendable ([ImageList.Image]) throws -> Void
    ) async throws(WaterfallError) {
        try Self.validateTag(tag)
        try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let names = try tx.sections(feedID: feed.id).namesByID
                let total = try tag.map { try tx.imageCount(feedID: feed.id, tagged: $0) } ?? feed.imageCount
                try head(ImageStreamHead(feed: feed.name, revision: feed.revision, totalItems: total))
                var index = 0
                var from = Int64.min
                while true {
                    let rows =
                        if let tag {
                            try tx.images(feedID: feed.id, tagged: tag, fromKey: from, limit: Self.imageStreamBatch)
                        } else {
                            try tx.images(feedID: feed.id, fromKey: from, limit: Self.imageStreamBatch)
                        }
                    if !rows.isEmpty {
                        try images(
                            rows.map { row in
                                defer { index += 1 }
                                return ImageList.Image(row, index: index, section: names[row.sectionID] ?? nil)
                            })
                    }
                    guard rows.count == Self.imageStreamBatch, let last = rows.last?.key, last < Int64.max else {
                        return
                    }
                    from = last + 1
                }
            }
        }
    }
}
