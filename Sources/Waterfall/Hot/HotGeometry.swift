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
/// Bounded by ``budget`` bytes: each feed's geometry, its section tables and its layouts' plans,
/// counted wherever they grow (a load, a follow, a layout placed, on either way of reading). A
/// feed that does not fit is served from the layout cache in the database (DESIGN section 5) as
/// a process per command is; one that outgrows the budget with its layouts first drops its other
/// layouts, then itself, and is remembered as too large at its size. A follow counts the
/// sections it copied as it edited them (copy on write) beside the copy they came from: a feed
/// of one huge section needs twice its geometry for a moment at every change, and is kept only
/// where that fits.
///
/// Works over any engine: it follows the change log inside each reader's own transaction, so
/// commits by other processes or other servers are seen as soon as the reader's snapshot holds
/// them.
public final class HotGeometry: @unchecked Sendable {
    /// The most bytes of geometry kept, all feeds together.
    public let budget: Int
    private let lock = NSLock()
    private var feeds: [Int64: HotFeedEntry] = [:]
    /// Feeds dropped for outgrowing the budget, by id: the bytes they took an image, so that
    /// one is admitted again only once it would fit (guarded by ``lock``).
    private var tooLarge: [Int64: Double] = [:]
    /// Layout configurations kept per feed; past it the feed's layouts are dropped and rebuilt
    /// as asked for (each costs a pass over the feed in memory).
    static let layoutsPerFeed = 16
    /// Called by a reader about to load a feed, holding its entry (tests hold a load under way
    /// with it); set before the first read.
    var willLoad: @Sendable (FeedRecord) -> Void = { _ in }

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

    /// The geometry and `engine`'s layout placed at `feed`'s revision, brought there
    /// inside the caller's read transaction `tx` (which shows `feed`), computed once for every
    /// reader of that revision.
    /// A copy at a newer revision than `feed`'s is another reader's (then `.ahead`: read again):
    /// a feed made anew never has the id of the one removed (DESIGN section 19).
    func placement<Kind: StreamingLayoutKind>(
        feed: FeedRecord, engine: Kind, key: String, stride: Int, _ tx: any CatalogTransaction
    ) throws -> HotRead<(HotFeedGeometry, HotLayout<Kind>)> {
        // Admitted by the feed's image count, which the reader's snapshot gives for free: a feed
        // that has outgrown what the other feeds leave of the budget is dropped. A feed name
        // names one feed at a time, so a kept feed of this name and another id was removed.
        if lock.withLock({ feeds[feed.id] == nil }) { try dropRemovedFeeds(tx) }
        let (admitted, dropped): (HotFeedEntry?, HotFeedEntry?) = lock.withLock {
            let others = feeds.reduce(0) { $0 + ($1.key == feed.id ? 0 : $1.value.share) }
            let perImage = tooLarge[feed.id] ?? Double(HotFeedGeometry.bytesPerImage)
            let needed = Int(Double(feed.imageCount) * perImage)
            guard others + needed <= budget else { return (nil, feeds.removeValue(forKey: feed.id)) }
            if let entry = feeds[feed.id] {
                entry.reservedBytes = needed
                return (entry, nil)
            }
            let entry = HotFeedEntry(name: feed.name, reservedBytes: needed)
            feeds[feed.id] = entry
            return (entry, nil)
        }
        dropped?.abandon()
        guard let entry = admitted else { return .notKept }
        // While another reader loads the feed (0.6 s for a million images), this one is
        // answered as for a feed not kept, instead of waiting for the load; while another holds
        // it otherwise, this one leaves its transaction to await its turn (``HotFeedHeld``).
        let read = try entry.withHoldIfFree { () throws -> HotRead<(HotFeedGeometry, HotLayout<Kind>)> in
            // Forgotten while this reader waited for it: no longer the feed's copy.
            guard !entry.isAbandoned else { return .notKept }
            if let geometry = entry.geometry, geometry.revision > feed.revision { return .ahead }
            // Followed on a copy (sharing every untouched section): a failure half-way leaves
            // the kept copy as it was. A copy loaded anew is of a new generation, from which the
            // kept layouts lay every section out again (none of their plans holds for it).
            let before = entry.geometry.map { ($0.generation, $0.revision) }
            var copied = 0
            if var followed = entry.geometry, try followed.follow(to: feed, tx) {
                // Beside the copy it came from, still the kept one here.
                copied = followed.bytesNotShared(with: entry.geometry!)
                entry.geometry = followed
            } else {
                entry.geometry = nil
                entry.geometry = try entry.loading {
                    willLoad(feed)
                    return try HotFeedGeometry(feed: feed, tx)
                }
            }
            let geometry = entry.geometry!
            var kept = entry.layouts[key]?.layout as? HotLayout<Kind>
            if kept?.stride != stride {
                kept = nil
                if entry.layouts.count >= Self.layoutsPerFeed { entry.layouts.removeAll() }
            }
            // Counted again when anything grew: the copy, or the layout placed anew.
            let moved = before.map { $0 != (geometry.generation, geometry.revision) } ?? true
            if let kept, kept.places(geometry) {
                if moved { settle(entry, feedID: feed.id, keeping: key, copied: copied) }
                return .ready((geometry, kept))
            }
            let layout = HotLayout(
                engine: engine, stride: stride, placing: geometry,
                variants: try engine.variants(of: geometry.sectionIDs, tx: tx), keeping: kept)
            entry.layouts[key] = (layout, layout.bytes)
            settle(entry, feedID: feed.id, keeping: key, copied: copied)
            return .ready((geometry, layout))
        }
        switch read {
        case .ran(let read): return read
        case .loading: return .notKept
        case .held: throw HotFeedHeld(entry: entry)
        }
    }

