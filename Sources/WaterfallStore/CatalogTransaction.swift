/// The catalog seen from inside one transaction: the domain operations the service composes,
/// one protocol per aggregate (feeds, sections, images and their order keys, the change log,
/// named layouts, the layout cache, API keys, the catalog's own identity), named as a user names
/// them.
///
/// Obtained from ``CatalogStore/read(_:)`` or ``CatalogStore/write(_:)`` and valid only inside
/// that closure. Reads are available in both; writes only in `write`. Each engine implements
/// every role in its own folder (``SQLiteTransaction``, ``PostgresTransaction``, a file per
/// role), the only places its SQL dialect appears; what does not depend on the engine
/// (order-key allocation) is written once in extensions. `Tests/WaterfallStoreTests/Conformance`
/// is the contract every engine must pass.
public protocol CatalogTransaction: FeedRows, SectionRows, ImageRows, ChangeLogRows, NamedLayoutRows, LayoutCacheRows,
    APIKeyRows, CatalogIdentityRows, ViewRows, ShareRows, MirrorRows
{}

/// Feeds: names, revisions, counts, and removal of everything of a feed.
public protocol FeedRows {
    /// The feed named `name`, or `nil`.
    func feed(named name: String) throws -> FeedRecord?
    /// Every feed, by name.
    func feeds() throws -> [FeedRecord]
    /// Every feed with its counts, by name.
    func feedSummaries() throws -> [FeedSummary]
    /// The counts of the feed named `name`, or `nil`.
    func feedSummary(named name: String) throws -> FeedSummary?
    /// Every feed's incarnation and revision, by name: what a watcher compares to see which
    /// feeds changed, or were removed and made anew.
    func feedVersions() throws -> [String: FeedVersion]
    /// Deletes a feed and everything of it: sections, images, the change log, named layouts
    /// and the layout cache.
    func deleteFeed(id: Int64) throws
    /// Creates an empty feed at revision 0, with an id no feed of the catalog ever had (its
    /// incarnation, DESIGN section 19); with `viewOf`, a view's membership (DESIGN section 20):
    /// a feed no lookup by name, list or watcher sees, removed with the feed it filters.
    func createFeed(named name: String, viewOf base: Int64?) throws -> FeedRecord
    /// Any feed by id, a view's membership included.
    func feed(id: Int64) throws -> FeedRecord?
    /// The id of every feed, views' memberships included.
    func feedIDs() throws -> Set<Int64>
    /// Sets a view's membership at `revision` (its feed's).
    func setRevision(feedID: Int64, to revision: Int64) throws
    /// Adjusts the stored image count by `delta`.
    func adjustImageCount(feedID: Int64, by delta: Int) throws
    /// Bumps the feed's revision, records when (the transaction's time), and returns the new one.
    func bumpRevision(feedID: Int64) throws -> Int64
    /// Stores the feed's date sections (DESIGN section 17): `sectionBy` `day`, `month`, `year`
    /// or `nil`, `timeZone` an IANA name or `nil` (UTC).
    func setSectioning(feedID: Int64, sectionBy: String?, timeZone: String?) throws
}

extension FeedRows {
    /// Creates an empty feed at revision 0 (not a view's membership).
    public func createFeed(named name: String) throws -> FeedRecord {
        try createFeed(named: name, viewOf: nil)
    }
}

/// Views (DESIGN section 20): named rules over a feed, each with its membership, a feed of its
/// own that holds the images that match.
public protocol ViewRows {
    /// A feed's views, by name (byte order).
    func views(feedID: Int64) throws -> [ViewRecord]
    /// The view of a feed named `name`, or `nil`.
    func view(feedID: Int64, name: String) throws -> ViewRecord?
    /// Saves a view under its name, replacing one of that name (whose membership the caller
    /// removed first).
    func saveView(_ view: ViewRecord) throws
    /// Removes a view and its membership; `false` when the feed has no view of that name.
    func removeView(feedID: Int64, name: String) throws -> Bool
}

