import Foundation
import NIOCore
import PostgresNIO

extension PostgresTransaction {
    // MARK: Named layouts

    public func layouts(feedID: Int64) throws -> [NamedLayoutRecord] {
        try session.rows(
            "SELECT name, configuration FROM layout WHERE feed_id = $1 ORDER BY name COLLATE \"C\"", .int(feedID)
        ).map {
            let (name, configuration) = try $0.decode((String, String).self)
            return NamedLayoutRecord(name: name, configuration: configuration)
        }
    }

    public func layout(feedID: Int64, name: String) throws -> NamedLayoutRecord? {
        try session.rows(PostgresStatement.LayoutByName.self, .int(feedID), .text(name)).first.map(
            NamedLayoutRecord.init(postgres:))
    }

    public func saveLayout(feedID: Int64, _ layout: NamedLayoutRecord) throws {
        try session.execute(
            SharedSQL.saveLayout.postgres, .int(feedID), .text(layout.name), .text(layout.configuration))
    }

    public func removeLayout(feedID: Int64, name: String) throws -> Bool {
        guard let layout = try layout(feedID: feedID, name: name) else { return false }
        try session.execute(SharedSQL.deleteLayout.postgres, .int(feedID), .text(name))
        try session.execute(
            """
            DELETE FROM layout_cache WHERE feed_id = $1 AND configuration = $2
              AND NOT EXISTS (SELECT 1 FROM layout WHERE feed_id = $1 AND configuration = $2)
            """, .int(feedID), .text(layout.configuration))
        return true
    }

    // MARK: The layout cache

    public func cacheEntry(feedID: Int64, configuration: String) throws -> LayoutCacheRecord? {
        try session.rows(PostgresStatement.CacheEntry.self, .int(feedID), .text(configuration)).first.map(
            LayoutCacheRecord.init(postgres:))
    }

    public func makeCacheEntry(feedID: Int64, configuration: String, stride: Int) throws -> LayoutCacheRecord {
        if let entry = try cacheEntry(feedID: feedID, configuration: configuration) { return entry }
        let id = try session.scalar(
            Int64.self,
            """
            INSERT INTO layout_cache (feed_id, configuration, stride) VALUES ($1, $2, $3) RETURNING id
            """, .int(feedID), .text(configuration), .int(Int64(stride)))!
        // The entries no named layout uses, beyond the most recently useful: this one, then
        // those up to date, then by the revision they were last brought to, then the newest
        // (the SQLite engine's order).
        try session.execute(
            """
            DELETE FROM layout_cache WHERE id IN (
                SELECT c.id FROM layout_cache c JOIN feed f ON f.id = c.feed_id
                WHERE c.feed_id = $1
                  AND NOT EXISTS (SELECT 1 FROM layout l WHERE l.feed_id = c.feed_id AND l.configuration = c.configuration)
                ORDER BY c.id = $2 DESC, c.end_revision IS NOT DISTINCT FROM f.revision DESC,
                         c.end_revision DESC NULLS LAST, c.id DESC
                OFFSET $3)
            """, .int(feedID), .int(id), .int(Int64(LayoutCacheRecord.maximumUnnamedEntries)))
        return LayoutCacheRecord(id: id, configuration: configuration, stride: stride, end: nil)
    }

    public func checkpoint(cacheID: Int64, atOrBelow index: Int) throws -> CheckpointRecord? {
        try session.rows(PostgresStatement.CheckpointAtOrBelow.self, .int(cacheID), .int(Int64(index))).first.map {
            row in
            let (index, key, section, state, top, bottom) = try row.decode(
                (Int64, Int64, Int64, ByteBuffer, Double, Double).self)
            return CheckpointRecord(
                index: Int(index), key: key, sectionID: section, state: Array(buffer: state), bandTop: top,
                bandBottom: bottom)
        }
    }

    public func checkpoint(cacheID: Int64, atOrBelowKey key: Int64) throws -> CheckpointRecord? {
        try session.rows(PostgresStatement.CheckpointAtOrBelowKey.self, .int(cacheID), .int(key)).first.map { row in
            let (index, key, section, state, top, bottom) = try row.decode(
                (Int64, Int64, Int64, ByteBuffer, Double, Double).self)
            return CheckpointRecord(
                index: Int(index), key: key, sectionID: section, state: Array(buffer: state), bandTop: top,
                bandBottom: bottom)
        }
    }

    public func checkpointBands(cacheID: Int64) throws -> [(index: Int, top: Double, bottom: Double)] {
        try session.rows(PostgresStatement.CheckpointBands.self, .int(cacheID)).map { row in
            let (index, top, bottom) = try row.decode((Int64, Double, Double).self)
            return (index: Int(index), top: top, bottom: bottom)
        }
    }

    public func sectionExtents(cacheID: Int64, sectionIDs: some Collection<Int64>) throws -> [Int64:
        SectionExtentRecord]
    {
        var result: [Int64: SectionExtentRecord] = [:]
        guard !sectionIDs.isEmpty else { return result }
        for row in try session.rows(PostgresStatement.SectionExtents.self, .int(cacheID), .ints(Array(sectionIDs))) {
            let (section, until, start, end) = try row.decode((Int64, Int64, Double, Double).self)
            result[section] = SectionExtentRecord(sectionID: section, untilKey: until, startY: start, endY: end)
        }
        return result
    }