    /// Counts what `entry` holds now (its holder calls it after anything grew), with the
    /// `copied` bytes a follow has just made beside the copy it followed, and keeps the
    /// budget: past it, the feed's layouts but `key`'s go, and if it still does not fit, the
    /// feed is forgotten (the answer its holder laid out is still given) and remembered as too
    /// large at its size.
    /// An entry forgotten meanwhile is counted by nobody, and leaves the feed's new entry be.
    fileprivate func settle(_ entry: HotFeedEntry, feedID: Int64, keeping key: String?, copied: Int = 0) {
        guard !entry.isAbandoned, !fits(entry, feedID: feedID, copied: copied) else { return }
        entry.layouts = entry.layouts.filter { $0.key == key }
        guard !fits(entry, feedID: feedID, copied: copied) else { return }
        let images = max(1, entry.geometry?.count ?? 1)
        let dropped = lock.withLock { () -> Bool in
            guard feeds[feedID] === entry else { return false }
            tooLarge[feedID] = Double(entry.heldBytes) / Double(images)
            feeds[feedID] = nil
            return true
        }
        if dropped { entry.abandon() }
    }

    /// Whether what `entry` holds now, with `copied` bytes a follow has just made, fits beside
    /// every other feed's share (the copy is reported without them: they go with the older copy).
    private func fits(_ entry: HotFeedEntry, feedID: Int64, copied: Int = 0) -> Bool {
        let held = entry.countBytes()
        entry.report(bytes: held)
        let bytes = held + copied
        return lock.withLock {
            entry.heldBytes = bytes
            return feeds.reduce(bytes) { $0 + ($1.key == feedID ? 0 : $1.value.share) } <= budget
        }
    }

    /// Runs `body` holding what is kept of `feed`, awaiting it without holding a thread (a
    /// reader inside a transaction may hold it while it reads the database); `nil`, running
    /// nothing, when nothing is kept of the feed.
    func withFeed<T>(_ feed: FeedRecord, _ body: () throws -> T) async rethrows -> T? {
        guard let entry = entry(of: feed) else { return nil }
        return try await entry.withHold(body)
    }

