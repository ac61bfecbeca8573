import Foundation
import GRDB
import GRDBSQLite

/// ``CatalogTransaction`` on SQLite: the catalog inside one transaction of an
/// ``SQLiteCatalog``, the only place where SQLite's SQL is written (with `Migrations/sqlite/`).
public struct SQLiteTransaction: CatalogTransaction {
    let db: Database

    // MARK: Feeds

    /// The feed named `name`, or `nil`.
    public func feed(named name: String) throws -> FeedRecord? {
        let statement = try RawStatement(cached: db, SharedSQL.feedByName.sqlite)
        statement.bind(1, name)
        return try statement.first(FeedRecord.init(statement:))
    }

    /// Every feed, by name.
    public func feeds() throws -> [FeedRecord] {
        try RawStatement(cached: db, "SELECT \(SharedSQL.feedColumns) FROM feed WHERE view_of IS NULL ORDER BY name")
            .all(FeedRecord.init(statement:))
    }

    public func feed(id: Int64) throws -> FeedRecord? {
        let statement = try RawStatement(cached: db, SharedSQL.feedByID.sqlite)
        statement.bind(1, id)
        return try statement.first(FeedRecord.init(statement:))
    }

    public func feedIDs() throws -> Set<Int64> {
        Set(try Int64.fetchAll(db, sql: "SELECT id FROM feed"))
    }

    public func setRevision(feedID: Int64, to revision: Int64) throws {
        try db.execute(sql: SharedSQL.setRevision.sqlite, arguments: [revision, feedID])
    }

    /// Every feed with its counts, by name.
    public func feedSummaries() throws -> [FeedSummary] {
        try Row.fetchAll(db, sql: "\(Self.feedSummarySelect) ORDER BY name").map(Self.feedSummary)
    }

    /// The counts of the feed named `name`, or `nil`.
    public func feedSummary(named name: String) throws -> FeedSummary? {
        try Row.fetchOne(db, sql: "\(Self.feedSummarySelect) AND name = ?", arguments: [name]).map(Self.feedSummary)
    }

    private static let feedSummarySelect = """
        SELECT id, name, revision, image_count,
               (SELECT COUNT(*) FROM section WHERE feed_id = feed.id) AS sections,
               (SELECT COUNT(*) FROM layout WHERE feed_id = feed.id) AS layouts
        FROM feed WHERE view_of IS NULL
        """

    private static func feedSummary(_ row: Row) -> FeedSummary {
        FeedSummary(id: row[0], name: row[1], revision: row[2], images: row[3], sections: row[4], layouts: row[5])
    }

    /// Every feed's incarnation and revision, by name: what a watcher compares.
    public func feedVersions() throws -> [String: FeedVersion] {
        var versions: [String: FeedVersion] = [:]
        for row in try Row.fetchAll(db, sql: SharedSQL.feedVersions.sqlite) {
            versions[row[0]] = FeedVersion(incarnation: row[1], revision: row[2])
        }
        return versions
    }

    /// Deletes a feed and, through the schema's cascades, everything of it: sections, images,
    /// the change log, named layouts and the layout cache.
    public func deleteFeed(id: Int64) throws {
        try db.execute(sql: SharedSQL.deleteFeed.sqlite, arguments: [id])
    }

    /// Creates an empty feed at revision 0, with the catalog's next feed id: SQLite alone would
    /// give a feed made after the greatest one was removed that removed feed's id, and a feed's
    /// id is its incarnation, never used twice (DESIGN section 19).
    public func createFeed(named name: String, viewOf base: Int64?) throws -> FeedRecord {
        try db.execute(
            sql: """
                INSERT INTO feed (id, name, view_of)
                SELECT max(next_feed_id, (SELECT coalesce(max(id), 0) + 1 FROM feed)), ?, ? FROM catalog_identity
                """, arguments: [name, base])
        guard db.changesCount == 1 else {
            throw StoreError(.cannotWrite, "the catalog has no identity row: no feed can be made in it.")
        }
        let id = db.lastInsertedRowID
        try db.execute(sql: "UPDATE catalog_identity SET next_feed_id = ?", arguments: [id + 1])
        return FeedRecord(id: id, name: name, revision: 0, imageCount: 0)
    }