/// Share links (DESIGN section 20): tokens, kept as their SHA-256, that hand a feed or a view
/// to whoever holds one, read-only.
public protocol ShareRows {
    /// Saves a share and returns its id.
    func insertShare(_ share: ShareRecord) throws -> Int64
    /// Every share, with its feed's name, by id.
    func shares() throws -> [ShareRecord]
    /// The share whose token has this SHA-256, or `nil`.
    func share(tokenHash: [UInt8]) throws -> ShareRecord?
    /// Removes a share; `false` when there is none of that id.
    func removeShare(id: Int64) throws -> Bool
}

/// The change log: what changed at each revision of a feed.
public protocol ChangeLogRows {
    /// Appends change-log rows under `revision`, in order, after any it already has.
    func appendChanges(
        feedID: Int64, revision: Int64, _ changes: [(kind: ChangeKind, externalID: String, section: String?)]) throws
    /// Logs every image of a feed as inserted under `revision`, in catalog order (a first
    /// import). The revision must have no rows yet.
    func appendInsertChangesForWholeFeed(feedID: Int64, revision: Int64) throws
    /// The change log of a feed after `revision`, oldest first: its first `limit` rows.
    func changes(feedID: Int64, since revision: Int64, limit: Int) throws -> [ChangeRecord]
    /// The change log of a feed after `revision` up to `last` (inclusive), oldest first, whole.
    func changes(feedID: Int64, since revision: Int64, through last: Int64) throws -> [ChangeRecord]
    /// How many rows of each kind the change log holds for one revision of a feed (an event
    /// stream's truncated revision, DESIGN section 19), without reading them.
    func changeCounts(feedID: Int64, revision: Int64) throws -> [ChangeKind: Int]
    /// The oldest revision the feed's change log can be read from: the rows of revisions up to
    /// it may have been pruned (``pruneChanges(feedID:through:limit:)``), so a read from an
    /// earlier one would miss some. 0 while nothing was pruned.
    func changesFrom(feedID: Int64) throws -> Int64
    /// The greatest revision of the feed committed before `time` (Unix seconds), or `nil`
    /// (none was, or none since its time was recorded: revisions record it from schema
    /// migration 0007, PostgreSQL's 0004, on).
    func lastRevision(feedID: Int64, committedBefore time: Int64) throws -> Int64?
    /// Prunes the change log of the revisions up to `revision`: the feed's
    /// ``changesFrom(feedID:)`` is raised to `revision` (never lowered), then at most `limit` of
    /// those rows are deleted, oldest first, with the commit times of those revisions. Returns
    /// the rows deleted: fewer than `limit` when none is left. A bounded delete keeps the
    /// write lock short; the caller repeats it while it deletes `limit` rows.
    func pruneChanges(feedID: Int64, through revision: Int64, limit: Int) throws -> Int
}

extension ChangeLogRows {
    /// The change log of a feed after `revision`, oldest first, whole.
    public func changes(feedID: Int64, since revision: Int64) throws -> [ChangeRecord] {
        try changes(feedID: feedID, since: revision, limit: Int.max)
    }
}

