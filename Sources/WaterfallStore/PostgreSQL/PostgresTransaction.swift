import Foundation
import NIOCore
import PostgresNIO

/// ``CatalogTransaction`` on PostgreSQL: the catalog inside one transaction of a
/// ``PostgresCatalog``, the only place where PostgreSQL's SQL is written (with
/// `Migrations/postgres/`). Its answers are the SQLite engine's, row for row.
public struct PostgresTransaction: CatalogTransaction {
    let session: PostgresSession
    /// The catalog's URL without its password, for messages.
    let location: String

    // MARK: Feeds

    public func feed(named name: String) throws -> FeedRecord? {
        try session.rows(PostgresStatement.FeedByName.self, .text(name)).first.map(FeedRecord.init(postgres:))
    }

    public func feeds() throws -> [FeedRecord] {
        try session.rows(
            "SELECT \(SharedSQL.feedColumns) FROM feed WHERE view_of IS NULL ORDER BY name COLLATE \"C\""
        ).map(FeedRecord.init(postgres:))
    }

    public func feed(id: Int64) throws -> FeedRecord? {
        try session.rows(PostgresStatement.FeedByID.self, .int(id)).first.map(FeedRecord.init(postgres:))
    }

    public func feedIDs() throws -> Set<Int64> {
        Set(try session.rows("SELECT id FROM feed").map { try $0.decode(Int64.self) })
    }

    public func setRevision(feedID: Int64, to revision: Int64) throws {
        try session.execute(SharedSQL.setRevision.postgres, .int(revision), .int(feedID))
    }

    public func feedSummaries() throws -> [FeedSummary] {
        try session.rows("\(Self.feedSummarySelect) ORDER BY name COLLATE \"C\"").map(Self.feedSummary)
    }

    public func feedSummary(named name: String) throws -> FeedSummary? {
        try session.rows("\(Self.feedSummarySelect) AND name = $1", .text(name)).first.map(Self.feedSummary)
    }

    private static let feedSummarySelect = """
        SELECT id, name, revision, image_count,
               (SELECT count(*) FROM section WHERE feed_id = feed.id),
               (SELECT count(*) FROM layout WHERE feed_id = feed.id)
        FROM feed WHERE view_of IS NULL
        """

    private static func feedSummary(_ row: PostgresRow) throws -> FeedSummary {
        let (id, name, revision, images, sections, layouts) = try row.decode(
            (Int64, String, Int64, Int64, Int64, Int64).self)
        return FeedSummary(
            id: id, name: name, revision: revision, images: Int(images), sections: Int(sections), layouts: Int(layouts))
    }

    public func feedVersions() throws -> [String: FeedVersion] {
        var versions: [String: FeedVersion] = [:]
        for row in try session.rows(PostgresStatement.FeedVersions.self) {
            let (name, id, revision) = try row.decode((String, Int64, Int64).self)
            versions[name] = FeedVersion(incarnation: id, revision: revision)
        }
        return versions
    }

    /// Its images, sections, change log and layouts go with it: bulk work (``StatementLength``).
    public func deleteFeed(id: Int64) throws {
        try session.execute(SharedSQL.deleteFeed.postgres, .int(id), length: .bulk)
    }

    public func createFeed(named name: String, viewOf base: Int64?) throws -> FeedRecord {
        let id = try session.scalar(
            Int64.self, "INSERT INTO feed (name, view_of) VALUES ($1, $2) RETURNING id", .text(name),
            .optionalInt(base))!
        return FeedRecord(id: id, name: name, revision: 0, imageCount: 0)
    }

    public func adjustImageCount(feedID: Int64, by delta: Int) throws {
        try session.execute(SharedSQL.adjustImageCount.postgres, .int(Int64(delta)), .int(feedID))
    }

    public func bumpRevision(feedID: Int64) throws -> Int64 {
        let revision = try session.scalar(
            Int64.self, "UPDATE feed SET revision = revision + 1 WHERE id = $1 RETURNING revision", .int(feedID))!
        try session.execute(
            """
            INSERT INTO revision_time (feed_id, revision, committed_at) VALUES ($1, $2, extract(epoch FROM now())::bigint)
            ON CONFLICT (feed_id, revision) DO UPDATE SET committed_at = excluded.committed_at
            """, .int(feedID), .int(revision))
        return revision
    }

