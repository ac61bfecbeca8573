import Synchronization
import WaterfallLayout
import WaterfallStore

/// What a server keeps in memory so that reads stay fast while feeds change (DESIGN section 12):
/// for each feed it serves, the feed's geometry (``KeptGeometry``, loaded on first use, then
/// followed through the change log) and, per layout configuration, the sections laid out
/// (``KeptLayout``). A read then reads only its own rows from the database, whatever was written
/// just before it: a move near the top of a million-image feed costs the next deep page the
/// section it changed, laid out in memory, once for all readers, not a re-layout read back from
/// the database.
///
/// **One owner.** Everything kept is one value (``State``) under one lock, held for moments and
/// never while anything is read or laid out. A reader takes what it needs at its revision under
/// the lock (``placement(feed:engine:key:stride:database:)``): the copy and the layout are values,
/// shared copy on write, so readers of one feed answer side by side, and nobody holds the feed.
/// What is not ready yet is made by one stored `Task` a revision: a load or a follow of the
/// copy (``bring(_:token:from:database:)``), or a layout placed at the copy's revision
/// (``place(_:key:engine:stride:geometry:keeping:database:)``). Each reads in a transaction of
/// its own; every reader of that revision awaits the same task outside its own transaction
/// (holding neither a thread nor a connection), then reads again. A task always ends (its reads
/// have deadlines), and stores its result only into the entry that started it.
///
/// Bounded by ``budget`` bytes: each feed's geometry, its section tables and its layouts' plans,
/// counted wherever they grow (a load, a follow, a layout placed). A feed that does not fit is
/// served from the layout cache in the database (DESIGN section 5) as a process per command is;
/// one that outgrows the budget with its layouts first drops its other layouts, then itself, and
/// is remembered as too large at its size. A follow counts the sections it copied as it edited
/// them (copy on write) beside the copy they came from: a feed of one huge section needs twice
/// its geometry for a moment at every change, and is kept only where that fits.
///
/// Works over any engine: a task's transaction shows commits by other processes or other
/// servers as soon as they are made.
public final class KeptFeeds: Sendable {
    /// The most bytes of geometry kept, all feeds together.
    public let budget: Int
    /// Layout configurations kept per feed; past it the feed's layouts are dropped and rebuilt
    /// as asked for (each costs a pass over the feed in memory).
    static let layoutsPerFeed = 16
    /// The most images of a feed whose load its first reader awaits (a larger feed's first
    /// readers are answered from the layout cache while it loads).
    let awaitedLoad: Int
    /// ``awaitedLoad`` of a server: a feed of 10,000 images loads in 20 ms on SQLite; a million
    /// take half a second, which no reader waits for.
    static let serversAwaitedLoad = 10_000
    private let state = Mutex(State())
    /// Called in a load's transaction before it reads the feed, and in a follow's before it
    /// reads the change log (tests hold one under way with them).
    private let willLoad: @Sendable (FeedRecord) -> Void
    private let willFollow: @Sendable (FeedRecord) async -> Void
    /// Awaited by a placement before it lays its configuration out.
    private let willPlace: @Sendable (String) async -> Void

    /// - Parameter budget: the most bytes of geometry to keep (`serve --hot-memory`).
    public convenience init(budget: Int) {
        self.init(budget: budget, willLoad: { _ in }, willFollow: { _ in })
    }

    init(
        budget: Int, awaitedLoad: Int = serversAwaitedLoad, willLoad: @escaping @Sendable (FeedRecord) -> Void,
        willFollow: @escaping @Sendable (FeedRecord) async -> Void = { _ in },
        willPlace: @escaping @Sendable (String) async -> Void = { _ in }
    ) {
        self.budget = budget
        self.awaitedLoad = awaitedLoad
        self.willLoad = willLoad
        self.willFollow = willFollow
        self.willPlace = willPlace
    }

    /// The kept feeds, by name, with their images and bytes (for `/v1/stats`).
    public var report: [KeptFeedReport] {
        state.withLock { state in
            state.feeds.values.compactMap { entry in
                entry.geometry.map {
                    KeptFeedReport(feed: entry.name, revision: $0.revision, images: $0.count, bytes: entry.bytes)
                }
            }
        }.sorted { $0.feed < $1.feed }
    }