    /// Adjusts the stored image count by `delta` (bulk writers that know their counts use this
    /// rather than a recount).
    public func adjustImageCount(feedID: Int64, by delta: Int) throws {
        try db.execute(sql: SharedSQL.adjustImageCount.sqlite, arguments: [delta, feedID])
    }

    /// Bumps the feed's revision and returns the new one (writers keep `image_count` right
    /// with ``adjustImageCount(feedID:by:)``).
    public func bumpRevision(feedID: Int64) throws -> Int64 {
        try db.execute(sql: "UPDATE feed SET revision = revision + 1 WHERE id = ?", arguments: [feedID])
        let revision = try Int64.fetchOne(db, sql: SharedSQL.feedRevision.sqlite, arguments: [feedID])!
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO revision_time (feed_id, revision, committed_at) VALUES (?, ?, CAST(strftime('%s', 'now') AS INTEGER))
                """, arguments: [feedID, revision])
        return revision
    }

    public func setSectioning(feedID: Int64, sectionBy: String?, timeZone: String?) throws {
        try db.execute(sql: SharedSQL.setSectioning.sqlite, arguments: [sectionBy, timeZone, feedID])
    }

    /// Appends change-log rows under `revision`, in order, after any it already has.
    public func appendChanges(
        feedID: Int64, revision: Int64, _ changes: [(kind: ChangeKind, externalID: String, section: String?)]
    ) throws {
        guard !changes.isEmpty else { return }
        let next = try RawStatement(db, SharedSQL.nextChangeSequence.sqlite)
        next.bind(1, feedID)
        next.bind(2, revision)
        var seq = try next.first { $0.int64(0) } ?? 0
        let insert = try RawStatement(
            db,
            """
            INSERT INTO change (feed_id, revision, seq, kind, external_id, section) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for change in changes {
            insert.bind(1, feedID)
            insert.bind(2, revision)
            insert.bind(3, seq)
            insert.bind(4, change.kind.rawValue)
            insert.bind(5, change.externalID)
            insert.bind(6, change.section)
            try insert.run()
            seq += 1
        }
    }

    /// Logs every image of a feed as inserted under `revision`, in catalog order: one statement
    /// for a whole first import, instead of a row written from Swift per image. The images'
    /// order keys order the rows (`seq`), so the revision must have no rows yet.
    /// Runs as trusted rows (``withTrustedRows(_:)``): every row names this transaction's feed.
    public func appendInsertChangesForWholeFeed(feedID: Int64, revision: Int64) throws {
        try withTrustedRows {
            try db.execute(
                sql: """
                    INSERT INTO change (feed_id, revision, seq, kind, external_id, section)
                    SELECT image.feed_id, ?, image.sort_key, 'insert', image.external_id, section.name
                    FROM image JOIN section ON section.id = image.section_id
                    WHERE image.feed_id = ?
                    ORDER BY image.sort_key
                    """, arguments: [revision, feedID])
        }
    }

    /// The change log of a feed after `revision`, oldest first: its first `limit` rows.
    public func changes(feedID: Int64, since revision: Int64, limit: Int) throws -> [ChangeRecord] {
        try Row.fetchAll(db.cachedStatement(sql: SharedSQL.changesSince.sqlite), arguments: [feedID, revision, limit])
            .map {
                ChangeRecord(revision: $0[0], kind: ChangeKind(rawValue: $0[1])!, externalID: $0[2], section: $0[3])
            }
    }

    /// The change log of a feed after `revision` up to `last` (inclusive), oldest first.
    public func changes(feedID: Int64, since revision: Int64, through last: Int64) throws -> [ChangeRecord] {
        try Row.fetchAll(db.cachedStatement(sql: SharedSQL.changesBetween.sqlite), arguments: [feedID, revision, last])
            .map {
                ChangeRecord(revision: $0[0], kind: ChangeKind(rawValue: $0[1])!, externalID: $0[2], section: $0[3])
            }
    }

