import Foundation
import WaterfallStore

extension WaterfallService {
    /// The change log of a feed after `revision`, oldest first: whole, or a page of whole
    /// revisions when `limit` is given (DESIGN section 16, *Resumable sync*).
    ///
    /// A page holds the revisions after `revision` whose rows add up to at most `limit`, and
    /// never part of a revision, so that a client asking again since the page's ``ChangeList/nextSince``
    /// misses no row; a first revision of more than `limit` rows (a large import) is answered
    /// whole. `nextSince` is the page's last revision while later rows exist, else absent.
    /// - Throws: ``WaterfallError`` `invalidValue` for a negative revision or a limit outside
    ///   1…100,000; `changesPruned` when rows after `revision` were pruned (`serve --keep-changes`).
    public func changes(feed: String?, since revision: Int64, limit: Int? = nil) async throws(WaterfallError)
        -> ChangeList
    {
        if revision < 0 {
            throw WaterfallError.invalidValue(.since, "must be a revision of 0 or more, got \(revision).")
        }
        if let limit, limit < 1 || limit > Self.maximumLimit {
            throw WaterfallError.invalidValue(.limit, "must be between 1 and \(Self.maximumLimit), got \(limit).")
        }
        return try await perform {
            try await database.read { tx in
                let feed = try feedWithLog(feed, since: revision, tx)
                let (rows, nextSince, truncated) = try Self.changePage(of: feed.id, since: revision, limit: limit, tx)
                var list = ChangeList(
                    feed: feed.name, revision: feed.revision, incarnation: feed.id, nextSince: nextSince,
                    changes: rows.map(ChangeList.Change.init))
                list.truncated = truncated
                return list
            }
        }
    }

    /// The page of `changes` a server answers when the request names no `limit` (DESIGN
    /// section 19: a client never has the whole log read and sent by leaving the limit out).
    public static let defaultChangeLimit = 1_000

    /// The most changes one revision of an event stream carries (DESIGN section 19): a revision
    /// of more is sent as its counts (``ChangeEventPage/Event/truncated``).
    public static let eventChangeLimit = 1_000

    /// The feed an event stream from `revision` follows, as it is now: its incarnation and
    /// revision, read without any of its log.
    /// - Throws: ``WaterfallError`` `unknownFeed`, or `changesPruned` when rows after `revision`
    ///   were pruned (or `invalidValue` for a negative revision).
    public func changeEventsStart(feed name: String, since revision: Int64) async throws(WaterfallError)
        -> FeedVersion
    {
        if revision < 0 {
            throw WaterfallError.invalidValue(.since, "must be a revision of 0 or more, got \(revision).")
        }
        return try await perform {
            try await database.read { tx in
                let feed = try feedWithLog(name, since: revision, tx)
                return FeedVersion(incarnation: feed.id, revision: feed.revision)
            }
        }
    }

    /// A feed's change log after `revision` as an event stream sends it (DESIGN section 19):
    /// whole revisions whose changes add up to at most `limit`, so that a stream holds one page
    /// of the log in memory whatever the log holds; a first revision of more than `limit`
    /// changes is given by its counts alone, truncated. The stream reads again from the page's
    /// last revision while ``ChangeEventPage/more``.
    /// - Throws: ``WaterfallError`` `unknownFeed` when the feed is gone, `changesPruned` when rows
    ///   after `revision` were pruned.
    public func changeEvents(feed name: String, since revision: Int64, limit: Int = eventChangeLimit)
        async throws(WaterfallError) -> ChangeEventPage
    {
        let limit = Swift.max(1, Swift.min(limit, Self.maximumLimit))
        return try await perform {
            try await database.read { tx in
                let feed = try feedWithLog(name, since: revision, tx)
                let rows = try tx.changes(feedID: feed.id, since: revision, limit: limit + 1)
                var page = ChangeEventPage(version: FeedVersion(incarnation: feed.id, revision: feed.revision))
                var whole = rows[...]
                if rows.count > limit {
                    page.more = true
                    let cut = rows[limit].revision
                    whole = rows.prefix { $0.revision < cut }
                    if whole.isEmpty {
                        let counts = try tx.changeCounts(feedID: feed.id, revision: cut)
                        page.events = [.truncated(revision: cut, counts: counts)]
                        return page
                    }
                }
                var start = whole.startIndex
                while start < whole.endIndex {
                    let revision = whole[start].revision
                    let end = whole[start...].firstIndex { $0.revision != revision } ?? whole.endIndex
                    page.events.append(
                        .whole(revision: revision, changes: whole[start..<end].map(ChangeList.Change.init)))
                    start = end
                }
                return page
            }
        }
    }

