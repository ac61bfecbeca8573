import WaterfallStore
import WaterfallSync

extension WaterfallService {
    /// Every feed of the database with its counts, by name.
    public func feeds() async throws(WaterfallError) -> FeedList {
        try await perform {
            try await database.read { tx in
                FeedList(
                    feeds: try tx.feedSummaries().map {
                        .init(
                            name: $0.name, images: $0.images, sections: $0.sections, revision: $0.revision,
                            layouts: $0.layouts)
                    })
            }
        }
    }

    /// A slice of a feed's images in catalog order. O(offset + limit).
    /// - Throws: ``WaterfallError`` `usage` for a negative offset or a limit outside 1…100,000.
    public func images(feed: String?, offset: Int, limit: Int) async throws(WaterfallError) -> ImageList {
        try Self.validateSlice(offset: offset, limit: limit)
        return try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                return try list(
                    feed, from: offset, try tx.images(feedID: feed.id, offset: offset, limit: limit), limit: limit, tx)
            }
        }
    }

    /// The next slice of a listing from its cursor (`nextCursor` of the slice before), as of the
    /// cursor's revision (DESIGN section 16): while the feed is still at that revision, the
    /// `limit` images after the previous slice; once anything was committed to the feed since,
    /// the listing cannot be given as of it and the client lists again or follows the changes.
    /// - Throws: ``WaterfallError``: `cursorExpired` when the feed changed since the cursor's
    ///   revision, `invalidValue` for a token this server did not write or a bad limit.
    public func images(feed: String?, cursor token: String, limit: Int) async throws(WaterfallError) -> ImageList {
        try Self.validateSlice(offset: 0, limit: limit)
        guard let cursor = ListingCursor(token: token) else {
            throw WaterfallError.invalidValue(.cursor, "must be a nextCursor this server gave, got \(token.quoted).")
        }
        return try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                guard feed.revision == cursor.revision else {
                    throw WaterfallError.cursorExpired(
                        feed: feed.name, revision: cursor.revision, current: feed.revision)
                }
                return try list(
                    feed, from: cursor.index, try tx.images(feedID: feed.id, fromKey: cursor.key, limit: limit),
                    limit: limit, tx)
            }
        }
    }

    /// A slice of `feed`'s listing: `rows`, the images from index `offset`.
    private func list(
        _ feed: FeedRecord, from offset: Int, _ rows: [ImageRecord], limit: Int, _ tx: any CatalogTransaction
    ) throws -> ImageList {
        let names = try tx.sections(ids: Array(Set(rows.map(\.sectionID)))).reduce(into: [Int64: String?]()) {
            $0[$1.id] = $1.name
        }
        let next = offset + rows.count
        return ImageList(
            feed: feed.name, revision: feed.revision, totalItems: feed.imageCount,
            nextOffset: offset + limit < feed.imageCount ? offset + limit : nil,
            nextCursor: next < feed.imageCount && rows.count == limit
                ? rows.last.map { ListingCursor(revision: feed.revision, index: next, key: $0.key + 1).token } : nil,
            images: rows.enumerated().map { index, row in
                .init(row, index: offset + index, section: names[row.sectionID] ?? nil)
            })
    }

    /// A feed's sections in order, with their titles and image counts (what headers show).
    public func sections(feed: String?) async throws(WaterfallError) -> SectionList {
        try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let counts = try tx.imageCounts(feedID: feed.id)
                return SectionList(
                    feed: feed.name, revision: feed.revision,
                    sections: try tx.sections(feedID: feed.id).map {
                        .init(id: $0.name, title: $0.title, images: counts[$0.id] ?? 0)
                    })
            }
        }
    }

    /// The largest page a query may ask for.
    public static let maximumLimit = 100_000

    /// The largest offset a query may ask for: past every feed's end (10,000,000 images at
    /// most), and far from where `offset + limit` could overflow.
    public static let maximumOffset = Int(Int32.max)

    static func validateSlice(offset: Int, limit: Int) throws(WaterfallError) {
        if offset < 0 {
            throw WaterfallError.invalidValue(.offset, "must be 0 or more, got \(offset).")
        }
        if offset > maximumOffset {
            throw WaterfallError.invalidValue(.offset, "must be at most \(maximumOffset), got \(offset).")
        }
        if limit < 1 || limit > maximumLimit {
            throw WaterfallError.invalidValue(.limit, "must be between 1 and \(maximumLimit), got \(limit).")
        }
    }
}