    /// Whether a copy of a feed named `name` is kept (names are reused: a feed made anew under
    /// the name has another id, which the caller compares).
    func keepsFeed(named name: String) -> Bool {
        state.withLock { state in state.feeds.values.contains { $0.name == name && $0.geometry != nil } }
    }

    /// The configurations (each's canonical JSON) of the layouts kept of the feed `feedID`, none
    /// when its copy is not kept.
    func keptLayoutKeys(feedID: Int64) -> Set<String> {
        state.withLock { state in
            guard let entry = state.feeds[feedID], entry.geometry != nil else { return [] }
            return Set(entry.layouts.keys)
        }
    }

    /// The geometry and `engine`'s layout (`key` its configuration's canonical JSON, checkpoints
    /// every `stride` images) placed at `feed`'s revision, as a reader whose snapshot shows
    /// `feed` finds them, reading nothing. Otherwise:
    /// - `.ahead`: the copy is newer than the reader's snapshot (another reader's): read again
    ///   in a new transaction. A feed made anew never has the id of the one removed (DESIGN
    ///   section 19), so a newer copy is this feed's.
    /// - `.lead(work)`: the copy is behind, or the layout not placed at its revision, and this
    ///   reader, the first of its revision, brings it there: it runs `work` in its own
    ///   transaction (``lead(_:reading:)``), then looks again in it. Given only to a reader
    ///   `leading` (one whose statements are awaited).
    /// - `.wait(task)`: another reader of the revision leads that work (or, for a reader not
    ///   leading and for a load, `task` does it in a transaction of its own, reading
    ///   `database`): await it outside the transaction and read again.
    /// - `.notKept`: over the budget, or being loaded (readers do not wait for a load they did
    ///   not start, nor for one of more than ``awaitedLoad`` images they did): answer from the
    ///   layout cache.
    ///
    /// `awaitingLoad`: the reader awaits a load it starts whatever the feed's size (a server
    /// keeping its feeds before it listens, ``WaterfallService/keepFeedsNow(within:)``).
    func placement<Kind: StreamingLayoutKind>(
        feed: FeedRecord, engine: Kind, key: String, stride: Int, database: any CatalogStore,
        leading: Bool, awaitingLoad: Bool = false
    ) -> KeptRead<(KeptGeometry, KeptLayout<Kind>)> {
        state.withLock { state -> KeptRead<(KeptGeometry, KeptLayout<Kind>)> in
            // Admitted by the feed's image count, which the reader's snapshot gives for free: a
            // feed that has outgrown what the other feeds leave of the budget is dropped.
            let needed = state.admission(of: feed)
            guard state.shares(besides: feed.id) + needed <= budget else {
                state.feeds[feed.id] = nil
                // Other feeds may hold the budget for feeds the catalog no longer has (removed
                // or made anew by another process, a view's membership rebuilt): found by a
                // read of the catalog's feeds, at most one at a time and once a second.
                guard !state.feeds.isEmpty, state.pruning == nil,
                    state.lastPruned.map({ ContinuousClock.now - $0 > .seconds(1) }) ?? true
                else { return .notKept }
                state.lastPruned = .now
                let task = Task { await self.dropRemovedFeeds(database: database) }
                state.pruning = task
                return .wait(task)
            }
            if state.feeds[feed.id] == nil {
                state.tokens += 1
                state.feeds[feed.id] = KeptFeed(name: feed.name, token: state.tokens)
            }
            return state.feeds[feed.id]!.reserving(needed) { entry in
                guard let geometry = entry.geometry else {
                    // A load under way, started by another reader: answered without it (a load
                    // of a large feed takes a while, and stalls no one).
                    if entry.bringing != nil { return .notKept }
                    return startBringing(&entry, to: feed, from: nil, database: database, awaited: awaitingLoad)
                }
                if geometry.revision > feed.revision { return .ahead }
                if geometry.revision == feed.revision, geometry.count != feed.imageCount {
                    // Not the catalog's feed at that revision: loaded anew, once what is under
                    // way has ended (a follow from this copy would store it again).
                    if let bringing = entry.bringing { return .wait(bringing.task) }
                    entry.geometry = nil
                    return startBringing(&entry, to: feed, from: nil, database: database, awaited: awaitingLoad)
                }
                if geometry.revision < feed.revision {
                    // A follow is awaited (briefly); a load answered without, as above.
                    if let bringing = entry.bringing { return bringing.isLoad ? .notKept : .wait(bringing.task) }
                    if leading && geometry.canFollow(to: feed) {
                        let token = entry.token
                        let (lead, task) = KeptLead.make(
                            { reads in
                                await self.bring(
                                    feed, token: token, from: geometry, database: database, reads: .reader(reads))
                            },
                            dropped: { task in self.endBringing(feed.id, token: token, task) })
                        entry.bringing = (task, isLoad: false)
                        return .lead(lead)
                    }
                    return startBringing(&entry, to: feed, from: geometry, database: database, awaited: awaitingLoad)
                }
                if let ready: KeptLayout<Kind> = entry.useLayout(key, stride: stride, on: geometry) {
                    return .ready((geometry, ready))
                }
                let kept = entry.layouts[key]?.layout as? KeptLayout<Kind>
                // One placement a feed at a time, as a feed of a million images takes a pass
                // and its plans' memory for each: readers of another configuration (a client
                // may send any number) wait for it, then read again.
                if let placing = entry.placing { return .wait(placing) }
                let token = entry.token
                let place = { @Sendable (reads: (any CatalogPageReads)?) in
                    await self.place(
                        feed.id, key: key, engine: engine, stride: stride, geometry: geometry,
                        keeping: kept?.stride == stride ? kept : nil, database: database, reads: reads, token: token)
                }
                if leading {
                    let (lead, task) = KeptLead.make(
                        { reads in
                            await place(reads)
                            return nil
                        },
                        dropped: { task in self.endPlacing(feed.id, token: token, task) })
                    entry.placing = task
                    return .lead(lead)
                }
                let task = Task { await place(nil) }
                entry.placing = task
                return .wait(task)
            }
        }
    }

