import Foundation
import WaterfallLayout
import WaterfallStore

/// What a server keeps in memory so that reads stay fast while feeds change (DESIGN section 12):
/// for each feed it serves, the feed's geometry (``HotFeedGeometry``, loaded on first use, then
/// followed through the change log) and, per layout configuration, the sections laid out
/// (``HotLayout``). A read then reads only its own rows from the database, whatever was written
/// just before it: a move near the top of a million-image feed costs the next deep page the
/// section it changed, laid out in memory, once for all readers, not a re-layout read back from
/// the database.
///
/// Bounded by ``budget`` bytes of geometry: a feed that does not fit is served from the layout
/// cache in the database (DESIGN section 5) as a process per command is. Works over any engine:
/// it follows the change log inside each reader's own transaction, so commits by other
/// processes or other servers are seen as soon as the reader's snapshot holds them.
public final class HotGeometry: @unchecked Sendable {
    /// The most bytes of geometry kept, all feeds together.
    public let budget: Int
    private let lock = NSLock()
    private var feeds: [Int64: HotFeedEntry] = [:]
    /// Layout configurations kept per feed; past it the feed's layouts are dropped and rebuilt
    /// as asked for (each costs a pass over the feed in memory).
    static let layoutsPerFeed = 16

    /// - Parameter budget: the most bytes of geometry to keep (`serve --hot-memory`).
    public init(budget: Int) {
        self.budget = budget
    }

    /// The feeds held in memory, by name, with their images and bytes (for `/v1/stats`).
    /// Never waits for a reader that holds a feed (a scrape of `/metrics` during a load of a
    /// million images answers at once, without that feed).
    public var report: [HotFeedReport] {
        let entries = lock.withLock { Array(feeds.values) }
        return entries.compactMap(\.report).sorted { $0.feed < $1.feed }
    }

    /// The geometry and the placement of `engine`'s layout at `feed`'s revision, brought there
    /// inside the caller's read transaction `tx` (which shows `feed`), computed once for every
    /// reader of that revision.
    /// - Parameter mayBeAhead: whether a copy at a newer revision than `feed`'s may be another
    ///   reader's (then `.ahead`: read again); if not, the feed was removed and made anew under
    ///   the same id (SQLite reuses the greatest id), and the copy is loaded anew.
    func placement<Kind: StreamingLayoutKind>(
        feed: FeedRecord, engine: Kind, key: String, stride: Int, mayBeAhead: Bool, _ tx: any CatalogTransaction
    ) throws -> HotLookup<Kind> {
        // Admitted by the feed's image count, which the reader's snapshot gives for free: a feed
        // that has outgrown what the other feeds leave of the budget is dropped. A feed name
        // names one feed at a time, so a kept feed of this name and another id was removed.
        if lock.withLock({ feeds[feed.id] == nil }) { try dropRemovedFeeds(tx) }
        let entry: HotFeedEntry? = lock.withLock {
            let others = feeds.reduce(0) { $0 + ($1.key == feed.id ? 0 : $1.value.reservedBytes) }
            let needed = feed.imageCount * HotFeedGeometry.bytesPerImage
            guard others + needed <= budget else {
                feeds[feed.id] = nil
                return nil
            }
            if let entry = feeds[feed.id] {
                entry.reservedBytes = needed
                return entry
            }
            let entry = HotFeedEntry(name: feed.name, reservedBytes: needed)
            feeds[feed.id] = entry
            return entry
        }
        guard let entry else { return .notKept }
        return try entry.withHold { () throws -> HotLookup<Kind> in
            if let geometry = entry.geometry, geometry.revision > feed.revision {
                if mayBeAhead { return .ahead }
                entry.geometry = nil
                entry.layouts.removeAll()
            }
            // Followed on a copy (sharing every untouched section): a failure half-way leaves
            // the kept copy as it was.
            if var followed = entry.geometry, try followed.follow(to: feed, tx) {
                entry.geometry = followed
            } else {
                entry.geometry = nil
                entry.geometry = try HotFeedGeometry(feed: feed, tx)
            }
            let geometry = entry.geometry!
            let layout: HotLayout<Kind>
            if let kept = entry.layouts[key] as? HotLayout<Kind>, kept.stride == stride {
                layout = kept
            } else {
                if entry.layouts.count >= Self.layoutsPerFeed { entry.layouts.removeAll() }
                layout = HotLayout(engine: engine, stride: stride)
                entry.layouts[key] = layout
            }
            return .placed(geometry, try layout.placement(for: geometry) { try engine.variants(of: geometry.sectionIDs, tx: tx) })
        }
    }

    /// Runs `body` holding what is kept of `feed`, waiting for it without blocking a thread
    /// (a synchronous reader may hold it while it reads the database); `nil`, running nothing,
    /// when nothing is kept of the feed.
    func withFeedWithoutBlocking<T>(_ feed: FeedRecord, _ body: (HotHeldFeed) throws -> T) async rethrows -> T? {
        guard let entry = entry(of: feed) else { return nil }
        return try await entry.withHoldWithoutBlocking { try body(HotHeldFeed(entry: entry, feed: feed)) }
    }

