import Foundation
import GRDB

extension SQLiteTransaction {
    // MARK: Named layouts

    /// The named layouts of a feed, by name.
    public func layouts(feedID: Int64) throws -> [NamedLayoutRecord] {
        try Row.fetchAll(
            db, sql: "SELECT name, configuration FROM layout WHERE feed_id = ? ORDER BY name", arguments: [feedID]
        )
        .map { NamedLayoutRecord(name: $0[0], configuration: $0[1]) }
    }

    /// The named layout `name` of a feed, or `nil`.
    public func layout(feedID: Int64, name: String) throws -> NamedLayoutRecord? {
        let statement = try RawStatement(cached: db, SharedSQL.layoutByName.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, name)
        return try statement.first { NamedLayoutRecord(name: $0.string(0) ?? "", configuration: $0.string(1) ?? "") }
    }

    /// Saves a named layout, replacing one of the same name.
    public func saveLayout(feedID: Int64, _ layout: NamedLayoutRecord) throws {
        try db.execute(sql: SharedSQL.saveLayout.sqlite, arguments: [feedID, layout.name, layout.configuration])
    }

    /// Removes a named layout, and its cache entry when no other name uses the configuration.
    /// Returns `false` when there was no such layout.
    public func removeLayout(feedID: Int64, name: String) throws -> Bool {
        guard let layout = try layout(feedID: feedID, name: name) else { return false }
        try db.execute(sql: SharedSQL.deleteLayout.sqlite, arguments: [feedID, name])
        try db.execute(
            sql: """
                DELETE FROM layout_cache WHERE feed_id = ? AND configuration = ?
                  AND NOT EXISTS (SELECT 1 FROM layout WHERE feed_id = ? AND configuration = ?)
                """, arguments: [feedID, layout.configuration, feedID, layout.configuration])
        return true
    }

    // MARK: The layout cache

    /// The cache entry of a (feed, configuration), or `nil` when none was made yet.
    public func cacheEntry(feedID: Int64, configuration: String) throws -> LayoutCacheRecord? {
        let statement = try RawStatement(
            cached: db,
            """
            SELECT id, configuration, stride, end_revision, total_items, content_height, tail_top, tail_bottom
            FROM layout_cache WHERE feed_id = ? AND configuration = ?
            """)
        statement.bind(1, feedID)
        statement.bind(2, configuration)
        return try statement.first(LayoutCacheRecord.init(statement:))
    }

    /// Creates the cache entry of a (feed, configuration), or returns the existing one.
    public func makeCacheEntry(feedID: Int64, configuration: String, stride: Int) throws -> LayoutCacheRecord {
        if let entry = try cacheEntry(feedID: feedID, configuration: configuration) { return entry }
        try db.execute(
            sql: "INSERT INTO layout_cache (feed_id, configuration, stride) VALUES (?, ?, ?)",
            arguments: [feedID, configuration, stride])
        let id = db.lastInsertedRowID
        try evictUnnamedCacheEntries(feedID: feedID, keeping: id)
        return LayoutCacheRecord(id: id, configuration: configuration, stride: stride, end: nil)
    }

    /// Deletes a feed's cache entries that no named layout uses, beyond the
    /// ``LayoutCacheRecord/maximumUnnamedEntries`` most recently useful: `keeping` (just made), then those up
    /// to date, then by the revision they were last brought to, then the newest. Every inline
    /// configuration gets an entry (a gallery's "fit the window" makes one per window width),
    /// and every write invalidates every entry of its feed, so without a bound both the file
    /// and the cost of a move would grow with each configuration ever asked for.
    func evictUnnamedCacheEntries(feedID: Int64, keeping id: Int64) throws {
        try db.execute(
            sql: """
                DELETE FROM layout_cache WHERE id IN (
                    SELECT c.id FROM layout_cache c JOIN feed f ON f.id = c.feed_id
                    WHERE c.feed_id = ?
                      AND NOT EXISTS (SELECT 1 FROM layout l WHERE l.feed_id = c.feed_id AND l.configuration = c.configuration)
                    ORDER BY c.id = ? DESC, c.end_revision IS f.revision DESC, c.end_revision DESC, c.id DESC
                    LIMIT -1 OFFSET ?)
                """, arguments: [feedID, id, LayoutCacheRecord.maximumUnnamedEntries])
    }

