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
                            incarnation: $0.id, layouts: $0.layouts)
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
    ///
    /// The cursor is verified (DESIGN section 19) before any image is read: its shape first, then
    /// its MAC under the catalog's secret for this feed's name.
    /// - Throws: ``WaterfallError``: `cursorExpired` when the feed changed since the cursor's
    ///   revision, `cursorOfRemovedFeed` when the feed was removed and made anew since,
    ///   `invalidValue` for a token this catalog did not write for this feed, or a bad limit.
    public func images(feed: String?, cursor token: String, limit: Int) async throws(WaterfallError) -> ImageList {
        try Self.validateSlice(offset: 0, limit: limit)
        let notOurs = WaterfallError.invalidValue(
            .cursor,
            "must be a nextCursor given for this feed by this catalog, got \(String(token.prefix(100)).quoted).")
        guard let sealed = ListingCursor.Sealed(token: token) else { throw notOurs }
        return try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                guard let cursor = sealed.open(feed: feed.name, secret: try tx.tokenSecret()) else { throw notOurs }
                guard cursor.incarnation == feed.id else {
                    throw WaterfallError.cursorOfRemovedFeed(feed: feed.name, current: feed.revision)
                }
                guard feed.revision == cursor.revision else {
                    throw WaterfallError.cursorExpired(
                        feed: feed.name, revision: cursor.revision, current: feed.revision)
                }
                guard cursor.index < feed.imageCount else {
                    throw WaterfallError.invalidValue(
                        .cursor,
                        "names image \(cursor.index), past the end of feed \(feed.name.quoted) (\(feed.imageCount) images)."
                    )
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
        // `offset` is at most `maximumOffset` (a valid slice, or a verified cursor's index) and
        // `limit` at most `maximumLimit`: neither sum can overflow.
        let next = offset + rows.count
        let cursor =
            next < feed.imageCount && rows.count == limit
            ? rows.last.map {
                ListingCursor(incarnation: feed.id, revision: feed.revision, index: next, key: $0.key + 1)
            }
            : nil
        return ImageList(
            feed: feed.name, revision: feed.revision, incarnation: feed.id, totalItems: feed.imageCount,
            nextOffset: offset + limit < feed.imageCount ? offset + limit : nil,
            nextCursor: try cursor.map { $0.token(feed: feed.name, secret: try tx.tokenSecret()) },
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
                    feed: feed.name, revision: feed.revision, incarnation: feed.id,
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