/// Sections of a feed, in order, with their titles and declared flags.
public protocol SectionRows {
    /// The sections of a feed, in order.
    func sections(feedID: Int64) throws -> [SectionRecord]
    /// The ids of a feed's sections, in order: all a layout needs of them.
    func sectionIDs(feedID: Int64) throws -> [Int64]
    /// The sections with these ids, each once, in any order (unknown ids are skipped): the
    /// names and titles of the few sections an answer shows.
    func sections(ids: [Int64]) throws -> [SectionRecord]
    /// The section with id `id`.
    func section(id: Int64) throws -> SectionRecord?
    /// Inserts a section and returns its id.
    func insertSection(feedID: Int64, name: String?, title: String?, position: Int64, isDeclared: Bool) throws -> Int64
    /// Updates a section's title, position and declared flag.
    func updateSection(_ section: SectionRecord) throws
    /// Gives sections new positions (the caller supplies a collision-free final order; the
    /// rows may pass through any order on the way).
    func repositionSections(_ positions: [(id: Int64, position: Int64)]) throws
    /// Deletes a section (its images must be gone or moved already).
    func deleteSection(id: Int64) throws
    /// Deletes the sections of a feed that hold no image and are not declared; returns their ids.
    @discardableResult
    func deleteEmptyUndeclaredSections(feedID: Int64) throws -> [Int64]
    /// The number of images of each section of a feed, by section id (empty sections left out).
    func imageCounts(feedID: Int64) throws -> [Int64: Int]
    /// How many images a section holds.
    func imageCount(sectionID: Int64) throws -> Int
    /// The earliest and the latest `takenAt` of each of the sections, by section id (sections
    /// without a dated image left out). Two index seeks a section.
    func takenAtRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>]
    /// The first and the last order key of each of the sections, by section id (empty sections
    /// left out). Two index seeks a section.
    func keyRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>]
    /// The order key of the first image, in catalog order, of the first of `sectionIDs` (given
    /// in catalog order) that holds one taken at or before `moment` (milliseconds since the
    /// epoch), or `nil` when none does: one seek a section up to that one, then a walk of it in
    /// order (DESIGN section 17, `locate?date=`).
    func firstKey(sectionIDs: [Int64], takenAtOrBefore moment: Int64) throws -> Int64?
}

/// Images of a feed and their sparse order keys (catalog order is key order).
public protocol ImageRows {
    /// The image of a feed with id `externalID`, or `nil`.
    func image(feedID: Int64, externalID: String) throws -> ImageRecord?
    /// The image of a feed at order key `key`, or `nil`.
    func image(feedID: Int64, key: Int64) throws -> ImageRecord?
    /// Every image of a feed, in catalog order. O(n): for imports, which compare whole feeds.
    func allImages(feedID: Int64) throws -> [ImageRecord]
    /// Up to `limit` images from order key `key` on (inclusive), in catalog order.
    func images(feedID: Int64, fromKey key: Int64, limit: Int) throws -> [ImageRecord]
    /// Up to `limit` images from catalog index `offset`, in catalog order. O(offset + limit).
    func images(feedID: Int64, offset: Int, limit: Int) throws -> [ImageRecord]
    /// How many images of a feed carry `tag` (compared exactly). O(n): a scan of the feed.
    func imageCount(feedID: Int64, tagged tag: String) throws -> Int
    /// Up to `limit` images carrying `tag` from order key `key` on (inclusive), in catalog order.
    func images(feedID: Int64, tagged tag: String, fromKey key: Int64, limit: Int) throws -> [ImageRecord]
    /// Up to `limit` images carrying `tag` from index `offset` among them, in catalog order.
    func images(feedID: Int64, tagged tag: String, offset: Int, limit: Int) throws -> [ImageRecord]
    /// Calls `body` with the geometry of every image from order key `key` on, in catalog order,
    /// until `body` returns `false`.
    func scanGeometry(feedID: Int64, fromKey key: Int64, _ body: (ImageGeometry) throws -> Bool) throws
    /// Calls `body` with the geometry and the id of every image of a feed, in catalog order: one
    /// ordered pass, what a server's in-memory copy of a feed's geometry loads.
    func scanIdentifiedGeometry(feedID: Int64, _ body: (ImageGeometry, String) throws -> Void) throws
    /// The images of a feed with these ids, in any order (ids the feed lacks are left out):
    /// what following the change log reads of the images it names, in one statement.
    func images(feedID: Int64, externalIDs: [String]) throws -> [ImageRecord]
    /// The images of a feed at these order keys, in any order (keys without an image are left
    /// out).
    func images(feedID: Int64, keys: [Int64]) throws -> [ImageRecord]
    /// The order key and `takenAt` of every image of each of the sections, in catalog order,
    /// by section id (empty sections left out): where an append into date sections places its
    /// images, read without the images' records. O(the sections' images).
    func keysAndDates(sectionIDs: [Int64]) throws -> [Int64: [KeyAndDate]]
    /// The order keys just below and just above each of `keys` (`nil` at either end), by key,
    /// in one statement: where the change log's images sit.
    func neighbourKeys(feedID: Int64, of keys: [Int64]) throws -> [Int64: NeighbourKeys]
    /// The greatest order key below `key`, or `nil` when `key` is first.
    func key(feedID: Int64, before key: Int64) throws -> Int64?
    /// The least order key above `key`, or `nil` when `key` is last.
    func key(feedID: Int64, after key: Int64) throws -> Int64?
    /// Up to `limit` order keys of a feed at or below `key`, greatest first.
    func keys(feedID: Int64, atOrBelow key: Int64, limit: Int) throws -> [Int64]
    /// Up to `limit` order keys of a feed at or above `key`, least first.
    func keys(feedID: Int64, atOrAbove key: Int64, limit: Int) throws -> [Int64]
    /// The order key of the image at index `index` of a section (0-based), or `nil`. O(index).
    func key(sectionID: Int64, index: Int) throws -> Int64?
    /// The index of the image at `key` inside its section. O(index).
    func index(sectionID: Int64, key: Int64) throws -> Int
    /// Inserts `count` images produced in order by `next` (their keys must be free).
    /// `beforeIndexing` is called when the rows are in and indexes dropped for a first bulk
    /// import are about to be rebuilt (an engine that drops none never calls it).
    func insertImages(feedID: Int64, count: Int, beforeIndexing: (() -> Void)?, _ next: () throws -> ImageRecord) throws
    /// Rewrites the sizes, span, url and title of the images at their keys.
    func updateImages(feedID: Int64, _ images: some Sequence<ImageRecord>) throws
    /// Deletes the images at `keys`.
    func deleteImages(feedID: Int64, keys: some Sequence<Int64>) throws
    /// Gives many images new keys (and sections, where `sectionID` is not `nil`) at once, in any
    /// order: a permutation never collides with itself.
    func rekeyImages(feedID: Int64, _ moves: [(from: Int64, to: Int64, sectionID: Int64?)]) throws
    /// Runs `body`, a bulk write, with the engine's memory kept small (`pageCacheKiB` of page
    /// cache where the engine has one in this process).
    func withBulkWriteMemory<T>(pageCacheKiB: Int, _ body: () throws -> T) throws -> T
}