    /// How many rows of each kind one revision's change log holds.
    public func changeCounts(feedID: Int64, revision: Int64) throws -> [ChangeKind: Int] {
        var counts: [ChangeKind: Int] = [:]
        for row in try Row.fetchAll(db, sql: SharedSQL.changeCounts.sqlite, arguments: [feedID, revision]) {
            if let kind = ChangeKind(rawValue: row[0]) { counts[kind] = row[1] }
        }
        return counts
    }

    /// The oldest revision the feed's change log can be read from.
    public func changesFrom(feedID: Int64) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: SharedSQL.changesFrom.sqlite), arguments: [feedID]) ?? 0
    }

    /// The greatest revision of the feed committed before `time` (Unix seconds), or `nil`.
    public func lastRevision(feedID: Int64, committedBefore time: Int64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: SharedSQL.lastRevisionBefore.sqlite), arguments: [feedID, time])
    }

    /// Prunes the change log up to `revision`, at most `limit` rows; returns the rows deleted.
    public func pruneChanges(feedID: Int64, through revision: Int64, limit: Int) throws -> Int {
        try db.execute(sql: SharedSQL.raiseChangesFrom.sqlite, arguments: [revision, feedID, revision])
        try db.execute(sql: SharedSQL.pruneChanges.sqlite, arguments: [feedID, feedID, revision, limit])
        let deleted = db.changesCount
        try db.execute(sql: SharedSQL.pruneRevisionTimes.sqlite, arguments: [feedID, revision])
        return deleted
    }

    // MARK: Sections

    /// The sections of a feed, in order.
    public func sections(feedID: Int64) throws -> [SectionRecord] {
        let statement = try RawStatement(cached: db, SharedSQL.sectionsOfFeed.sqlite)
        statement.bind(1, feedID)
        return try statement.all(SectionRecord.init(statement:))
    }

    /// The columns `SectionRecord.init(statement:)` reads, in its order.
    private static let sectionColumns = SharedSQL.sectionColumns

    /// The ids of a feed's sections, in order.
    public func sectionIDs(feedID: Int64) throws -> [Int64] {
        let statement = try RawStatement(cached: db, SharedSQL.sectionIDsOfFeed.sqlite)
        statement.bind(1, feedID)
        return try statement.all { $0.int64(0) }
    }

    /// The sections with these ids, one prepared statement for all.
    public func sections(ids: [Int64]) throws -> [SectionRecord] {
        guard !ids.isEmpty else { return [] }
        let statement = try RawStatement(cached: db, "SELECT \(Self.sectionColumns) FROM section WHERE id = ?")
        var sections: [SectionRecord] = []
        var seen: Set<Int64> = []
        for id in ids where seen.insert(id).inserted {
            statement.bind(1, id)
            if let section = try statement.first(SectionRecord.init(statement:)) { sections.append(section) }
        }
        return sections
    }

    /// The section with id `id`.
    public func section(id: Int64) throws -> SectionRecord? {
        try sections(ids: [id]).first
    }

    /// Inserts a section and returns its id.
    public func insertSection(feedID: Int64, name: String?, title: String?, position: Int64, isDeclared: Bool) throws
        -> Int64
    {
        try db.execute(
            sql: """
                INSERT INTO section (feed_id, name, title, position, declared) VALUES (?, ?, ?, ?, ?)
                """, arguments: [feedID, name, title, position, isDeclared])
        return db.lastInsertedRowID
    }

    /// Updates a section's title, position and declared flag.
    public func updateSection(_ section: SectionRecord) throws {
        try db.execute(
            sql: SharedSQL.updateSection.sqlite,
            arguments: [section.title, section.position, section.isDeclared, section.id])
    }

    /// Gives sections new positions (the caller supplies a collision-free order).
    ///
    /// Positions are unique per feed, so the rows first move to negative positions, then to
    /// their final ones.
    public func repositionSections(_ positions: [(id: Int64, position: Int64)]) throws {
        let park = try db.makeStatement(sql: "UPDATE section SET position = -1 - id WHERE id = ?")
        for entry in positions { try park.execute(arguments: [entry.id]) }
        let place = try db.makeStatement(sql: "UPDATE section SET position = ? WHERE id = ?")
        for entry in positions { try place.execute(arguments: [entry.position, entry.id]) }
    }

    /// Deletes a section (its images must be gone or moved already).
    public func deleteSection(id: Int64) throws {
        try db.execute(sql: SharedSQL.deleteSection.sqlite, arguments: [id])
    }

    /// Deletes the sections of a feed that hold no image and are not declared; returns their ids.
    @discardableResult
    public func deleteEmptyUndeclaredSections(feedID: Int64) throws -> [Int64] {
        let ids = try Int64.fetchAll(
            db,
            sql: """
                SELECT id FROM section WHERE feed_id = ? AND declared = 0
                  AND NOT EXISTS (SELECT 1 FROM image WHERE image.section_id = section.id)
                """, arguments: [feedID])
        for id in ids { try deleteSection(id: id) }
        return ids
    }

    /// The number of images of each section of a feed, by section id (sections without images
    /// are left out). One pass over the feed's section index.
    public func imageCounts(feedID: Int64) throws -> [Int64: Int] {
        // Counted per section through `image_section` (section_id, sort_key): a range of the
        // index each, where `GROUP BY section_id` over the feed's rows sorted them all in a
        // temporary B-tree first (1M images in 200 sections: about 4 times slower).
        let statement = try RawStatement(
            cached: db,
            """
            SELECT id, (SELECT COUNT(*) FROM image WHERE section_id = section.id) FROM section WHERE feed_id = ?
            """)
        statement.bind(1, feedID)
        var counts: [Int64: Int] = [:]
        for (id, count) in try statement.all({ ($0.int64(0), Int($0.int64(1))) }) where count > 0 {
            counts[id] = count
        }
        return counts
    }

    /// How many images a section holds.
    public func imageCount(sectionID: Int64) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image WHERE section_id = ?", arguments: [sectionID]) ?? 0
    }

    public func takenAtRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>] {
        let first = try db.cachedStatement(sql: SharedSQL.firstTakenAt.sqlite)
        let last = try db.cachedStatement(sql: SharedSQL.lastTakenAt.sqlite)
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        for id in sectionIDs {
            guard let earliest = try Int64.fetchOne(first, arguments: [id]),
                let latest = try Int64.fetchOne(last, arguments: [id])
            else { continue }
            ranges[id] = earliest...latest
        }
        return ranges
    }

    public func keyRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>] {
        let first = try RawStatement(cached: db, SharedSQL.firstKeyOfSection.sqlite)
        let last = try RawStatement(cached: db, SharedSQL.lastKeyOfSection.sqlite)
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        for id in sectionIDs {
            first.bind(1, id)
            last.bind(1, id)
            guard let lower = try first.first({ $0.int64(0) }), let upper = try last.first({ $0.int64(0) }) else {
                continue
            }
            ranges[id] = lower...upper
        }
        return ranges
    }

    public func firstKey(sectionIDs: [Int64], takenAtOrBefore moment: Int64) throws -> Int64? {
        let earliest = try RawStatement(cached: db, SharedSQL.firstTakenAt.sqlite)
        for id in sectionIDs {
            earliest.bind(1, id)
            guard let taken = try earliest.first({ $0.int64(0) }), taken <= moment else { continue }
            let first = try RawStatement(cached: db, SharedSQL.firstKeyTakenAtOrBefore.sqlite)
            first.bind(1, id)
            first.bind(2, moment)
            return try first.first { $0.int64(0) }
        }
        return nil
    }
}