    /// The kept feed's geometry and `key`'s layout when both are at `feed`'s revision already,
    /// as ``placement(feed:engine:key:stride:database:leading:awaitingLoad:)`` gives them
    /// `.ready`; else `nil`, starting nothing: for a reader whose `feed` came from
    /// ``KeptRecords``, not from a transaction, which answers through one for anything else.
    func ready<Kind: StreamingLayoutKind>(feed: FeedRecord, engine: Kind, key: String, stride: Int)
        -> (KeptGeometry, KeptLayout<Kind>)?
    {
        state.withLock { state -> (KeptGeometry, KeptLayout<Kind>)? in
            guard let geometry = state.feeds[feed.id]?.geometry,
                geometry.revision == feed.revision, geometry.count == feed.imageCount,
                state.shares(besides: feed.id) + state.admission(of: feed) <= budget,
                let kept: KeptLayout<Kind> = state.feeds[feed.id]!.useLayout(key, stride: stride, on: geometry)
            else { return nil }
            return (geometry, kept)
        }
    }

    /// What a server's write reads last in its transaction, on its own connection, to bring the
    /// copy of `feed` (at the revision the write made) along once it has committed
    /// (``bring(_:database:)``): the change log from the copy's revision. Not through the
    /// readers' pool, which readers may hold: beside 64 readers of random pages on PostgreSQL
    /// a move awaited a reader's connection for its follow, and the writer fell behind (issue
    /// 53). `nil` when no copy of the feed is kept, or it is being brought already, or it is
    /// too far behind to follow: its readers bring it, as after any commit.
    func written(_ feed: FeedRecord, _ tx: any CatalogTransaction) throws -> WrittenFollow? {
        let found = state.withLock { state -> (token: UInt64, copy: KeptGeometry)? in
            guard let entry = state.feeds[feed.id], entry.bringing == nil, let copy = entry.geometry,
                copy.revision < feed.revision, copy.canFollow(to: feed)
            else { return nil }
            return (entry.token, copy)
        }
        guard let found, let reads = try found.copy.followReads(tx) else { return nil }
        return WrittenFollow(feed: feed, token: found.token, from: found.copy.revision, reads: reads)
    }

