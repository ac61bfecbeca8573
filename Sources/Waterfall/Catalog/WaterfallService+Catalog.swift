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

    /// A slice of a feed's images in catalog order, or of those that carry `tag` (compared
    /// exactly; `index`, `totalItems` and `offset` then count those images alone). O(offset +
    /// limit) untagged; a tag reads the feed's rows to count its images.
    /// - Throws: ``WaterfallError`` `usage` for a negative offset, a limit outside 1…100,000 or
    ///   a tag no image could carry.
    public func images(feed: String?, offset: Int, limit: Int, tag: String? = nil) async throws(WaterfallError)
        -> ImageList
    {
        try Self.validateSlice(offset: offset, limit: limit)
        try Self.validateTag(tag)
        return try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                let listing = try Listing(feed, tag: tag, tx)
                let rows =
                    if let tag {
                        try tx.images(feedID: feed.id, tagged: tag, offset: offset, limit: limit)
                    } else {
                        try tx.images(feedID: feed.id, offset: offset, limit: limit)
                    }
                return try list(listing, from: offset, rows, limit: limit, tx)
            }
        }
    }

    /// The next slice of a listing from its cursor (`nextCursor` of the slice before), as of the
    /// cursor's revision (DESIGN section 16): while the feed is still at that revision, the
    /// `limit` images after the previous slice; once anything was committed to the feed since,
    /// the listing cannot be given as of it and the client lists again or follows the changes.
    /// A cursor of a listing by tag goes on with that tag only (the MAC covers it).
    ///
    /// The cursor is verified (DESIGN section 19) before any image is read: its shape first, then
    /// its MAC under the catalog's secret for this feed's name (and tag).
    /// - Throws: ``WaterfallError``: `cursorExpired` when the feed changed since the cursor's
    ///   revision, `cursorOfRemovedFeed` when the feed was removed and made anew since,
    ///   `invalidValue` for a token this catalog did not write for this feed, or a bad limit.
    public func images(feed: String?, cursor token: String, limit: Int, tag: String? = nil) async throws(WaterfallError)
        -> ImageList
    {
        try Self.validateSlice(offset: 0, limit: limit)
        try Self.validateTag(tag)
        let notOurs = WaterfallError.invalidValue(
            .cursor,
            "must be a nextCursor given for this \(tag == nil ? "feed" : "feed and tag") by this catalog, got \(String(token.prefix(100)).quoted)."
        )
        guard let sealed = ListingCursor.Sealed(token: token) else { throw notOurs }
        return try await perform {
            try await database.read { tx in
                let feed = try resolveFeed(feed, tx)
                guard let cursor = sealed.open(feed: Listing.scope(feed.name, tag: tag), secret: try tx.tokenSecret())
                else { throw notOurs }
                guard cursor.incarnation == feed.id else {
                    throw WaterfallError.cursorOfRemovedFeed(feed: feed.name, current: feed.revision)
                }
                guard feed.revision == cursor.revision else {
                    throw WaterfallError.cursorExpired(
                        feed: feed.name, revision: cursor.revision, current: feed.revision)
                }
                let listing = try Listing(feed, tag: tag, tx)
                guard cursor.index < listing.count else {
                    throw WaterfallError.invalidValue(
                        .cursor,
                        "names image \(cursor.index), past the end of feed \(feed.name.quoted) (\(listing.count) images)."
                    )
                }
                let rows =
                    if let tag {
                        try tx.images(feedID: feed.id, tagged: tag, fromKey: cursor.key, limit: limit)
                    } else {
                        try tx.images(feedID: feed.id, fromKey: cursor.key, limit: limit)
                    }
                return try list(listing, from: cursor.index, rows, limit: limit, tx)
            }
        }
    }

    /// What a listing lists: a feed's images, or those of them carrying a tag.
    private struct Listing {
        var feed: FeedRecord
        var tag: String?
        /// How many images the listing holds.
        var count: Int

        init(_ feed: FeedRecord, tag: String?, _ tx: any CatalogTransaction) throws {
            self.feed = feed
            self.tag = tag
            count = try tag.map { try tx.imageCount(feedID: feed.id, tagged: $0) } ?? feed.imageCount
        }

        /// What a cursor of the listing is bound to: the feed's name, and its tag after a NUL
        /// (a feed's name holds no control character, so no two listings share a scope).
        static func scope(_ feed: String, tag: String?) -> String {
            tag.map { feed + "\u{0}tag\u{0}" + $0 } ?? feed
        }
    }

    /// A slice of `listing`: `rows`, the images from index `offset`.
    private func list(
        _ listing: Listing, from offset: Int, _ rows: [ImageRecord], limit: Int, _ tx: any CatalogTransaction
    ) throws -> ImageList {
        let feed = listing.feed
        let names = try tx.sections(ids: Array(Set(rows.map(\.sectionID)))).reduce(into: [Int64: String?]()) {
            $0[$1.id] = $1.name
        }
        // `offset` is at most `maximumOffset` (a valid slice, or a verified cursor's index) and
        // `limit` at most `maximumLimit`: neither sum can overflow.
        let next = offset + rows.count
        let cursor =
            next < listing.count && rows.count == limit
            ? rows.last.map {
                ListingCursor(incarnation: feed.id, revision: feed.revision, index: next, key: $0.key + 1)
            }
            : nil
        return ImageList(
            feed: feed.name, revision: feed.revision, incarnation: feed.id, totalItems: listing.count,
            nextOffset: offset + limit < listing.count ? offset + limit : nil,
            nextCursor: try cursor.map {
                $0.token(feed: Listing.scope(feed.name, tag: listing.tag), secret: try tx.tokenSecret())
            },
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

    /// Refuses a tag no image could carry (``ImageTags/isValid(_:)``).
    static func validateTag(_ tag: String?) throws(WaterfallError) {
        if let tag, !ImageTags.isValid(tag) {
            throw WaterfallError.invalidValue(
                .tag,
                "must be 1 to \(ImageTags.maximumBytes) bytes without control characters, got \(String(tag.prefix(100)).quoted)."
            )
        }
    }

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