    /// Who brings the copy of `feed` to its revision without blocking a thread, when the copy is
    /// behind it: this reader (`.lead`, from the copy given: read the change log, then
    /// ``finishFollow(feed:from:reads:)``), another one (`.wait`: ``waitForFollow(feed:)`` if it
    /// is still under way, then look again), or nobody (`.none`: the synchronous way does, or
    /// loads anew).
    func followTurn(feed: FeedRecord) async -> HotFollowTurn {
        guard let entry = entry(of: feed) else { return .none }
        guard let geometry = await entry.withHoldWithoutBlocking({ entry.geometry }) else { return .none }
        // Brought there since the reader found it behind.
        if geometry.revision >= feed.revision { return .wait }
        guard geometry.canFollow(to: feed) else { return .none }
        return entry.withFollowing { following in
            if let following { return following.revision == feed.revision ? .wait : .none }
            following = (feed.revision, [])
            return .lead(geometry)
        }
    }

    /// Waits, without blocking a thread, for the follow under way to `feed`'s revision, if any.
    func waitForFollow(feed: FeedRecord) async {
        guard let entry = entry(of: feed) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let waits = entry.withFollowing { following in
                guard following?.revision == feed.revision else { return false }
                following?.waiting.append(waiter)
                return true
            }
            if !waits { waiter.resume() }
        }
    }

    /// Ends the follow this reader led from `copy` to `feed`'s revision: applies `reads` (`nil`:
    /// reading failed, or the change log was too long) when the kept copy is still at `copy`'s
    /// revision, then wakes the readers waiting. A copy that does not follow is left as it was,
    /// for the synchronous way to load anew.
    func finishFollow(feed: FeedRecord, from copy: HotFeedGeometry, reads: HotFollowReads?) async {
        guard let entry = entry(of: feed) else { return }
        if let reads {
            await entry.withHoldWithoutBlocking {
                if var followed = entry.geometry, followed.revision == copy.revision, followed.apply(reads, to: feed) {
                    entry.geometry = followed
                }
            }
        }
        let waiting = entry.withFollowing { following in
            defer { following = nil }
            return following?.waiting ?? []
        }
        for waiter in waiting { waiter.resume() }
    }

    /// What is kept of `feed`, if anything (and of this feed, not of a removed one of its id).
    private func entry(of feed: FeedRecord) -> HotFeedEntry? {
        guard let entry = lock.withLock({ feeds[feed.id] }), entry.name == feed.name else { return nil }
        return entry
    }

    /// Drops what is kept of feeds the catalog no longer has (removed by another process or
    /// server), which would otherwise hold their share of the budget for good. Runs when a
    /// feed not kept yet is asked for: a few look-ups by name, one per kept feed.
    private func dropRemovedFeeds(_ tx: any CatalogTransaction) throws {
        let kept = lock.withLock { feeds.map { (id: $0.key, name: $0.value.name) } }
        var removed: [Int64] = []
        for (id, name) in kept where try tx.feed(named: name)?.id != id { removed.append(id) }
        guard !removed.isEmpty else { return }
        lock.withLock { for id in removed { feeds[id] = nil } }
    }

    /// Forgets what is kept of a feed (its copy disagreed with the catalog): the next reader
    /// loads it anew. `removingEntry`: the feed is gone, and so is its share of the budget.
    func forget(feedID: Int64, removingEntry: Bool = false) {
        let entry = lock.withLock {
            defer { if removingEntry { feeds[feedID] = nil } }
            return feeds[feedID]
        }
        entry?.withHold {
            entry?.geometry = nil
            entry?.layouts.removeAll()
        }
    }
}

/// A feed held in memory, as `/v1/stats` reports it.
public struct HotFeedReport: Hashable, Sendable, Encodable {
    public var feed: String
    public var revision: Int64
    public var images: Int
    public var bytes: Int
}

/// What is kept of one feed, held by a reader without blocking
/// (``HotGeometry/withFeedWithoutBlocking(_:_:)``), for as long as its closure runs.
struct HotHeldFeed {
    fileprivate let entry: HotFeedEntry
    let feed: FeedRecord

    /// The geometry and the placement of `engine`'s layout at exactly the feed's revision, found
    /// without reading anything: what an answer read without blocking needs
    /// (``WaterfallService/pageWithoutBlocking(feed:layout:offset:limit:)``). A layout kept at
    /// an earlier revision is placed at this one here, in memory, once the geometry is there;
    /// with sections that may differ (DESIGN section 14) that takes the feed's `sections`, and
    /// without them it asks for them (`.needsSections`).
    func readyPlacement<Kind: StreamingLayoutKind>(
        engine: Kind, key: String, stride: Int, sections: [SectionRecord]?
    ) -> HotReadiness<(HotFeedGeometry, HotPlacement<Kind>)> {
        guard let geometry = entry.geometry, let layout = entry.layouts[key] as? HotLayout<Kind>, layout.stride == stride else {
            return .notReady
        }
        if geometry.revision < feed.revision { return .behind }
        guard geometry.revision == feed.revision, geometry.count == feed.imageCount else { return .notReady }
        if let placement = layout.placement, placement.revision == geometry.revision { return .ready((geometry, placement)) }
        if engine.hasSectionVariants && sections == nil { return .needsSections }
        let placement = layout.placement(for: geometry) { engine.variants(of: geometry.sectionIDs, records: sections ?? []) }
        return .ready((geometry, placement))
    }
}