    /// Starts the follow a committed write read (``written(_:_:)``), as the follow under way
    /// that every reader of its revision awaits, unless the copy is no longer the one it read
    /// from, or is being brought already (`nil`: the readers bring it).
    func bring(_ write: WrittenFollow, database: any CatalogStore) -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            guard let entry = state.feeds[write.feed.id], entry.token == write.token, entry.bringing == nil,
                let copy = entry.geometry, copy.revision == write.from
            else { return nil }
            let task = Task {
                _ = await self.bring(
                    write.feed, token: write.token, from: copy, database: database, reads: .written(write.reads))
            }
            state.feeds[write.feed.id]!.bringing = (task, isLoad: false)
            return task
        }
    }

    /// Starts the task that brings `entry`'s copy to `feed`'s revision (or later): a follow of
    /// `copy` by the change log when it is near enough, else a load. The reader that starts it
    /// awaits it (`.started`), but not the load of a feed of more than ``awaitedLoad`` images:
    /// it answers from the layout cache at once (`.notKept`), as the readers after it do while
    /// the load runs, so that a first load of a large feed stalls no one (issue 53); or when
    /// `awaited`, whatever its size.
    private func startBringing<Value>(
        _ entry: inout KeptFeed, to feed: FeedRecord, from copy: KeptGeometry?, database: any CatalogStore,
        awaited: Bool
    ) -> KeptRead<Value> {
        let follows = copy.map { $0.canFollow(to: feed) } ?? false
        let token = entry.token
        let task = Task {
            _ = await self.bring(feed, token: token, from: follows ? copy : nil, database: database, reads: .own)
        }
        entry.bringing = (task, isLoad: !follows)
        return awaited || follows || feed.imageCount <= awaitedLoad ? .started(task) : .notKept
    }

    /// Brings the copy of `feed` to the revision a transaction of its own shows (the reader's,
    /// or later): follows `copy` by the change log, or loads the feed anew (also when the
    /// follow finds the catalog not as the copy expects). Stores the result into the entry
    /// `token` names, if it is still kept; a failure leaves the kept feed's copy as it was (its readers
    /// read again, and in the end answer from the layout cache, which words the error).
    private func bring(
        _ feed: FeedRecord, token: UInt64, from copy: KeptGeometry?, database: any CatalogStore, reads: FollowReads
    ) async -> Task<Void, Never>? {
        let brought: Result<Brought, any Error>
        do {
            var found = try await follow(feed, from: copy, database: database, reads: reads)
            if case .loadAnew = found, case .own = reads { found = try await load(feed, database: database) }
            brought = .success(found)
        } catch {
            brought = .failure(error)
        }
        return state.withLock { state -> Task<Void, Never>? in
            guard state.feeds[feed.id]?.token == token else { return nil }
            state.feeds[feed.id]!.bringing = nil
            switch brought {
            case .success(.copy(let geometry, let copied)):
                state.feeds[feed.id]!.geometry = geometry
                // The layout placed last is the one its readers read now: the others go first.
                let key = state.feeds[feed.id]!.lastPlaced
                state.settle(feed.id, keeping: key, copied: copied, budget: budget)
            case .success(.removed):
                state.feeds[feed.id] = nil
            case .success(.loadAnew) where !reads.isOwn:
                // A follow led in a reader's transaction, which may not open another, or read
                // by a write: the feed is loaded by a task in a transaction of its own.
                let task = Task {
                    _ = await self.bring(feed, token: token, from: nil, database: database, reads: .own)
                }
                state.feeds[feed.id]!.bringing = (task, isLoad: true)
                return feed.imageCount <= awaitedLoad ? task : nil
            case .success(.loadAnew), .failure:
                break
            }
            return nil
        }
    }

    /// What a load or a follow brought.
    private enum Brought: Sendable {
        /// The copy at the revision read, with the bytes a follow copied beside the old copy.
        case copy(KeptGeometry, copied: Int)
        /// The feed was removed.
        case removed
        /// The follow could not be made: load the feed anew.
        case loadAnew
    }

    /// Where a follow reads the change log.
    private enum FollowReads: Sendable {
        /// A read transaction of its own, at the revision it shows (a load follows, when the
        /// copy cannot be followed).
        case own
        /// The leading reader's transaction, which shows the feed.
        case reader(any CatalogPageReads)
        /// Read already, by the server's write that made the revision, in its transaction.
        case written(KeptFollowReads)

        var isOwn: Bool {
            if case .own = self { true } else { false }
        }
    }

    /// `copy` brought by the change log to `feed`'s revision by `reads`; or what keeps it from
    /// being followed. In a transaction of its own (`.own`), to the revision it shows, its few
    /// statements awaited (``CatalogStore/readAwaitingStatements(_:)``).
    private func follow(
        _ feed: FeedRecord, from copy: KeptGeometry?, database: any CatalogStore, reads: FollowReads
    ) async throws -> Brought {
        guard let copy else { return .loadAnew }
        await willFollow(feed)
        var followed = copy
        switch reads {
        case .written(let read):
            guard followed.apply(read, to: feed) else { return .loadAnew }
            return .copy(followed, copied: followed.bytesNotShared(with: copy))
        case .reader(let reads):
            guard try await followed.follow(to: feed, reads) else { return .loadAnew }
            return .copy(followed, copied: followed.bytesNotShared(with: copy))
        case .own:
            break
        }
        return try await database.readAwaitingStatements { reads -> Brought in
            guard let current = try await reads.feed(id: feed.id) else { return .removed }
            let now = feed.at(current)
            var followed = copy
            guard copy.revision <= now.revision, try await followed.follow(to: now, reads) else { return .loadAnew }
            return .copy(followed, copied: followed.bytesNotShared(with: copy))
        }
    }

    /// `feed` loaded by one ordered scan at the revision a read transaction of its own shows.
    private func load(_ feed: FeedRecord, database: any CatalogStore) async throws -> Brought {
        // The feeds kept before the load's snapshot: one made after it is not taken for removed.
        let kept = state.withLock { Set($0.feeds.keys) }
        return try await database.read { [self] tx -> Brought in
            guard let current = try tx.feed(id: feed.id) else { return .removed }
            let now = feed.at(current)
            try dropRemovedFeeds(tx, keptBefore: kept)
            willLoad(now)
            return .copy(try KeptGeometry(feed: now, tx), copied: 0)
        }
    }

    /// Places `engine`'s layout (`key`, every `stride` images) at `geometry`, keeping the plans
    /// of `kept` that still hold, and stores it into the entry `token` names if its copy is
    /// still `geometry`. The sections' variants, when the layout has them, are read by id in a
    /// transaction of its own (a section's name never changes).
    private func place<Kind: StreamingLayoutKind>(
        _ feedID: Int64, key: String, engine: Kind, stride: Int, geometry: KeptGeometry,
        keeping kept: KeptLayout<Kind>?,
        database: any CatalogStore, reads: (any CatalogPageReads)?, token: UInt64
    ) async {
        await willPlace(key)
        var variants: [Int]? = []
        if engine.hasSectionVariants, let reads {
            variants = try? await engine.variants(
                of: geometry.sectionIDs, records: reads.sections(ids: geometry.sectionIDs))
        } else if engine.hasSectionVariants {
            variants = try? await database.read { tx in try engine.variants(of: geometry.sectionIDs, tx: tx) }
        }
        let layout = variants.map {
            KeptLayout(engine: engine, stride: stride, placing: geometry, variants: $0, keeping: kept)
        }
        state.withLock { state in
            guard state.feeds[feedID]?.token == token else { return }
            state.feeds[feedID]!.place(layout, key: key)
            state.settle(feedID, keeping: key, copied: 0, budget: budget)
        }
    }

    /// Clears the follow `task` of `feedID`'s entry `token`, led by a reader that dropped it
    /// unrun, if it is still the one under way.
    private func endBringing(_ feedID: Int64, token: UInt64, _ task: Task<Void, Never>) {
        state.withLock { state in
            guard state.feeds[feedID]?.token == token, state.feeds[feedID]?.bringing?.task == task else { return }
            state.feeds[feedID]!.bringing = nil
        }
    }

    /// Clears the placement `task` of `feedID`'s entry `token`, as ``endBringing(_:token:_:)``.
    private func endPlacing(_ feedID: Int64, token: UInt64, _ task: Task<Void, Never>) {
        state.withLock { state in
            guard state.feeds[feedID]?.token == token, state.feeds[feedID]?.placing == task else { return }
            state.feeds[feedID]!.placing = nil
        }
    }

    /// Runs `work`, which this reader leads for its revision, with its own transaction's
    /// `reads`; the other readers of the revision, awaiting its task, are let go when it ends,
    /// whatever happens.
    /// Returns the load it started in its place, when a follow could not be made (the reader
    /// awaits it outside its transaction, as the reader that starts a load does), unless the
    /// feed is larger than ``awaitedLoad`` (the reader then finds the load under way, and
    /// answers from the layout cache).
    func lead(_ work: KeptLead, reading reads: any CatalogPageReads) async -> Task<Void, Never>? {
        work.begin()
        defer { work.finished.finish() }
        return await work.run(reads)
    }

    /// Drops what is kept of feeds the catalog no longer has (removed by another process or
    /// server, or a view's membership rebuilt), which would otherwise hold their share of the
    /// budget for good, of those kept before `tx`'s snapshot (`keptBefore`), and forgets the
    /// sizes of removed feeds found too large. Runs when a feed is loaded: one read of the
    /// catalog's feeds, however many are kept.
    private func dropRemovedFeeds(_ tx: any CatalogTransaction, keptBefore kept: Set<Int64>) throws {
        guard !kept.isEmpty || !state.withLock({ $0.tooLarge.isEmpty }) else { return }
        // A feed's id is its incarnation, never used twice: an id the catalog no longer has is
        // a feed (or a view's membership, DESIGN section 20) removed.
        let catalog = try tx.feedIDs()
        state.withLock { state in
            for id in kept where !catalog.contains(id) { state.feeds[id] = nil }
            state.tooLarge = state.tooLarge.filter { catalog.contains($0.key) }
        }
    }

    /// ``dropRemovedFeeds(_:keptBefore:)`` in a read transaction of its own: a feed refused for
    /// the budget looks for room held by feeds removed.
    private func dropRemovedFeeds(database: any CatalogStore) async {
        let kept = state.withLock { Set($0.feeds.keys) }
        _ = try? await database.read { [self] tx in try dropRemovedFeeds(tx, keptBefore: kept) }
        state.withLock { $0.pruning = nil }
    }

    /// Forgets what is kept of a feed (its copy disagreed with the catalog, or the feed was
    /// removed): its entry leaves the kept feeds with its share of the budget, and the next
    /// reader loads the feed anew in an entry of its own. Waits for nothing: a task under way
    /// for the old entry ends on its own, storing nothing.
    func forget(feedID: Int64) {
        state.withLock { _ = $0.feeds.removeValue(forKey: feedID) }
    }
}