    public func setSectioning(feedID: Int64, sectionBy: String?, timeZone: String?) throws {
        try session.execute(SharedSQL.setSectioning.postgres, .text(sectionBy), .text(timeZone), .int(feedID))
    }

    // MARK: The change log

    /// Rows per statement of a batched insert: arrays of this many values per column.
    static let batch = 10_000

    public func appendChanges(
        feedID: Int64, revision: Int64, _ changes: [(kind: ChangeKind, externalID: String, section: String?)]
    ) throws {
        guard !changes.isEmpty else { return }
        var seq =
            try session.scalar(Int64.self, SharedSQL.nextChangeSequence.postgres, .int(feedID), .int(revision)) ?? 0
        for start in stride(from: 0, to: changes.count, by: Self.batch) {
            let slice = changes[start..<min(changes.count, start + Self.batch)]
            try session.execute(
                """
                INSERT INTO change (feed_id, revision, seq, kind, external_id, section)
                SELECT $1, $2, $3 + ordinality - 1, kind, external_id, CASE WHEN unnamed THEN NULL ELSE section END
                FROM unnest($4::text[], $5::text[], $6::text[], $7::bool[]) WITH ORDINALITY AS c(kind, external_id, section, unnamed)
                """,
                .int(feedID), .int(revision), .int(seq),
                .texts(slice.map(\.kind.rawValue)), .texts(slice.map(\.externalID)),
                .texts(slice.map { $0.section ?? "" }), .bools(slice.map { $0.section == nil }), length: .bulk)
            seq += Int64(slice.count)
        }
    }

    public func appendInsertChangesForWholeFeed(feedID: Int64, revision: Int64) throws {
        try session.execute(
            """
            INSERT INTO change (feed_id, revision, seq, kind, external_id, section)
            SELECT image.feed_id, $1, image.sort_key, 'insert', image.external_id, section.name
            FROM image JOIN section ON section.id = image.section_id
            WHERE image.feed_id = $2
            """, .int(revision), .int(feedID), length: .bulk)
    }

    public func changes(feedID: Int64, since revision: Int64, limit: Int) throws -> [ChangeRecord] {
        try session.rows(PostgresStatement.ChangesSince.self, .int(feedID), .int(revision), .int(Int64(limit))).map(
            ChangeRecord.init(postgres:))
    }

    public func changes(feedID: Int64, since revision: Int64, through last: Int64) throws -> [ChangeRecord] {
        try session.rows(SharedSQL.changesBetween.postgres, .int(feedID), .int(revision), .int(last)).map(
            ChangeRecord.init(postgres:))
    }

    public func changeCounts(feedID: Int64, revision: Int64) throws -> [ChangeKind: Int] {
        var counts: [ChangeKind: Int] = [:]
        for row in try session.rows(SharedSQL.changeCounts.postgres, .int(feedID), .int(revision)) {
            let (kind, count) = try row.decode((String, Int64).self)
            if let kind = ChangeKind(rawValue: kind) { counts[kind] = Int(count) }
        }
        return counts
    }

    public func changesFrom(feedID: Int64) throws -> Int64 {
        try session.scalar(Int64.self, SharedSQL.changesFrom.postgres, .int(feedID)) ?? 0
    }

    public func lastRevision(feedID: Int64, committedBefore time: Int64) throws -> Int64? {
        try session.scalar(Int64?.self, SharedSQL.lastRevisionBefore.postgres, .int(feedID), .int(time)) ?? nil
    }

    public func pruneChanges(feedID: Int64, through revision: Int64, limit: Int) throws -> Int {
        _ = try session.execute(SharedSQL.raiseChangesFrom.postgres, .int(revision), .int(feedID), .int(revision))
        let deleted = try session.execute(
            SharedSQL.pruneChanges.postgres, .int(feedID), .int(feedID), .int(revision), .int(Int64(limit)),
            length: .bulk)
        _ = try session.execute(SharedSQL.pruneRevisionTimes.postgres, .int(feedID), .int(revision))
        return deleted
    }

    // MARK: Sections

    public func sections(feedID: Int64) throws -> [SectionRecord] {
        try session.rows(PostgresStatement.SectionsOfFeed.self, .int(feedID))
            .map(SectionRecord.init(postgres:))
    }

    public func sectionIDs(feedID: Int64) throws -> [Int64] {
        try session.rows(PostgresStatement.SectionIDsOfFeed.self, .int(feedID))
            .map { try $0.decode(Int64.self) }
    }

