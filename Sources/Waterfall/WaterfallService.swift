import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// The Waterfall service: imports, reorders, removals, pages and viewports over one database.
///
/// Composes the sync layer (validated input), the store (SQL) and the layout engine (frames).
/// Every operation is one transaction (or a read followed by an optional cache write), so a
/// command line, the HTTP server or a test can call it unchanged. Errors are
/// ``WaterfallError``s: facts that each front end phrases and maps to its own statuses.
public struct WaterfallService: Sendable {
    /// The catalog, in whichever storage engine it lives.
    public let database: any CatalogStore
    /// Images between two layout-cache checkpoints.
    public let stride: Int
    /// The revision a write expects its feed at (a client's `If-Match`): when set, every
    /// operation checks it inside its transaction, before changing anything, and throws
    /// ``WaterfallError/revisionMismatch(feed:expected:actual:)`` when the feed moved on.
    public private(set) var expectedRevision: Int64?
    /// The incarnation a write expects its feed to be (the one an `If-Match` tag names, DESIGN
    /// section 19): checked with the revision; a feed made anew since throws
    /// ``WaterfallError/feedRemadeSinceRead(feed:)``.
    public private(set) var expectedIncarnation: Int64?
    /// Feeds' geometry and layouts kept in memory by a server (``keepingFeeds(_:)``);
    /// `nil` for a process per command, which reads the layout cache in the database.
    public internal(set) var keptFeeds: KeptFeeds?
    /// How long a write awaits the kept feed brought to its revision before it returns
    /// (``keepAlong(_:for:)``), or `nil` when it does not: for a server whose readers move on when
    /// its write returns, not when it commits (``keepingFeeds(_:bringingWritesAlong:)``).
    public internal(set) var bringsWritesAlong: Duration?
    /// The records a page of a kept feed reads beside its rows, kept for the catalog's version
    /// (``keepingFeeds(_:bringingWritesAlong:records:)``); `nil` where no watcher vouches for one.
    public internal(set) var keptRecords: KeptRecords?
    /// The view every read of this service answers for, within the feed it names (DESIGN
    /// section 20); `nil`: the feed itself. Writes take no view: a front end writes to a view's
    /// feed.
    public private(set) var view: String?

    /// Creates a service over an open catalog.
    public init(database: any CatalogStore, stride: Int = 256) {
        precondition(stride > 0)
        self.database = database
        self.stride = stride
    }

    /// The same service, its reads answering for the view `view` of the feed they name (DESIGN
    /// section 20); `nil`: the feed itself.
    public func inView(_ view: String?) -> WaterfallService {
        var service = self
        service.view = view
        return service
    }

    /// The same service, with every operation requiring its feed at `revision` (nil: any).
    public func expecting(revision: Int64?) -> WaterfallService {
        var service = self
        service.expectedRevision = revision
        service.expectedIncarnation = nil
        return service
    }

    /// The same service, with every operation requiring its feed in `version` (nil: any): that
    /// incarnation at that revision.
    public func expecting(_ version: FeedVersion?) -> WaterfallService {
        var service = self
        service.expectedRevision = version?.revision
        service.expectedIncarnation = version?.incarnation
        return service
    }

    /// The same service, with every operation requiring its feed to be the incarnation
    /// `incarnation` (nil: any), at whatever revision: a read of the change log that follows one
    /// feed (DESIGN section 19).
    public func expecting(incarnation: Int64?) -> WaterfallService {
        var service = self
        service.expectedRevision = nil
        service.expectedIncarnation = incarnation
        return service
    }

    /// Throws unless `feed` is at the expected revision and incarnation (when they are set);
    /// `nil` is a feed that does not exist yet, at revision 0.
    func checkExpectedRevision(of feed: FeedRecord?, named name: String) throws(WaterfallError) {
        if let incarnation = expectedIncarnation {
            // A tag names one feed: one removed since (and maybe made anew) matches nothing.
            guard let feed, feed.id == incarnation else { throw .feedRemadeSinceRead(feed: name) }
        }
        guard let expected = expectedRevision else { return }
        let actual = feed?.revision ?? 0
        if actual != expected { throw .revisionMismatch(feed: name, expected: expected, actual: actual) }
    }