    /// The checkpoint with the greatest index not above `index`, or `nil`.
    public func checkpoint(cacheID: Int64, atOrBelow index: Int) throws -> CheckpointRecord? {
        let statement = try RawStatement(cached: db, SharedSQL.checkpointAtOrBelow.sqlite)
        statement.bind(1, cacheID)
        statement.bind(2, Int64(index))
        return try statement.first(CheckpointRecord.init(statement:))
    }

    public func checkpoint(cacheID: Int64, atOrBelowKey key: Int64) throws -> CheckpointRecord? {
        let statement = try RawStatement(cached: db, SharedSQL.checkpointAtOrBelowKey.sqlite)
        statement.bind(1, cacheID)
        statement.bind(2, key)
        return try statement.first(CheckpointRecord.init(statement:))
    }

    /// Every checkpoint's index and band, in index order (small: one row per stride images).
    public func checkpointBands(cacheID: Int64) throws -> [(index: Int, top: Double, bottom: Double)] {
        let statement = try RawStatement(cached: db, SharedSQL.checkpointBands.sqlite)
        statement.bind(1, cacheID)
        return try statement.all { (index: Int($0.int64(0)), top: $0.double(1), bottom: $0.double(2)) }
    }

    /// The start and end of the given sections in a cached layout.
    public func sectionExtents(cacheID: Int64, sectionIDs: some Collection<Int64>) throws -> [Int64:
        SectionExtentRecord]
    {
        var result: [Int64: SectionExtentRecord] = [:]
        let statement = try RawStatement(
            cached: db,
            """
            SELECT section_id, until_key, start_y, end_y FROM layout_section WHERE cache_id = ? AND section_id = ?
            """)
        statement.bind(1, cacheID)
        for id in sectionIDs {
            statement.bind(2, id)
            result[id] = try statement.first {
                SectionExtentRecord(
                    sectionID: $0.int64(0), untilKey: $0.int64(1), startY: $0.double(2), endY: $0.double(3))
            }
        }
        return result
    }

    /// Stores checkpoints, section extents and the end of a layout computed at `revision`,
    /// unless the feed has moved past `revision` meanwhile (then nothing is stored: the
    /// computation read an older catalog). Returns whether it stored.
    public func saveLayoutCache(
        cacheID: Int64, feedID: Int64, revision: Int64,
        checkpoints: [CheckpointRecord], sections: [SectionExtentRecord], end: LayoutEndRecord?
    ) throws -> Bool {
        let current = try Int64.fetchOne(db, sql: SharedSQL.feedRevision.sqlite, arguments: [feedID])
        let exists =
            try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM layout_cache WHERE id = ?", arguments: [cacheID])
            ?? false
        guard current == revision, exists else { return false }
        // The checkpoints a change marked stale go first: what is left is valid at `revision`.
        try db.execute(sql: SharedSQL.deleteStaleCheckpoints.sqlite, arguments: [cacheID, cacheID])
        try db.execute(sql: SharedSQL.clearStaleFrom.sqlite, arguments: [cacheID])
        let saveCheckpoint = try RawStatement(
            db,
            """
            INSERT OR REPLACE INTO layout_checkpoint (cache_id, idx, sort_key, section_id, state, band_top, band_bottom)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """)
        for checkpoint in checkpoints {
            saveCheckpoint.bind(1, cacheID)
            saveCheckpoint.bind(2, Int64(checkpoint.index))
            saveCheckpoint.bind(3, checkpoint.key)
            saveCheckpoint.bind(4, checkpoint.sectionID)
            saveCheckpoint.bind(5, checkpoint.state)
            saveCheckpoint.bind(6, checkpoint.bandTop)
            saveCheckpoint.bind(7, checkpoint.bandBottom)
            try saveCheckpoint.run()
        }
        let saveSection = try RawStatement(
            db,
            """
            INSERT OR REPLACE INTO layout_section (cache_id, section_id, until_key, start_y, end_y) VALUES (?, ?, ?, ?, ?)
            """)
        for section in sections {
            saveSection.bind(1, cacheID)
            saveSection.bind(2, section.sectionID)
            saveSection.bind(3, section.untilKey)
            saveSection.bind(4, section.startY)
            saveSection.bind(5, section.endY)
            try saveSection.run()
        }
        if let end {
            try db.execute(
                sql: SharedSQL.saveLayoutEnd.sqlite,
                arguments: [end.revision, end.totalItems, end.contentHeight, end.tailTop, end.tailBottom, cacheID])
        }
        return true
    }