extension KeptFeeds {
    /// Everything kept, owned by ``KeptFeeds``'s lock.
    private struct State {
        var feeds: [Int64: KeptFeed] = [:]
        /// Feeds dropped for outgrowing the budget, by id: the bytes they took an image, so that
        /// one is admitted again only once it would fit.
        var tooLarge: [Int64: Double] = [:]
        /// The last entry's token.
        var tokens: UInt64 = 0
        /// The look for feeds removed under way, and when the last began
        /// (``dropRemovedFeeds(database:)``).
        var pruning: Task<Void, Never>?
        var lastPruned: ContinuousClock.Instant?

        /// The budget the kept feeds but `feedID` take.
        /// What `feed` is admitted with: its image count times what an image of it takes (more
        /// than the estimate for a feed found too large at its size).
        func admission(of feed: FeedRecord) -> Int {
            Int(Double(feed.imageCount) * (tooLarge[feed.id] ?? Double(KeptGeometry.bytesPerImage)))
        }

        func shares(besides feedID: Int64) -> Int {
            feeds.reduce(0) { $0 + ($1.key == feedID ? 0 : $1.value.share) }
        }

        /// Counts what `feedID`'s entry holds now, with the `copied` bytes a follow has just made
        /// beside the copy it followed, and keeps the budget: past it, the feed's layouts but
        /// `key`'s go, and if it still does not fit, the feed is forgotten and remembered as too
        /// large at its size.
        mutating func settle(_ feedID: Int64, keeping key: String?, copied: Int, budget: Int) {
            guard var entry = feeds[feedID] else { return }
            let others = shares(besides: feedID)
            entry.heldBytes = entry.bytes + copied
            if others + entry.heldBytes > budget {
                entry.layouts = entry.layouts.filter { $0.key == key }
                entry.heldBytes = entry.bytes + copied
            }
            guard others + entry.heldBytes <= budget else {
                tooLarge[feedID] = Double(entry.heldBytes) / Double(max(1, entry.geometry?.count ?? 1))
                feeds[feedID] = nil
                return
            }
            feeds[feedID] = entry
        }
    }