/// Layout configurations saved under a name, per feed.
public protocol NamedLayoutRows {
    /// The named layouts of a feed, by name.
    func layouts(feedID: Int64) throws -> [NamedLayoutRecord]
    /// The named layout `name` of a feed, or `nil`.
    func layout(feedID: Int64, name: String) throws -> NamedLayoutRecord?
    /// Saves a named layout, replacing one of the same name.
    func saveLayout(feedID: Int64, _ layout: NamedLayoutRecord) throws
    /// Removes a named layout, and its cache entry when no other name uses the configuration.
    /// Returns `false` when there was no such layout.
    func removeLayout(feedID: Int64, name: String) throws -> Bool
}

/// The layout cache in the database (DESIGN section 5): entries, checkpoints, section extents.
public protocol LayoutCacheRows {
    /// The cache entry of a (feed, configuration), or `nil` when none was made yet.
    func cacheEntry(feedID: Int64, configuration: String) throws -> LayoutCacheRecord?
    /// Creates the cache entry of a (feed, configuration), or returns the existing one; keeps
    /// at most ``LayoutCacheRecord/maximumUnnamedEntries`` entries that no named layout uses
    /// (see ``LayoutCacheRecord``).
    func makeCacheEntry(feedID: Int64, configuration: String, stride: Int) throws -> LayoutCacheRecord
    /// The checkpoint with the greatest index not above `index`, or `nil`.
    func checkpoint(cacheID: Int64, atOrBelow index: Int) throws -> CheckpointRecord?
    /// The checkpoint with the greatest order key not above `key`, or `nil` (checkpoints' keys
    /// grow with their indexes): where a walk to the image at `key` starts. Reads the
    /// checkpoints after it (a few thousand for a million images).
    func checkpoint(cacheID: Int64, atOrBelowKey key: Int64) throws -> CheckpointRecord?
    /// Every checkpoint's index and band, in index order.
    func checkpointBands(cacheID: Int64) throws -> [(index: Int, top: Double, bottom: Double)]
    /// The start and end of the given sections in a cached layout.
    func sectionExtents(cacheID: Int64, sectionIDs: some Collection<Int64>) throws -> [Int64: SectionExtentRecord]
    /// Stores checkpoints, section extents and the end of a layout computed at `revision`,
    /// unless the feed has moved past `revision` meanwhile or the entry is gone (then nothing
    /// is stored). Returns whether it stored.
    func saveLayoutCache(
        cacheID: Int64, feedID: Int64, revision: Int64,
        checkpoints: [CheckpointRecord], sections: [SectionExtentRecord], end: LayoutEndRecord?
    ) throws -> Bool
    /// Invalidates, in every cached layout of a feed, what depends on images at order key `key`
    /// or later: the checkpoints from `key` on and the extents of sections ending after it.
    func invalidateLayouts(feedID: Int64, fromKey key: Int64) throws
    /// How much of every cached layout is valid.
    func cacheCoverage() throws -> [LayoutCacheCoverage]
}