    /// The feed named `name` (or the only one), whose change log is read after `revision`.
    /// - Throws: ``WaterfallError`` `changesPruned` when rows after `revision` were pruned.
    private func feedWithLog(_ name: String?, since revision: Int64, _ tx: any CatalogTransaction) throws
        -> FeedRecord
    {
        let feed = try resolveFeed(name, tx)
        let from = try tx.changesFrom(feedID: feed.id)
        if revision < from { throw WaterfallError.changesPruned(feed: feed.name, since: revision, from: from) }
        return feed
    }

    /// The rows of whole revisions after `revision`, at most `limit` of them unless the first
    /// revision alone has more, and the revision to go on from when rows are left after them.
    /// A first revision of more than ``maximumLimit`` rows is given by its counts alone
    /// (`truncated`): a page never holds more than that many rows, whatever a revision made.
    private static func changePage(
        of feedID: Int64, since revision: Int64, limit: Int?, _ tx: any CatalogTransaction
    ) throws -> (rows: [ChangeRecord], nextSince: Int64?, truncated: (revision: Int64, counts: [ChangeKind: Int])?) {
        guard let limit else { return (try tx.changes(feedID: feedID, since: revision), nil, nil) }
        // One row more than the page holds tells whether the log goes on, and which revision
        // the limit cut.
        let rows = try tx.changes(feedID: feedID, since: revision, limit: limit + 1)
        guard rows.count > limit else { return (rows, nil, nil) }
        let cut = rows[limit].revision
        let whole = rows.prefix { $0.revision < cut }
        if let last = whole.last { return (Array(whole), last.revision, nil) }
        let more = try !tx.changes(feedID: feedID, since: cut, limit: 1).isEmpty
        // The first revision alone passes the limit: it is answered whole, up to the largest page.
        let counts = try tx.changeCounts(feedID: feedID, revision: cut)
        if counts.values.reduce(0, +) > maximumLimit { return ([], more ? cut : nil, (cut, counts)) }
        let first = try tx.changes(feedID: feedID, since: revision, through: cut)
        return (first, more ? cut : nil, nil)
    }

    /// The most change-log rows one transaction of ``pruneChanges(keeping:now:)`` deletes, so
    /// that it holds the write lock for milliseconds, not for the seconds a million-row import's
    /// log would take.
    static let pruneBatch = 10_000

    /// Prunes every feed's change log (and its views', DESIGN section 20) down to what
    /// `retention` keeps, best effort: a read
    /// finds the feeds with rows to prune, then each batch of at most 10,000 rows is a write of
    /// its own, skipped (to be tried at the next call) when another writer holds the database
    /// for more than a tenth of a second, since pruning is worth no wait. A call that finds
    /// nothing to prune writes nothing. Returns the rows deleted.
    @discardableResult
    public func pruneChanges(keeping retention: ChangeRetention, now: Date = Date()) async throws(WaterfallError) -> Int
    {
        try await perform {
            let due = try await database.read { tx in
                try tx.feeds().filter { try Self.prunable($0, retention, now, tx) != nil }.map(\.name)
            }
            var deleted = 0
            for name in due {
                while true {
                    let batch = try await database.writeIfAvailable(.feed(name), within: 0.1) { tx -> Int in
                        // Read again under the lock: the feed may have moved on, or be gone.
                        guard let feed = try tx.feed(named: name),
                            let through = try Self.prunable(feed, retention, now, tx)
                        else { return 0 }
                        // Its views' logs follow it (DESIGN section 20): a view's revision is its feed's.
                        var deleted = try tx.pruneChanges(feedID: feed.id, through: through, limit: Self.pruneBatch)
                        for view in try tx.views(feedID: feed.id) {
                            deleted += try tx.pruneChanges(
                                feedID: view.membershipID, through: through, limit: Self.pruneBatch)
                        }
                        return deleted
                    }
                    guard let batch else { break }
                    deleted += batch
                    if batch < Self.pruneBatch { break }
                }
            }
            return deleted
        }
    }

    /// The revision up to which `feed`'s change log is to be pruned now, or `nil` when nothing
    /// of it is: the revision `retention` keeps from is past what was pruned, or rows at or
    /// before it are left (a prune cut short by its batch size).
    private static func prunable(
        _ feed: FeedRecord, _ retention: ChangeRetention, _ now: Date, _ tx: any CatalogTransaction
    ) throws -> Int64? {
        guard
            let through = try retention.prunableThrough(
                revision: feed.revision, now: now,
                lastCommittedBefore: { try tx.lastRevision(feedID: feed.id, committedBefore: $0) })
        else { return nil }
        if through > (try tx.changesFrom(feedID: feed.id)) { return through }
        guard let oldest = try tx.changes(feedID: feed.id, since: 0, limit: 1).first, oldest.revision <= through else {
            return nil
        }
        return through
    }
}

extension ChangeList.Change {
    /// A row of the change log as the log's answers give it.
    init(_ row: ChangeRecord) {
        self.init(revision: row.revision, kind: row.kind.rawValue, id: row.externalID, section: row.section)
    }
}
