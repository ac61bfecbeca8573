import WaterfallStore
import WaterfallSync

/// `view list --json`: a feed's views, by name (DESIGN section 20).
public struct ViewList: Hashable, Sendable {
    public struct View: Hashable, Sendable {
        public var name: String
        public var rule: ViewRule
        /// How many of the feed's images match, and in how many sections.
        public var images: Int
        public var sections: Int
    }
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    public var views: [View]
}

extension WaterfallService {
    /// The longest view name, in UTF-8 bytes.
    public static let maximumViewNameBytes = 64

    /// Saves `rule` as the view `name` of a feed (replacing a view of that name, whose images
    /// are chosen anew: another incarnation), choosing its images now. Returns the view.
    /// - Throws: ``WaterfallError`` `usage` for a bad name.
    public func addView(feed: String?, name: String, rule: ViewRule) async throws(WaterfallError) -> ViewList.View {
        try Self.validateViewName(name)
        return try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                let feed = try resolveFeedToEdit(feed, tx)
                if let existing = try tx.view(feedID: feed.id, name: name) {
                    try tx.deleteFeed(id: existing.membershipID)
                } else if try tx.views(feedID: feed.id).count >= Self.maximumViewsPerFeed {
                    throw WaterfallError.invalidValue(
                        .viewName,
                        "cannot name a new view: feed \(feed.name.quoted) has \(Self.maximumViewsPerFeed) views, the most a feed may have; remove one first."
                    )
                }
                let record = try ViewMembership.build(name, rule: rule, of: feed, tx)
                return try Self.summary(of: record, rule: rule, tx)
            }
        }
    }

    /// A feed's views, by name, with their counts.
    public func views(feed: String?) async throws(WaterfallError) -> ViewList {
        try await perform {
            try await database.read { tx in
                let feed = try inView(nil).resolveFeed(feed, tx)
                return ViewList(
                    feed: feed.name, revision: feed.revision, incarnation: feed.id,
                    views: try tx.views(feedID: feed.id).map { record in
                        try Self.summary(of: record, rule: try Self.rule(of: record), tx)
                    })
            }
        }
    }

    /// The view `name` of a feed with its counts, and the feed's version (what its answer is
    /// tagged with).
    /// - Throws: ``WaterfallError/unknownView(feed:view:)``.
    public func view(feed: String?, name: String) async throws(WaterfallError) -> (ViewList.View, FeedVersion) {
        try await perform {
            try await database.read { tx in
                let feed = try inView(nil).resolveFeed(feed, tx)
                guard let record = try tx.view(feedID: feed.id, name: name) else {
                    throw WaterfallError.unknownView(feed: feed.name, view: name)
                }
                return (
                    try Self.summary(of: record, rule: try Self.rule(of: record), tx),
                    FeedVersion(incarnation: feed.id, revision: feed.revision)
                )
            }
        }
    }

    /// Removes the view `name` of a feed.
    /// - Throws: ``WaterfallError/unknownView(feed:view:)``.
    public func removeView(feed: String?, name: String) async throws(WaterfallError) {
        try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                let feed = try inView(nil).resolveFeed(feed, tx)
                guard try tx.removeView(feedID: feed.id, name: name) else {
                    throw WaterfallError.unknownView(feed: feed.name, view: name)
                }
            }
        }
    }

    private static func summary(of record: ViewRecord, rule: ViewRule, _ tx: any CatalogTransaction) throws
        -> ViewList.View
    {
        let membership = try tx.feed(id: record.membershipID)
        return ViewList.View(
            name: record.name, rule: rule, images: membership?.imageCount ?? 0,
            sections: try tx.sectionIDs(feedID: record.membershipID).count)
    }

    static func rule(of record: ViewRecord) throws(WaterfallError) -> ViewRule {
        do {
            return try ViewRule(json: Array(record.rule.utf8), source: "view \(record.name.quoted)")
        } catch {
            throw WaterfallError.database("the catalog holds a view's rule it cannot read: \(error.message)")
        }
    }

    /// Checks a view's name: 1…64 bytes of UTF-8 without control characters.
    static func validateViewName(_ name: String) throws(WaterfallError) {
        let bytes = name.utf8.count
        if bytes == 0 || bytes > maximumViewNameBytes {
            throw WaterfallError.invalidValue(
                .viewName, "must be 1 to \(maximumViewNameBytes) bytes long, got \(bytes) bytes.")
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw WaterfallError.invalidValue(.viewName, "must not contain control characters, got \(name.quoted).")
        }
    }

    /// Reads a view's rule from JSON a front end received.
    /// - Throws: ``WaterfallError`` `invalidValue(.viewRule, …)` in one sentence with its path.
    public static func viewRule(json bytes: [UInt8], source: String) throws(WaterfallError) -> ViewRule {
        do {
            return try ViewRule(json: bytes, source: source)
        } catch {
            throw WaterfallError.invalidData(error.message)
        }
    }
}