    public func saveLayoutCache(
        cacheID: Int64, feedID: Int64, revision: Int64,
        checkpoints: [CheckpointRecord], sections: [SectionExtentRecord], end: LayoutEndRecord?
    ) throws -> Bool {
        let current = try session.scalar(Int64.self, SharedSQL.feedRevision.postgres, .int(feedID))
        let exists =
            try session.scalar(Bool.self, "SELECT EXISTS (SELECT 1 FROM layout_cache WHERE id = $1)", .int(cacheID))
            ?? false
        guard current == revision, exists else { return false }
        try session.execute(SharedSQL.deleteStaleCheckpoints.postgres, .int(cacheID), .int(cacheID))
        try session.execute(SharedSQL.clearStaleFrom.postgres, .int(cacheID))
        for start in stride(from: 0, to: checkpoints.count, by: Self.batch) {
            let slice = checkpoints[start..<min(checkpoints.count, start + Self.batch)]
            try session.execute(
                """
                INSERT INTO layout_checkpoint (cache_id, idx, sort_key, section_id, state, band_top, band_bottom)
                SELECT $1, i, k, s, st, t, b
                FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[], $6::float8[], $7::float8[]) AS c(i, k, s, st, t, b)
                ON CONFLICT (cache_id, idx) DO UPDATE SET sort_key = excluded.sort_key, section_id = excluded.section_id,
                    state = excluded.state, band_top = excluded.band_top, band_bottom = excluded.band_bottom
                """,
                .int(cacheID), .ints(slice.map { Int64($0.index) }), .ints(slice.map(\.key)),
                .ints(slice.map(\.sectionID)),
                .byteas(slice.map { ByteBuffer(bytes: $0.state) }), .doubles(slice.map(\.bandTop)),
                .doubles(slice.map(\.bandBottom)),
                length: .bulk)
        }
        if !sections.isEmpty {
            try session.execute(
                """
                INSERT INTO layout_section (cache_id, section_id, until_key, start_y, end_y)
                SELECT $1, s, u, a, b FROM unnest($2::bigint[], $3::bigint[], $4::float8[], $5::float8[]) AS e(s, u, a, b)
                ON CONFLICT (cache_id, section_id) DO UPDATE SET until_key = excluded.until_key,
                    start_y = excluded.start_y, end_y = excluded.end_y
                """,
                .int(cacheID), .ints(sections.map(\.sectionID)), .ints(sections.map(\.untilKey)),
                .doubles(sections.map(\.startY)), .doubles(sections.map(\.endY)))
        }
        if let end {
            try session.execute(
                SharedSQL.saveLayoutEnd.postgres, .int(end.revision), .int(Int64(end.totalItems)),
                .double(end.contentHeight), .double(end.tailTop),
                .double(end.tailBottom), .int(cacheID))
        }
        return true
    }

    /// Marks the checkpoints from `key` on stale, as on SQLite.
    public func invalidateLayouts(feedID: Int64, fromKey key: Int64) throws {
        try session.execute(SharedSQL.markCheckpointsStale.postgres, .int(key), .int(feedID))
        try session.execute(SharedSQL.invalidateSectionExtents.postgres, .int(feedID), .int(key))
    }

    public func cacheCoverage() throws -> [LayoutCacheCoverage] {
        try session.rows(
            """
            SELECT feed.name, layout_cache.configuration, layout_cache.stride,
                   (SELECT count(*) FROM layout_checkpoint WHERE cache_id = layout_cache.id
                     AND (layout_cache.stale_from IS NULL OR idx < layout_cache.stale_from)),
                   layout_cache.end_revision IS NOT DISTINCT FROM feed.revision,
                   feed.image_count,
                   (SELECT array_agg(name ORDER BY name COLLATE "C") FROM layout
                     WHERE layout.feed_id = feed.id AND layout.configuration = layout_cache.configuration)
            FROM layout_cache JOIN feed ON feed.id = layout_cache.feed_id WHERE feed.view_of IS NULL
            ORDER BY feed.name COLLATE "C", layout_cache.id
            """
        ).map { row in
            let (feed, configuration, stride, checkpoints, complete, images, names) =
                try row.decode((String, String, Int32, Int64, Bool, Int64, [String]?).self)
            return LayoutCacheCoverage(
                feed: feed, configuration: configuration, names: names ?? [], stride: Int(stride),
                checkpoints: Int(checkpoints), isComplete: complete, feedImages: Int(images))
        }
    }
}

extension LayoutCacheRecord {
    init(postgres row: PostgresRow) throws {
        let (id, configuration, stride, endRevision, total, height, top, bottom) =
            try row.decode((Int64, String, Int32, Int64?, Int64?, Double?, Double?, Double?).self)
        self.init(
            id: id, configuration: configuration, stride: Int(stride),
            end: endRevision.map {
                LayoutEndRecord(
                    revision: $0, totalItems: Int(total ?? 0), contentHeight: height ?? 0, tailTop: top ?? 0,
                    tailBottom: bottom ?? 0)
            })
    }
}

extension NamedLayoutRecord {
    /// A row of ``PostgresStatement/LayoutByName``.
    init(postgres row: PostgresRow) throws {
        let (name, configuration) = try row.decode((String, String).self)
        self.init(name: name, configuration: configuration)
    }
}