extension FeedRecord {
    init(statement: RawStatement) {
        self.init(
            id: statement.int64(0), name: statement.string(1) ?? "", revision: statement.int64(2),
            imageCount: Int(statement.int64(3)),
            sectionBy: statement.string(4), timeZone: statement.string(5))
    }
}

extension SectionRecord {
    init(statement: RawStatement) {
        self.init(
            id: statement.int64(0), name: statement.string(1), title: statement.string(2), position: statement.int64(3),
            isDeclared: statement.int64(4) != 0)
    }
}

extension SQLiteTransaction {
    /// Runs `body` with SQLite's memory kept small for a bulk write, then restores the usual
    /// settings (``SQLiteCatalog/pageCacheKiB``, ``SQLiteCatalog/mmapBytes``):
    ///
    /// - The page cache is limited to `pageCacheKiB`: the sorts that rebuild indexes keep up to
    ///   the cache's size in memory before they spill to temporary files, so a first 1M-image
    ///   import peaked about 70 MB lower with 4 MiB (382 → 310 MiB), at the same speed.
    /// - The file is read with `read`, not through a memory map: the index rebuild reads the
    ///   whole image table, and mapped pages count as the process's memory (another 75 MB at
    ///   the end of a 1M-image import, measured with `/usr/bin/time`).
    public func withBulkWriteMemory<T>(pageCacheKiB: Int, _ body: () throws -> T) throws -> T {
        // Restored afterwards to what the connection had (a command's or a server's settings).
        let cacheSize =
            try RawStatement(db, "PRAGMA cache_size").first { $0.int64(0) } ?? -Int64(SQLiteCatalog.pageCacheKiB)
        let mmapSize = try RawStatement(db, "PRAGMA mmap_size").first { $0.int64(0) } ?? Int64(SQLiteCatalog.mmapBytes)
        try RawStatement.execute(db, "PRAGMA cache_size = -\(max(1, pageCacheKiB)); PRAGMA mmap_size = 0")
        defer {
            try? RawStatement.execute(db, "PRAGMA cache_size = \(cacheSize); PRAGMA mmap_size = \(mmapSize)")
        }
        return try body()
    }
}