    /// One feed kept: its copy, its layouts, and the tasks under way that bring them to a newer
    /// revision.
    private struct KeptFeed {
        let name: String
        /// Which entry this is: a task stores its result only into the entry that started it
        /// (not into one made after the feed was forgotten).
        let token: UInt64
        /// What the feed was admitted with, by its image count.
        var reservedBytes = 0
        /// What it held when last counted.
        var heldBytes = 0
        var geometry: KeptGeometry?
        /// A ``KeptLayout`` by configuration (its canonical JSON), with the bytes it takes. Each
        /// keeps the plans of one generation of the geometry, and lays a newer one out anew.
        var layouts: [String: (layout: any Sendable, bytes: Int, used: UInt64)] = [:]
        /// How many times a layout has been used (each layout's `used` is the number of its
        /// last use).
        var uses: UInt64 = 0
        /// The load or follow under way: every reader of a newer revision awaits a follow (for
        /// its patience at most); a load only its starter awaits (of a feed of ``awaitedLoad``
        /// images at most), the others answer without it.
        var bringing: (task: Task<Void, Never>, isLoad: Bool)?
        /// The configuration of the layout placed last.
        var lastPlaced: String?
        /// The placement of a layout under way (one at a time).
        var placing: Task<Void, Never>?

        init(name: String, token: UInt64) {
            self.name = name
            self.token = token
        }