/// What the catalog holds of itself (DESIGN section 19).
public protocol CatalogIdentityRows {
    /// The 32 random bytes made with the catalog that sign the tokens its servers hand out:
    /// the same for every process that opens the catalog.
    func tokenSecret() throws -> [UInt8]
    /// Whether every migration this version of Waterfall knows is applied (a server's
    /// readiness, `GET /readyz`).
    func migrationsAreCurrent() throws -> Bool
}

/// What makes a catalog a mirror (DESIGN section 21): the server it follows, and which of that
/// server's feeds (by incarnation) each of its feeds holds.
public protocol MirrorRows {
    /// The URL of the server this catalog mirrors, or `nil` for a catalog of its own.
    func mirrorSource() throws -> String?
    /// Marks the catalog as a mirror of the server at `url` (replacing any earlier one).
    func setMirrorSource(_ url: String) throws
    /// The source's feed that feed `feedID` holds: the identity of the source's catalog and the
    /// feed's incarnation there; `nil` for a feed no mirror wrote.
    func mirroredFeed(feedID: Int64) throws -> (catalog: String, incarnation: Int64)?
    /// Records that feed `feedID` holds the feed of incarnation `incarnation` of the source's
    /// catalog `catalog`.
    func setMirroredFeed(feedID: Int64, catalog: String, incarnation: Int64) throws
}

/// API keys: names, scopes and the hashes of their secrets.
public protocol APIKeyRows {
    /// Every API key, by name, with its feeds by name.
    func apiKeys() throws -> [APIKeyRecord]
    /// Whether any API key exists (a server then asks for one).
    func hasAPIKeys() throws -> Bool
    /// Stores a new key. Returns `false` when a key of that name exists (nothing is written).
    func insertAPIKey(_ key: APIKeyRecord) throws -> Bool
    /// Deletes the key `name`; `false` when there was none.
    func deleteAPIKey(named name: String) throws -> Bool
    /// Records that the key `name` was used at `time` (Unix seconds), unless a later use is
    /// recorded already; nothing when there is no such key.
    func recordAPIKeyUse(named name: String, at time: Int64) throws
}

extension ImageRows {
    /// Inserts `count` images produced in order by `next`.
    public func insertImages(feedID: Int64, count: Int, _ next: () throws -> ImageRecord) throws {
        try insertImages(feedID: feedID, count: count, beforeIndexing: nil, next)
    }

    /// Inserts images (their keys must be free).
    public func insertImages(feedID: Int64, _ images: [ImageRecord]) throws {
        var index = 0
        try insertImages(feedID: feedID, count: images.count, beforeIndexing: nil) {
            defer { index += 1 }
            return images[index]
        }
    }
}