/// What a reader without blocking finds in the hot copy, reading nothing
/// (``HotHeldFeed/readyPlacement(engine:key:stride:sections:)``), and then what it makes of it.
enum HotReadiness<Ready> {
    /// What the reader needs, at its revision: the geometry and the layout's placement, then the
    /// answer laid out from them.
    case ready(Ready)
    /// The copy is at an earlier revision: it may be followed (``HotGeometry/followTurn(feed:)``).
    case behind
    /// The layout can be placed once the feed's sections are read.
    case needsSections
    /// Not without reading (no copy, no such layout kept, the copy is newer than the reader):
    /// the synchronous way.
    case notReady

    /// The same, with what is ready made into something else.
    func map<T>(_ transform: (Ready) throws -> T) rethrows -> HotReadiness<T> {
        switch self {
        case .ready(let ready): .ready(try transform(ready))
        case .behind: .behind
        case .needsSections: .needsSections
        case .notReady: .notReady
        }
    }
}

/// Who follows the change log of a copy that is behind (``HotGeometry/followTurn(feed:)``).
enum HotFollowTurn {
    /// Follow from this copy.
    case lead(HotFeedGeometry)
    /// Another reader follows, or has: wait for it, then look again.
    case wait
    /// Nobody can without reading synchronously.
    case none
}

/// What ``HotGeometry`` has for a reader.
enum HotLookup<Kind: StreamingLayoutKind> {
    /// The feed's geometry and layout at the reader's revision.
    case placed(HotFeedGeometry, HotPlacement<Kind>)
    /// The copy is at a newer revision than the reader's transaction: read again.
    case ahead
    /// The feed does not fit in the budget: use the database's layout cache.
    case notKept
}

/// One feed held in memory, held by one reader at a time: readers of different feeds never
/// wait for each other, and readers of one revision wait for one computation. A synchronous
/// reader waits for it on its thread (``withHold(_:)``), and may read the database while it
/// holds it; a reader without blocking awaits it (``withHoldWithoutBlocking(_:)``), woken when
/// it is given back, and holds it only for work in memory.
private final class HotFeedEntry {
    let name: String
    /// Guarded by ``HotGeometry``'s lock.
    var reservedBytes: Int
    // Guarded by the hold.
    var geometry: HotFeedGeometry? {
        didSet {
            let report = geometry.map { HotFeedReport(feed: name, revision: $0.revision, images: $0.count, bytes: $0.bytes) }
            state.withLock { reported = report }
        }
    }
    /// ``HotLayout``s by configuration (their canonical JSON).
    var layouts: [String: AnyObject] = [:]

    /// Guards the hold's state, ``following`` and ``reported``; held for moments, never while
    /// reading.
    private let state = NSCondition()
    /// What `/v1/stats` says of the copy, set with it.
    private var reported: HotFeedReport?
    private var isHeld = false
    /// Readers without blocking waiting for the hold, woken (with `false`) when it is given back.
    private var holdWaiters: [CheckedContinuation<Bool, Never>] = []
    /// A follow under way without blocking (``HotGeometry/followTurn(feed:)``): the revision it
    /// brings the copy to, and the readers waiting for it.
    private var following: (revision: Int64, waiting: [CheckedContinuation<Void, Never>])?

    init(name: String, reservedBytes: Int) {
        self.name = name
        self.reservedBytes = reservedBytes
    }

    /// What `/v1/stats` says of the copy, found without waiting for the hold.
    var report: HotFeedReport? { state.withLock { reported } }

    /// Runs `body` holding the entry, waiting for it on this thread.
    func withHold<T>(_ body: () throws -> T) rethrows -> T {
        state.lock()
        while isHeld { state.wait() }
        isHeld = true
        state.unlock()
        defer { release() }
        return try body()
    }

    /// Runs `body` holding the entry, waiting for it without blocking a thread.
    func withHoldWithoutBlocking<T>(_ body: () throws -> T) async rethrows -> T {
        while await !takeOrQueue() {}
        defer { release() }
        return try body()
    }

    /// Takes the hold (`true`), or waits until it is given back (`false`: try again).
    private func takeOrQueue() async -> Bool {
        await withCheckedContinuation { waiter in
            let taken = state.withLock {
                if isHeld {
                    holdWaiters.append(waiter)
                    return false
                }
                isHeld = true
                return true
            }
            if taken { waiter.resume(returning: true) }
        }
    }

    private func release() {
        let waiting = state.withLock {
            isHeld = false
            state.broadcast()
            defer { holdWaiters = [] }
            return holdWaiters
        }
        for waiter in waiting { waiter.resume(returning: false) }
    }

    /// Runs `body` on the follow under way, if any.
    func withFollowing<T>(_ body: (inout (revision: Int64, waiting: [CheckedContinuation<Void, Never>])?) -> T) -> T {
        state.withLock { body(&following) }
    }
}