    /// The answer to `question` laid out from what is kept of `feed` with `configuration`'s
    /// layout (checkpoints every `stride` images), found reading nothing: the copy must be at
    /// exactly the feed's revision and the layout kept; one kept at an earlier revision is
    /// placed at this one here, in memory, which with sections that may differ (DESIGN section
    /// 14) takes the feed's `sections` (without them: `.needsSections`). Waits for the feed
    /// without blocking a thread; `nil` when nothing is kept of it.
    func readyAnswer(
        _ question: HotAnswer.Question, feed: FeedRecord, configuration: AnyLayoutConfiguration, stride: Int,
        sections: [SectionRecord]?
    ) async throws -> HotRead<HotAnswer>? {
        guard let entry = entry(of: feed) else { return nil }
        let work = ReadyHotAnswer(
            owner: self, entry: entry, feed: feed, configuration: configuration, stride: stride, question: question,
            sections: sections)
        return try await entry.withHold { try configuration.withEngine(work) }
    }

    /// Brings the copy of `feed` to its revision without blocking a thread: the one place that
    /// says how a read waits for a follow. The first reader of the revision to find the copy
    /// behind leads: `read` reads the change log from the copy it is given (in the reader's own
    /// transaction, which shows `feed`), then the reads are applied if the kept copy is still
    /// the one it followed from, and every reader that waited meanwhile is woken, whether the
    /// follow succeeded, failed or was cancelled, and whether or not the feed is still kept by
    /// then (one forgotten meanwhile has woken them already). Readers of that revision that
    /// come while it runs wait for it (holding no thread), then look again. `false` when nobody
    /// can follow (no copy, one loading, one too far behind, one being followed to another
    /// revision): a transaction brings the copy, or loads it anew.
    func follow(_ feed: FeedRecord, reading read: (HotFeedGeometry) async throws -> HotFollowReads?) async throws
        -> Bool
    {
        guard let entry = entry(of: feed), let copy = await entry.withHold({ entry.geometry }) ?? nil else {
            return false
        }
        // Brought there since the reader found it behind, or being brought there: look again.
        if copy.revision >= feed.revision {
            await waitForFollow(of: entry, to: feed.revision)
            return true
        }
        guard copy.canFollow(to: feed) else { return false }
        switch entry.beginFollow(to: feed.revision) {
        case true?:
            // Ended whatever happens: the readers waiting for it are woken.
            defer { entry.endFollow() }
            guard let reads = try await read(copy) else { return true }
            _ = await entry.withHold {
                if var followed = entry.geometry, followed.generation == copy.generation,
                    followed.revision == copy.revision,
                    followed.apply(reads, to: feed)
                {
                    entry.geometry = followed
                    settle(entry, feedID: feed.id, keeping: nil, copied: followed.bytesNotShared(with: copy))
                }
            }
        case false?:
            await waitForFollow(of: entry, to: feed.revision)
        case nil:
            return false
        }
        return true
    }

    /// Waits, without blocking a thread, for the follow of `entry` under way to `revision`, if any.
    private func waitForFollow(of entry: HotFeedEntry, to revision: Int64) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            if !entry.waitForFollow(to: revision, waiter) { waiter.resume() }
        }
    }

    /// Returns once no reader holds what is kept of the feed named `name` (at once when nothing
    /// is kept of it, or it is free, or being loaded): a reader about to open a transaction for
    /// that feed waits here, holding neither a thread nor a connection, rather than inside the
    /// transaction (``HotFeedHeld``).
    func awaitTurn(feedNamed name: String) async {
        let entry = lock.withLock { feeds.values.first { $0.name == name } }
        await entry?.awaitRelease()
    }

    /// What is kept of `feed`, if anything (and of this feed, not of a removed one of its id).
    private func entry(of feed: FeedRecord) -> HotFeedEntry? {
        guard let entry = lock.withLock({ feeds[feed.id] }), entry.name == feed.name else { return nil }
        return entry
    }

    /// Drops what is kept of feeds the catalog no longer has (removed by another process or
    /// server), which would otherwise hold their share of the budget for good. Runs when a
    /// feed not kept yet is asked for: one read of the catalog's feeds, however many are kept.
    private func dropRemovedFeeds(_ tx: any CatalogTransaction) throws {
        let kept = lock.withLock { feeds.map { (id: $0.key, name: $0.value.name) } }
        guard !kept.isEmpty else { return }
        // A feed's id is its incarnation, never used twice: an id the catalog no longer has is
        // a feed (or a view's membership, DESIGN section 20) removed.
        let catalog = try tx.feedIDs()
        let removed = kept.filter { !catalog.contains($0.id) }
        guard !removed.isEmpty else { return }
        let entries = lock.withLock { removed.compactMap { feeds.removeValue(forKey: $0.id) } }
        for entry in entries { entry.abandon() }
    }

    /// Forgets what is kept of a feed (its copy disagreed with the catalog, or the feed was
    /// removed): its entry leaves the kept feeds with its share of the budget, and the next
    /// reader loads the feed anew in an entry of its own. Waits for nothing (a reader holding
    /// the old entry finishes on it alone), so it may be called from any thread; wakes the
    /// readers waiting for a follow of the old entry.
    func forget(feedID: Int64) {
        lock.withLock { feeds.removeValue(forKey: feedID) }?.abandon()
    }
}