    public func sections(ids: [Int64]) throws -> [SectionRecord] {
        guard !ids.isEmpty else { return [] }
        return try session.rows(PostgresStatement.SectionsByID.self, .ints(ids))
            .map(SectionRecord.init(postgres:))
    }

    public func section(id: Int64) throws -> SectionRecord? {
        try sections(ids: [id]).first
    }

    public func insertSection(feedID: Int64, name: String?, title: String?, position: Int64, isDeclared: Bool) throws
        -> Int64
    {
        try session.scalar(
            Int64.self,
            """
            INSERT INTO section (feed_id, name, title, position, declared) VALUES ($1, $2, $3, $4, $5) RETURNING id
            """, .int(feedID), .text(name), .text(title), .int(position), .bool(isDeclared))!
    }

    public func updateSection(_ section: SectionRecord) throws {
        try session.execute(
            SharedSQL.updateSection.postgres,
            .text(section.title), .int(section.position), .bool(section.isDeclared), .int(section.id))
    }

    /// Positions are unique per feed, so the rows first move to negative positions, then to
    /// their final ones (one statement each).
    public func repositionSections(_ positions: [(id: Int64, position: Int64)]) throws {
        guard !positions.isEmpty else { return }
        try session.execute(
            "UPDATE section SET position = -1 - id WHERE id = ANY($1::bigint[])", .ints(positions.map(\.id)))
        try session.execute(
            """
            UPDATE section SET position = p.position
            FROM unnest($1::bigint[], $2::bigint[]) AS p(id, position) WHERE section.id = p.id
            """, .ints(positions.map(\.id)), .ints(positions.map(\.position)))
    }

    public func deleteSection(id: Int64) throws {
        try session.execute(SharedSQL.deleteSection.postgres, .int(id))
    }

    @discardableResult
    public func deleteEmptyUndeclaredSections(feedID: Int64) throws -> [Int64] {
        try session.rows(
            """
            DELETE FROM section WHERE feed_id = $1 AND NOT declared
              AND NOT EXISTS (SELECT 1 FROM image WHERE image.section_id = section.id)
            RETURNING id
            """, .int(feedID)
        ).map { try $0.decode(Int64.self) }
    }

    public func imageCounts(feedID: Int64) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for row in try session.rows(
            "SELECT section_id, count(*) FROM image WHERE feed_id = $1 GROUP BY section_id", .int(feedID))
        {
            let (section, count) = try row.decode((Int64, Int64).self)
            counts[section] = Int(count)
        }
        return counts
    }

    public func imageCount(sectionID: Int64) throws -> Int {
        Int(try session.scalar(Int64.self, "SELECT count(*) FROM image WHERE section_id = $1", .int(sectionID)) ?? 0)
    }

    public func takenAtRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>] {
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        guard !sectionIDs.isEmpty else { return ranges }
        // One round trip: each section's two seeks of the partial index, as subqueries.
        for row in try session.rows(PostgresStatement.TakenAtRanges.self, .ints(sectionIDs)) {
            let (id, earliest, latest) = try row.decode((Int64, Int64?, Int64?).self)
            if let earliest, let latest { ranges[id] = earliest...latest }
        }
        return ranges
    }

    public func keyRanges(sectionIDs: [Int64]) throws -> [Int64: ClosedRange<Int64>] {
        var ranges: [Int64: ClosedRange<Int64>] = [:]
        guard !sectionIDs.isEmpty else { return ranges }
        // One round trip: each section's two seeks of `image_section`, as subqueries.
        let rows = try session.rows(
            """
            SELECT s.id,
                   (SELECT sort_key FROM image WHERE section_id = s.id ORDER BY sort_key LIMIT 1),
                   (SELECT sort_key FROM image WHERE section_id = s.id ORDER BY sort_key DESC LIMIT 1)
            FROM unnest($1::bigint[]) AS s(id)
            """, .ints(sectionIDs))
        for row in rows {
            let (id, first, last) = try row.decode((Int64, Int64?, Int64?).self)
            if let first, let last { ranges[id] = first...last }
        }
        return ranges
    }

    public func firstKey(sectionIDs: [Int64], takenAtOrBefore moment: Int64) throws -> Int64? {
        guard !sectionIDs.isEmpty,
            let section = try session.scalar(
                Int64.self, PostgresStatement.FirstSectionTakenAtOrBefore.self, .ints(sectionIDs), .int(moment))
        else { return nil }
        return try session.scalar(
            Int64.self, PostgresStatement.FirstKeyTakenAtOrBefore.self, .int(section), .int(moment))
    }

    /// PostgreSQL's memory is the server's: nothing to change in this process.
    public func withBulkWriteMemory<T>(pageCacheKiB: Int, _ body: () throws -> T) throws -> T {
        try body()
    }
}