        /// Its share of the budget: what it holds, or what it was admitted with while it loads.
        var share: Int { max(reservedBytes, heldBytes) }

        /// The bytes its geometry and layouts take.
        var bytes: Int { layouts.values.reduce(geometry?.bytes ?? 0) { $0 + $1.bytes } }

        /// `body`'s answer, with the entry admitted at `bytes`.
        mutating func reserving<T>(_ bytes: Int, _ body: (inout KeptFeed) -> T) -> T {
            reservedBytes = bytes
            return body(&self)
        }

        /// Notes a use of `key`'s layout.
        mutating func use(_ key: String) {
            uses += 1
            layouts[key]?.used = uses
        }

        /// `key`'s layout when it is kept with `stride` and placed on `geometry`, its use noted;
        /// else `nil`.
        mutating func useLayout<Kind: StreamingLayoutKind>(_ key: String, stride: Int, on geometry: KeptGeometry)
            -> KeptLayout<Kind>?
        {
            guard let kept = layouts[key]?.layout as? KeptLayout<Kind>, kept.stride == stride, kept.places(geometry)
            else { return nil }
            use(key)
            return kept
        }

        /// Ends the placement of `key`'s layout, keeping `layout` if it places the copy kept now.
        mutating func place<Kind>(_ layout: KeptLayout<Kind>?, key: String) {
            placing = nil
            guard let layout, let geometry, layout.places(geometry) else { return }
            // Past the layouts kept a feed, the one used longest ago goes (a client sending new
            // configurations one after another evicts its own, not the ones in use).
            if layouts[key] == nil && layouts.count >= KeptFeeds.layoutsPerFeed,
                let oldest = layouts.min(by: { $0.value.used < $1.value.used })?.key
            {
                layouts[oldest] = nil
            }
            layouts[key] = (layout, layout.bytes, 0)
            use(key)
            lastPlaced = key
        }
    }
}