    /// Invalidates, in every cached layout of a feed, what depends on images at order key `key`
    /// or later: the checkpoints from `key` on, marked stale (``SharedSQL/markCheckpointsStale``:
    /// one row a cache, where deleting them rewrote dozens of pages), and the extents of
    /// sections ending after it. The ends are invalidated by the revision bump of the same
    /// transaction.
    ///
    /// A cache's checkpoints are taken in catalog order, so their keys grow with their index:
    /// the checkpoints from the first one at `key` or later to the end are invalid (were a key
    /// ever out of order, more would be, never less: safe).
    public func invalidateLayouts(feedID: Int64, fromKey key: Int64) throws {
        try db.execute(sql: SharedSQL.markCheckpointsStale.sqlite, arguments: [key, feedID])
        try db.execute(sql: SharedSQL.invalidateSectionExtents.sqlite, arguments: [feedID, key])
    }

    /// How much of every cached layout is valid.
    public func cacheCoverage() throws -> [LayoutCacheCoverage] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT feed.name, layout_cache.configuration, layout_cache.stride,
                       (SELECT COUNT(*) FROM layout_checkpoint WHERE cache_id = layout_cache.id
                         AND (layout_cache.stale_from IS NULL OR idx < layout_cache.stale_from)),
                       layout_cache.end_revision IS feed.revision,
                       feed.image_count,
                       (SELECT group_concat(name, char(31)) FROM layout
                         WHERE layout.feed_id = feed.id AND layout.configuration = layout_cache.configuration)
                FROM layout_cache JOIN feed ON feed.id = layout_cache.feed_id WHERE feed.view_of IS NULL
                ORDER BY feed.name, layout_cache.id
                """
        ).map { row in
            LayoutCacheCoverage(
                feed: row[0], configuration: row[1],
                names: (row[6] as String?).map { $0.split(separator: "\u{1F}").map(String.init) } ?? [],
                stride: row[2], checkpoints: row[3], isComplete: row[4], feedImages: row[5])
        }
    }
}

extension LayoutCacheRecord {
    init(statement: RawStatement) {
        self.init(
            id: statement.int64(0), configuration: statement.string(1) ?? "", stride: Int(statement.int64(2)),
            end: statement.isNull(3)
                ? nil
                : LayoutEndRecord(
                    revision: statement.int64(3), totalItems: Int(statement.int64(4)),
                    contentHeight: statement.double(5),
                    tailTop: statement.double(6), tailBottom: statement.double(7)))
    }
}

extension CheckpointRecord {
    init(statement: RawStatement) {
        self.init(
            index: Int(statement.int64(0)), key: statement.int64(1), sectionID: statement.int64(2),
            state: statement.bytes(3),
            bandTop: statement.double(4), bandBottom: statement.double(5))
    }
}