/// A feed held in memory, as `/v1/stats` reports it.
public struct HotFeedReport: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    public var images: Int
    public var bytes: Int
}

/// The answer to ``question``, laid out from what is kept of ``feed`` while its reader holds
/// it (``HotGeometry/readyAnswer(_:feed:configuration:stride:sections:)``), when the geometry is
/// at exactly the feed's revision, found reading nothing; else what the copy lacks.
private struct ReadyHotAnswer: EngineWork {
    let owner: HotGeometry
    let entry: HotFeedEntry
    let feed: FeedRecord
    let configuration: AnyLayoutConfiguration
    let stride: Int
    let question: HotAnswer.Question
    /// The feed's sections, once read for a layout whose sections may differ.
    let sections: [SectionRecord]?

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> HotRead<HotAnswer> {
        try placed(engine).map { geometry, layout in
            try HotAnswer(question, engine: engine, geometry: geometry, layout: layout, configuration: configuration)
        }
    }

    /// The geometry and `engine`'s layout placed at the feed's revision, placing a layout kept at
    /// an earlier one.
    private func placed<Kind: StreamingLayoutKind>(_ engine: Kind) -> HotRead<(HotFeedGeometry, HotLayout<Kind>)> {
        let key = configuration.canonicalJSON
        guard let geometry = entry.geometry, let kept = entry.layouts[key]?.layout as? HotLayout<Kind>,
            kept.stride == stride
        else {
            return .notKept
        }
        if geometry.revision < feed.revision { return .behind }
        guard geometry.revision == feed.revision, geometry.count == feed.imageCount else { return .notKept }
        if kept.places(geometry) { return .ready((geometry, kept)) }
        if engine.hasSectionVariants && sections == nil { return .needsSections }
        let layout = HotLayout(
            engine: engine, stride: stride, placing: geometry,
            variants: engine.variants(of: geometry.sectionIDs, records: sections ?? []),
            keeping: kept)
        entry.layouts[key] = (layout, layout.bytes)
        owner.settle(entry, feedID: feed.id, keeping: key)
        return .ready((geometry, layout))
    }
}

/// What a read finds in the hot copy: the feed's geometry and a layout's placement at the
/// reader's revision, then the answer laid out from them; or why not, and what to do instead.
/// A read inside a transaction (``HotGeometry/placement(feed:engine:key:stride:_:)``)
/// meets `ready`, `ahead` and `notKept`; one from the held feed, which reads nothing to find it
/// (``HotGeometry/readyAnswer(_:feed:configuration:stride:sections:)``), `ready`, `behind`,
/// `needsSections` and `notKept`.
enum HotRead<Value> {
    case ready(Value)
    /// The copy is newer than the reader's transaction: read again in a new one.
    case ahead
    /// The copy is at an earlier revision: it may be followed (``HotGeometry/follow(_:reading:)``).
    case behind
    /// The layout can be placed once the feed's sections are read.
    case needsSections
    /// Not kept (over the budget, loading, or the copy disagreed with the catalog and was
    /// dropped), or not without reading (no such layout kept, a copy newer than the reader):
    /// answer from the database's layout cache, or in a transaction.
    case notKept

    /// What is ready made into another read (`transform` may find it not kept after all).
    func flatMap<T>(_ transform: (Value) throws -> HotRead<T>) rethrows -> HotRead<T> {
        switch self {
        case .ready(let value): try transform(value)
        case .ahead: .ahead
        case .behind: .behind
        case .needsSections: .needsSections
        case .notKept: .notKept
        }
    }