/// What a server's write read to bring a kept copy along (``KeptFeeds/written(_:_:)``).
struct WrittenFollow: Sendable {
    /// The feed at the revision the write made.
    let feed: FeedRecord
    /// The entry whose copy it follows, and the copy's revision.
    fileprivate let token: UInt64
    fileprivate let from: Int64
    fileprivate let reads: KeptFollowReads
}

/// A kept feed, as `/v1/stats` reports it.
public struct KeptFeedReport: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    public var images: Int
    public var bytes: Int
}

/// What a read finds in the kept feed: the feed's geometry and a layout's placement at the
/// reader's revision, then the answer laid out from them; or why not, and what to do instead
/// (``KeptFeeds/placement(feed:engine:key:stride:database:)``).
enum KeptRead<Value> {
    case ready(Value)
    /// The copy is newer than the reader's transaction: read again in a new one.
    case ahead
    /// The copy or the layout is being brought to the reader's revision by `task`: await it
    /// outside the transaction, then read again.
    case wait(Task<Void, Never>)
    /// The reader has started `task` (a load, or a follow in a transaction of its own): await it
    /// to its end outside the transaction, as it would have done the work itself, then read
    /// again.
    case started(Task<Void, Never>)
    /// The reader brings the copy or the layout to its revision: run the work in its own
    /// transaction (``KeptFeeds/lead(_:reading:)``), then look again in it.
    case lead(KeptLead)
    /// Not kept (over the budget, being loaded, or the copy disagreed with the catalog and was
    /// dropped): answer from the database's layout cache.
    case notKept

    /// What is ready made into another read (`transform` may find it not kept after all).
    func flatMap<T>(_ transform: (Value) throws -> KeptRead<T>) rethrows -> KeptRead<T> {
        switch self {
        case .ready(let value): try transform(value)
        case .ahead: .ahead
        case .wait(let task): .wait(task)
        case .started(let task): .started(task)
        case .lead(let lead): .lead(lead)
        case .notKept: .notKept
        }
    }

    /// What is ready made into something else.
    func map<T>(_ transform: (Value) throws -> T) rethrows -> KeptRead<T> {
        try flatMap { .ready(try transform($0)) }
    }
}

extension FeedRecord {
    /// This feed as `current` (its row read again) shows it: its revision and image count.
    fileprivate func at(_ current: FeedRecord) -> FeedRecord {
        var now = self
        now.revision = current.revision
        now.imageCount = current.imageCount
        return now
    }
}

/// Work on a kept feed that one reader leads in its own transaction (a follow, a layout placed):
/// the stored task of its revision, which the other readers await, ends when the leader has run
/// it (``KeptFeeds/lead(_:reading:)``), or when the work is dropped unrun.
final class KeptLead: Sendable {
    fileprivate let run: @Sendable (any CatalogPageReads) async -> Task<Void, Never>?
    fileprivate let finished: AsyncStream<Void>.Continuation
    /// The task the other readers await.
    private let task: Task<Void, Never>
    /// Clears the entry's slot that holds `task`, when the work is dropped unrun.
    private let dropped: @Sendable (Task<Void, Never>) -> Void
    /// Whether a reader has begun the work.
    private let began = Mutex(false)

    private init(
        run: @escaping @Sendable (any CatalogPageReads) async -> Task<Void, Never>?,
        finished: AsyncStream<Void>.Continuation, task: Task<Void, Never>,
        dropped: @escaping @Sendable (Task<Void, Never>) -> Void
    ) {
        self.run = run
        self.finished = finished
        self.task = task
        self.dropped = dropped
    }

    /// Marks the work begun: whoever runs it now clears its slot.
    fileprivate func begin() {
        began.withLock { $0 = true }
    }

    deinit {
        if !began.withLock({ $0 }) { dropped(task) }
        finished.finish()
    }

    /// The work, and the task that ends when it has run.
    fileprivate static func make(
        _ run: @escaping @Sendable (any CatalogPageReads) async -> Task<Void, Never>?,
        dropped: @escaping @Sendable (Task<Void, Never>) -> Void
    ) -> (KeptLead, Task<Void, Never>) {
        let (ended, finished) = AsyncStream<Void>.makeStream()
        let task = Task {
            for await _ in ended {}
        }
        return (KeptLead(run: run, finished: finished, task: task, dropped: dropped), task)
    }
}