extension FeedRecord {
    init(postgres row: PostgresRow) throws {
        let (id, name, revision, count, sectionBy, timeZone) = try row.decode(
            (Int64, String, Int64, Int64, String?, String?).self)
        self.init(
            id: id, name: name, revision: revision, imageCount: Int(count), sectionBy: sectionBy, timeZone: timeZone)
    }
}

extension ChangeRecord {
    init(postgres row: PostgresRow) throws {
        let (revision, kind, id, section) = try row.decode((Int64, String, String, String?).self)
        self.init(revision: revision, kind: ChangeKind(rawValue: kind)!, externalID: id, section: section)
    }
}

extension SectionRecord {
    init(postgres row: PostgresRow) throws {
        let (id, name, title, position, declared) = try row.decode((Int64, String?, String?, Int64, Bool).self)
        self.init(id: id, name: name, title: title, position: position, isDeclared: declared)
    }
}

// MARK: Views

extension PostgresTransaction {
    public func views(feedID: Int64) throws -> [ViewRecord] {
        try session.rows(
            "SELECT \(SharedSQL.viewColumns) FROM view WHERE feed_id = $1 ORDER BY name COLLATE \"C\"", .int(feedID)
        ).map(ViewRecord.init(postgres:))
    }

    public func view(feedID: Int64, name: String) throws -> ViewRecord? {
        try session.rows(PostgresStatement.ViewByName.self, .int(feedID), .text(name)).first.map(
            ViewRecord.init(postgres:))
    }

    public func saveView(_ view: ViewRecord) throws {
        try session.execute(
            SharedSQL.saveView.postgres, .int(view.feedID), .text(view.name), .text(view.rule), .int(view.membershipID),
            .text(view.resolved))
    }

    public func removeView(feedID: Int64, name: String) throws -> Bool {
        try session.execute(SharedSQL.removeView.postgres, .int(feedID), .text(name), length: .bulk) > 0
    }
}

extension ViewRecord {
    init(postgres row: PostgresRow) throws {
        let (feedID, name, rule, membershipID, resolved) = try row.decode((Int64, String, String, Int64, String).self)
        self.init(feedID: feedID, name: name, rule: rule, membershipID: membershipID, resolved: resolved)
    }
}

// MARK: Shares

extension PostgresTransaction {
    private static let shareSelect = """
        SELECT share.id, share.token_hash, share.feed_id, feed.name, share.view, share.layout, share.expires_at,
               share.created_at
        FROM share JOIN feed ON feed.id = share.feed_id
        """

    public func insertShare(_ share: ShareRecord) throws -> Int64 {
        try session.scalar(
            Int64.self,
            """
            INSERT INTO share (token_hash, feed_id, view, layout, expires_at, created_at)
            VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
            """,
            .bytes(share.tokenHash), .int(share.feedID), .text(share.view), .text(share.layout),
            .optionalInt(share.expiresAt), .int(share.createdAt))!
    }

    public func shares() throws -> [ShareRecord] {
        try session.rows("\(Self.shareSelect) ORDER BY share.id").map(ShareRecord.init(postgres:))
    }

    public func share(tokenHash: [UInt8]) throws -> ShareRecord? {
        try session.rows("\(Self.shareSelect) WHERE share.token_hash = $1", .bytes(tokenHash)).first.map(
            ShareRecord.init(postgres:))
    }

    public func removeShare(id: Int64) throws -> Bool {
        try session.execute("DELETE FROM share WHERE id = $1", .int(id)) > 0
    }
}

extension ShareRecord {
    init(postgres row: PostgresRow) throws {
        let (id, hash, feedID, feedName, view, layout, expiresAt, createdAt) = try row.decode(
            (Int64, ByteBuffer, Int64, String, String?, String?, Int64?, Int64).self)
        self.init(
            id: id, tokenHash: Array(buffer: hash), feedID: feedID, feedName: feedName, view: view, layout: layout,
            expiresAt: expiresAt, createdAt: createdAt)
    }
}