    /// What is ready made into something else.
    func map<T>(_ transform: (Value) throws -> T) rethrows -> HotRead<T> {
        try flatMap { .ready(try transform($0)) }
    }
}

/// Thrown out of a reader's transaction that found its feed's copy held by another reader
/// (``HotGeometry/placement(feed:engine:key:stride:_:)``): the reader awaits its
/// turn (``turn()``), holding neither a thread nor a connection, then reads again in a new
/// transaction (``WaterfallService/readLayoutAnswer(feed:layout:what:_:)``).
struct HotFeedHeld: Error {
    fileprivate let entry: HotFeedEntry

    /// Returns once the holder has given the copy back (or begun loading it anew, when readers
    /// are answered without it); at once if it has already.
    func turn() async {
        await entry.awaitRelease()
    }
}

/// One feed held in memory, held by one reader at a time: readers of different feeds never
/// wait for each other, and readers of one revision wait for one computation. No reader waits
/// for it on a thread: a reader inside a transaction takes it only when it is free
/// (``withHoldIfFree(_:)``), and may read the database while it holds it, else leaves its
/// transaction to await it (``HotFeedHeld``); a reader of the held feed awaits it
/// (``withHold(_:)``), and holds it only for work in memory. Every waiter is woken when the
/// hold is given back or a load begins.
///
/// Sendable: the hold's state is guarded by ``state``, the copy and its layouts by the hold.
private final class HotFeedEntry: @unchecked Sendable {
    let name: String
    /// What the feed was admitted with, by its image count (guarded by ``HotGeometry``'s lock).
    var reservedBytes: Int
    /// What it held when last counted (guarded by ``HotGeometry``'s lock).
    var heldBytes = 0
    /// Its share of the budget: what it holds, or what it was admitted with while it loads.
    var share: Int { max(reservedBytes, heldBytes) }
    // Guarded by the hold.
    var geometry: HotFeedGeometry? {
        didSet {
            let report = geometry.map {
                HotFeedReport(feed: name, revision: $0.revision, images: $0.count, bytes: $0.bytes)
            }
            state.withLock { reported = report }
        }
    }
    /// A ``HotLayout`` by configuration (its canonical JSON), with the bytes it takes. Each
    /// keeps the plans of one generation of the geometry, and lays a newer one out anew.
    var layouts: [String: (layout: any Sendable, bytes: Int)] = [:]

    /// The bytes its geometry and layouts take (guarded by the hold).
    func countBytes() -> Int {
        layouts.values.reduce(geometry?.bytes ?? 0) { $0 + $1.bytes }
    }

    /// Guards the hold's state, ``following`` and ``reported``; held for moments, never while
    /// reading, and never waited on.
    private let state = NSLock()
    /// What `/v1/stats` says of the copy, set with it.
    private var reported: HotFeedReport?
    private var isHeld = false
    /// Whether the reader holding the entry is loading the feed (``loading(_:)``): readers that
    /// come meanwhile do not wait for it.
    private var isLoading = false
    private var abandoned = false
    /// Readers awaiting the hold, woken (with `false`) when it is given back or a load begins.
    private var holdWaiters: [CheckedContinuation<Bool?, Never>] = []
    /// A follow under way by an awaiting reader (``HotGeometry/follow(_:reading:)``): the
    /// revision it brings the copy to, and the readers waiting for it.
    private var following: (revision: Int64, waiting: [CheckedContinuation<Void, Never>])?

    init(name: String, reservedBytes: Int) {
        self.name = name
        self.reservedBytes = reservedBytes
    }

    /// What `/v1/stats` says of the copy, found without waiting for the hold.
    var report: HotFeedReport? { state.withLock { reported } }

    /// Reports that the copy and its layouts take `bytes`.
    func report(bytes: Int) {
        state.withLock { reported?.bytes = bytes }
    }

    /// What ``withHoldIfFree(_:)`` did.
    enum HoldTry<T> {
        /// It ran the body, holding the entry.
        case ran(T)
        /// Another reader holds the entry: await ``awaitRelease()``, then try again.
        case held
        /// Another reader is loading the feed (``loading(_:)``): answer without the copy.
        case loading
    }