    /// Opens (creating and migrating when new) the catalog at `path`: an SQLite file, or a
    /// PostgreSQL database named by a `postgres://` URL (see ``CatalogLocation``).
    /// - Throws: ``WaterfallError`` of kind `cannotCreate` or `database`.
    public static func open(path: String) throws(WaterfallError) -> WaterfallService {
        do {
            return WaterfallService(database: try CatalogLocation.open(path))
        } catch {
            throw WaterfallError(error)
        }
    }

    /// Runs `body` and turns whatever it throws into a ``WaterfallError``.
    func performNow<T>(_ body: () throws -> T) throws(WaterfallError) -> T {
        do {
            return try body()
        } catch {
            throw WaterfallError(error)
        }
    }

    /// Awaits `body` and turns whatever it throws into a ``WaterfallError``.
    func perform<T>(_ body: () async throws -> T) async throws(WaterfallError) -> T {
        do {
            return try await body()
        } catch {
            throw WaterfallError(error)
        }
    }

    /// The feed named `name`, or the only feed of the database when `name` is `nil`; with a
    /// ``view``, that view's membership of it (named as the feed, with `view` set).
    func resolveFeed(_ name: String?, _ tx: any CatalogTransaction) throws -> FeedRecord {
        guard let view else { return try resolveFeedItself(name, tx) }
        let feed = try resolveFeed(name, tx, checking: false)
        guard let record = try tx.view(feedID: feed.id, name: view) else {
            throw WaterfallError.unknownView(feed: feed.name, view: view)
        }
        guard let membership = try tx.feed(id: record.membershipID)?.asView(view, of: feed) else {
            throw WaterfallError.database("view \(view.quoted) of feed \(feed.name.quoted) has lost its images.")
        }
        try checkExpectedRevision(of: membership, named: feed.name)
        return membership
    }

    /// The feed a write changes: the feed `name` names (or the catalog's only feed), also when
    /// the service answers for a view, whose writes are its feed's (a move given in a view is a
    /// move in the feed, DESIGN section 20); the expected version is the view's then.
    func resolveFeedToEdit(_ name: String?, _ tx: any CatalogTransaction) throws -> FeedRecord {
        guard view != nil else { return try resolveFeedItself(name, tx) }
        _ = try resolveFeed(name, tx)
        return try resolveFeed(name, tx, checking: false)
    }

    /// The feed `name` names (or the catalog's only feed), itself: never a view.
    private func resolveFeedItself(_ name: String?, _ tx: any CatalogTransaction) throws -> FeedRecord {
        try resolveFeed(name, tx, checking: true)
    }

    private func resolveFeed(_ name: String?, _ tx: any CatalogTransaction, checking: Bool) throws -> FeedRecord {
        if let name {
            guard let feed = try tx.feed(named: name) else {
                throw WaterfallError.unknownFeed(name)
            }
            if checking { try checkExpectedRevision(of: feed, named: name) }
            return feed
        }
        let feeds = try tx.feeds()
        switch feeds.count {
        case 1:
            if checking { try checkExpectedRevision(of: feeds[0], named: feeds[0].name) }
            return feeds[0]
        case 0:
            throw WaterfallError.noFeeds
        default:
            throw WaterfallError.feedNotChosen(feeds.map(\.name))
        }
    }

    /// Checks a feed or layout name: 1…128 bytes of UTF-8 without control characters.
    static func validateName(_ name: String, _ parameter: WaterfallError.Parameter) throws(WaterfallError) {
        let bytes = name.utf8.count
        if bytes == 0 || bytes > 128 {
            throw WaterfallError.invalidValue(parameter, "must be 1 to 128 bytes long, got \(bytes) bytes.")
        }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw WaterfallError.invalidValue(parameter, "\(name.quoted) contains a control character.")
        }
    }
}

extension FeedRecord {
    /// This record, a view's membership, as the view `view` of `feed` answers: under the feed's
    /// name, laid out with the feed's layouts (DESIGN section 20).
    func asView(_ view: String, of feed: FeedRecord) -> FeedRecord {
        var membership = self
        membership.name = feed.name
        membership.view = view
        membership.viewOf = feed.id
        return membership
    }
}