// MARK: Views

extension SQLiteTransaction {
    public func views(feedID: Int64) throws -> [ViewRecord] {
        try Row.fetchAll(
            db, sql: "SELECT \(SharedSQL.viewColumns) FROM view WHERE feed_id = ? ORDER BY name", arguments: [feedID]
        ).map(ViewRecord.init(row:))
    }

    public func view(feedID: Int64, name: String) throws -> ViewRecord? {
        try Row.fetchOne(
            db, sql: "SELECT \(SharedSQL.viewColumns) FROM view WHERE feed_id = ? AND name = ?",
            arguments: [feedID, name]
        ).map(ViewRecord.init(row:))
    }

    public func saveView(_ view: ViewRecord) throws {
        try db.execute(
            sql: SharedSQL.saveView.sqlite,
            arguments: [view.feedID, view.name, view.rule, view.membershipID, view.resolved])
    }

    public func removeView(feedID: Int64, name: String) throws -> Bool {
        try db.execute(sql: SharedSQL.removeView.sqlite, arguments: [feedID, name])
        return db.changesCount > 0
    }
}

extension ViewRecord {
    init(row: Row) {
        self.init(feedID: row[0], name: row[1], rule: row[2], membershipID: row[3], resolved: row[4])
    }
}

// MARK: Shares

extension SQLiteTransaction {
    private static let shareSelect = """
        SELECT share.id, share.token_hash, share.feed_id, feed.name, share.view, share.layout, share.expires_at,
               share.created_at
        FROM share JOIN feed ON feed.id = share.feed_id
        """

    public func insertShare(_ share: ShareRecord) throws -> Int64 {
        try db.execute(
            sql: """
                INSERT INTO share (token_hash, feed_id, view, layout, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                Data(share.tokenHash), share.feedID, share.view, share.layout, share.expiresAt, share.createdAt,
            ])
        return db.lastInsertedRowID
    }

    public func shares() throws -> [ShareRecord] {
        try Row.fetchAll(db, sql: "\(Self.shareSelect) ORDER BY share.id").map(ShareRecord.init(row:))
    }

    public func share(tokenHash: [UInt8]) throws -> ShareRecord? {
        try Row.fetchOne(db, sql: "\(Self.shareSelect) WHERE share.token_hash = ?", arguments: [Data(tokenHash)])
            .map(ShareRecord.init(row:))
    }

    public func removeShare(id: Int64) throws -> Bool {
        try db.execute(sql: "DELETE FROM share WHERE id = ?", arguments: [id])
        return db.changesCount > 0
    }
}

extension ShareRecord {
    init(row: Row) {
        self.init(
            id: row[0], tokenHash: [UInt8]((row[1] as Data)), feedID: row[2], feedName: row[3], view: row[4],
            layout: row[5], expiresAt: row[6], createdAt: row[7])
    }
}