    /// Runs `body` holding the entry if it is free, on the caller's thread (a transaction's),
    /// waiting for nothing.
    func withHoldIfFree<T>(_ body: () throws -> T) rethrows -> HoldTry<T> {
        let taken = state.withLock { () -> HoldTry<Void> in
            if isLoading { return .loading }
            if isHeld { return .held }
            isHeld = true
            return .ran(())
        }
        switch taken {
        case .ran:
            defer { release() }
            return .ran(try body())
        case .held: return .held
        case .loading: return .loading
        }
    }

    /// Returns once the entry is given back or a load of it begins; at once when it is free.
    func awaitRelease() async {
        _ = await withCheckedContinuation { (waiter: CheckedContinuation<Bool?, Never>) in
            let queued = state.withLock { () -> Bool in
                guard isHeld, !isLoading else { return false }
                holdWaiters.append(waiter)
                return true
            }
            if !queued { waiter.resume(returning: false) }
        }
    }

    /// Runs `body` holding the entry, awaiting it without holding a thread; `nil`, running
    /// nothing, while its holder loads the feed (``loading(_:)``).
    func withHold<T>(_ body: () throws -> T) async rethrows -> T? {
        while true {
            switch await takeOrQueue() {
            case true?: break
            case false?: continue
            case nil: return nil
            }
            defer { release() }
            return try body()
        }
    }

    /// Takes the hold (`true`), or waits until it is given back or a load begins (`false`: try
    /// again); `nil` while its holder loads the feed.
    private func takeOrQueue() async -> Bool? {
        await withCheckedContinuation { waiter in
            let taken: Bool? = state.withLock {
                if isLoading { return nil }
                if isHeld {
                    holdWaiters.append(waiter)
                    return false
                }
                isHeld = true
                return true
            }
            if taken != false { waiter.resume(returning: taken) }
        }
    }

    /// Runs `load` (the holder's load of the feed) with readers that come meanwhile, and those
    /// already waiting for the hold, turned away instead of waiting for it.
    func loading<T>(_ load: () throws -> T) rethrows -> T {
        wakeHoldWaiters { isLoading = true }
        defer { state.withLock { isLoading = false } }
        return try load()
    }

    private func release() {
        wakeHoldWaiters { isHeld = false }
    }

    /// Makes `change` to the hold's state, then wakes every reader waiting for the hold, to look
    /// again.
    private func wakeHoldWaiters(after change: () -> Void) {
        let waiting = state.withLock {
            change()
            defer { holdWaiters = [] }
            return holdWaiters
        }
        for waiter in waiting { waiter.resume(returning: false) }
    }

    /// Whether the entry was forgotten (``HotGeometry/forget(feedID:)``): readers that hold it
    /// answer otherwise, and no follow starts on it.
    var isAbandoned: Bool { state.withLock { abandoned } }

    /// Marks the entry forgotten and wakes the readers waiting for a follow of it.
    func abandon() {
        state.withLock { abandoned = true }
        endFollow()
    }

    /// Starts a follow to `revision` when none is under way (`true`: the caller leads it);
    /// `false` when one to `revision` is (wait for it); `nil` when one to another revision is,
    /// or the entry was forgotten (nobody would wake the readers waiting for it).
    func beginFollow(to revision: Int64) -> Bool? {
        state.withLock {
            if let following { return following.revision == revision ? false : nil }
            if abandoned { return nil }
            following = (revision, [])
            return true
        }
    }

    /// Queues `waiter` to be woken when the follow to `revision` ends; `false`, queueing
    /// nothing, when no such follow is under way.
    func waitForFollow(to revision: Int64, _ waiter: CheckedContinuation<Void, Never>) -> Bool {
        state.withLock {
            guard following?.revision == revision, !abandoned else { return false }
            following?.waiting.append(waiter)
            return true
        }
    }

    /// Ends the follow under way, if any, and wakes the readers waiting for it.
    func endFollow() {
        let waiting = state.withLock {
            defer { following = nil }
            return following?.waiting ?? []
        }
        for waiter in waiting { waiter.resume() }
    }
}
