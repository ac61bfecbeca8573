import CSQLiteSwitches
import Foundation
import GRDB

extension SQLiteTransaction {
    private static let imageColumns = SharedSQL.imageColumns

    /// The image of a feed with id `externalID`, or `nil`.
    /// Prepared once per connection: order lists and reorder files look up one id per entry.
    public func image(feedID: Int64, externalID: String) throws -> ImageRecord? {
        let statement = try db.cachedStatement(sql: SharedSQL.imageByID.sqlite)
        return try Row.fetchOne(statement, arguments: [feedID, externalID]).map(ImageRecord.init(row:))
    }

    /// The image of a feed at order key `key`, or `nil`.
    public func image(feedID: Int64, key: Int64) throws -> ImageRecord? {
        try Row.fetchOne(db, sql: SharedSQL.imageByKey.sqlite, arguments: [feedID, key]).map(ImageRecord.init(row:))
    }

    /// Every image of a feed, in catalog order. O(n): for imports, which compare whole feeds.
    public func allImages(feedID: Int64) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        let statement = try RawStatement(
            db, "SELECT \(Self.imageColumns) FROM image WHERE feed_id = ? ORDER BY sort_key")
        statement.bind(1, feedID)
        while try statement.step() {
            result.append(ImageRecord(statement: statement))
        }
        return result
    }

    /// Up to `limit` images from order key `key` on (inclusive), in catalog order.
    public func images(feedID: Int64, fromKey key: Int64, limit: Int) throws -> [ImageRecord] {
        let statement = try RawStatement(cached: db, SharedSQL.imagesFromKey.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, key)
        statement.bind(3, Int64(limit))
        return try Self.imageRows(statement, limit: limit)
    }

    /// ``images(feedID:fromKey:limit:)`` only while the feed is at `revision`: none when it is
    /// not (``CatalogStore/images(feedID:fromKey:limit:atRevision:)``).
    func images(feedID: Int64, fromKey key: Int64, limit: Int, atRevision revision: Int64) throws -> [ImageRecord] {
        let statement = try RawStatement(cached: db, SharedSQL.imagesFromKeyAtRevision.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, revision)
        statement.bind(3, key)
        statement.bind(4, Int64(limit))
        return try Self.imageRows(statement, limit: limit)
    }

    /// The image rows (``SharedSQL/imageColumns``) `statement` steps through, at most `limit`.
    private static func imageRows(_ statement: RawStatement, limit: Int) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        result.reserveCapacity(min(limit, 4096))
        while try statement.step() {
            result.append(ImageRecord(statement: statement))
        }
        return result
    }

    /// Up to `limit` images from catalog index `offset`, in catalog order. O(offset + limit).
    public func images(feedID: Int64, offset: Int, limit: Int) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        let statement = try RawStatement(cached: db, SharedSQL.imagesFromOffset.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, Int64(limit))
        statement.bind(3, Int64(offset))
        while try statement.step() {
            result.append(ImageRecord(statement: statement))
        }
        return result
    }

    public func imageCount(feedID: Int64, tagged tag: String) throws -> Int {
        let statement = try RawStatement(cached: db, SharedSQL.taggedImageCount.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, SharedSQL.tagNeedle(tag))
        return try statement.step() ? Int(statement.int64(0)) : 0
    }

    public func images(feedID: Int64, tagged tag: String, fromKey key: Int64, limit: Int) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        let statement = try RawStatement(cached: db, SharedSQL.taggedImagesFromKey.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, key)
        statement.bind(3, SharedSQL.tagNeedle(tag))
        statement.bind(4, Int64(limit))
        while try statement.step() {
            result.append(ImageRecord(statement: statement))
        }
        return result
    }

    public func images(feedID: Int64, tagged tag: String, offset: Int, limit: Int) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        let statement = try RawStatement(cached: db, SharedSQL.taggedImagesFromOffset.sqlite)
        statement.bind(1, feedID)
        statement.bind(2, SharedSQL.tagNeedle(tag))
        statement.bind(3, Int64(limit))
        statement.bind(4, Int64(offset))
        while try statement.step() {
            result.append(ImageRecord(statement: statement))
        }
        return result
    }

    /// Calls `body` with the geometry of every image from order key `key` on, in catalog order,
    /// until `body` returns `false`. One sequential range scan of the clustered image table.
    public func scanGeometry(feedID: Int64, fromKey key: Int64, _ body: (ImageGeometry) throws -> Bool) throws {
        let statement = try RawStatement(
            db,
            """
            SELECT sort_key, section_id, width, height, full_span FROM image
            WHERE feed_id = ? AND sort_key >= ? ORDER BY sort_key
            """)
        statement.bind(1, feedID)
        statement.bind(2, key)
        while try statement.step() {
            let geometry = ImageGeometry(
                key: statement.int64(0), sectionID: statement.int64(1),
                width: Int32(truncatingIfNeeded: statement.int64(2)),
                height: Int32(truncatingIfNeeded: statement.int64(3)),
                isFullSpan: statement.int64(4) != 0)
            if try !body(geometry) {
                statement.reset()
                return
            }
        }
    }

    public func scanIdentifiedGeometry(feedID: Int64, _ body: (ImageGeometry, String) throws -> Void) throws {
        let statement = try RawStatement(
            db,
            """
            SELECT sort_key, section_id, width, height, full_span, external_id FROM image
            WHERE feed_id = ? ORDER BY sort_key
            """)
        statement.bind(1, feedID)
        while try statement.step() {
            let geometry = ImageGeometry(
                key: statement.int64(0), sectionID: statement.int64(1),
                width: Int32(truncatingIfNeeded: statement.int64(2)),
                height: Int32(truncatingIfNeeded: statement.int64(3)),
                isFullSpan: statement.int64(4) != 0)
            try body(geometry, statement.string(5) ?? "")
        }
    }

    /// One indexed look-up an id: SQLite reads a local file, with no round trip to save.
    public func images(feedID: Int64, externalIDs: [String]) throws -> [ImageRecord] {
        try externalIDs.compactMap { try image(feedID: feedID, externalID: $0) }
    }

    /// One look-up of the clustered table a key.
    public func images(feedID: Int64, keys: [Int64]) throws -> [ImageRecord] {
        let statement = try RawStatement(cached: db, SharedSQL.imageByKey.sqlite)
        var result: [ImageRecord] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            statement.bind(1, feedID)
            statement.bind(2, key)
            if let image = try statement.first(ImageRecord.init(statement:)) { result.append(image) }
        }
        return result
    }

    /// A section's dated images are read from the partial index `image_section_taken_at` alone:
    /// an index of a table without rowid carries the table's key, so no row of the table is
    /// read (reading a million rows of the table was most of an append's time). Only a section
    /// whose count says it holds undated images too is read through the table.
    public func keysAndDates(sectionIDs: [Int64]) throws -> [Int64: [KeyAndDate]] {
        let dated = try RawStatement(
            cached: db,
            """
            SELECT sort_key, taken_at FROM image INDEXED BY image_section_taken_at
            WHERE section_id = ? AND taken_at IS NOT NULL ORDER BY taken_at DESC
            """)
        let count = try RawStatement(cached: db, "SELECT count(*) FROM image WHERE section_id = ?")
        let every = try RawStatement(
            cached: db, "SELECT sort_key, taken_at FROM image WHERE section_id = ? ORDER BY sort_key")
        var result: [Int64: [KeyAndDate]] = [:]
        for id in sectionIDs {
            dated.bind(1, id)
            // Newest first is usually catalog order already, which the sort then only checks.
            var rows = try dated.all { KeyAndDate(key: $0.int64(0), takenAt: $0.int64(1)) }
            rows.sort { $0.key < $1.key }
            count.bind(1, id)
            if try count.first({ Int($0.int64(0)) }) != rows.count {
                every.bind(1, id)
                rows = try every.all { KeyAndDate(key: $0.int64(0), takenAt: $0.isNull(1) ? nil : $0.int64(1)) }
            }
            if !rows.isEmpty { result[id] = rows }
        }
        return result
    }

    public func neighbourKeys(feedID: Int64, of keys: [Int64]) throws -> [Int64: NeighbourKeys] {
        try keys.reduce(into: [:]) { result, key in
            result[key] = NeighbourKeys(
                before: try self.key(feedID: feedID, before: key), after: try self.key(feedID: feedID, after: key))
        }
    }

    /// The greatest order key below `key`, or `nil` when `key` is first.
    public func key(feedID: Int64, before key: Int64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: SharedSQL.keyBefore.sqlite), arguments: [feedID, key])
    }

    /// The least order key above `key`, or `nil` when `key` is last.
    public func key(feedID: Int64, after key: Int64) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: SharedSQL.keyAfter.sqlite), arguments: [feedID, key])
    }

    /// Up to `limit` order keys of a feed at or below `key`, greatest first.
    public func keys(feedID: Int64, atOrBelow key: Int64, limit: Int) throws -> [Int64] {
        try Int64.fetchAll(db, sql: SharedSQL.keysAtOrBelow.sqlite, arguments: [feedID, key, limit])
    }

    /// Up to `limit` order keys of a feed at or above `key`, least first.
    public func keys(feedID: Int64, atOrAbove key: Int64, limit: Int) throws -> [Int64] {
        try Int64.fetchAll(db, sql: SharedSQL.keysAtOrAbove.sqlite, arguments: [feedID, key, limit])
    }

    /// The order key of the image at index `index` of a section (0-based), or `nil`. O(index).
    public func key(sectionID: Int64, index: Int) throws -> Int64? {
        try Int64.fetchOne(db, sql: SharedSQL.keyInSection.sqlite, arguments: [sectionID, index])
    }

    /// The index of the image at `key` inside its section: how many of the section's images sort
    /// before it. O(index).
    public func index(sectionID: Int64, key: Int64) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM image WHERE section_id = ? AND sort_key < ?", arguments: [sectionID, key])
            ?? 0
    }

    /// Inserts `count` images produced in order by `next` (non-generic, so that the per-row
    /// loop of a million-image import is compiled once, specialised, in this module).
    /// Prepared once; one row written per image.
    ///
    /// When the image table is empty and many rows come (a first import), the table's
    /// secondary indexes are dropped first and rebuilt from their own definitions afterwards,
    /// in the same transaction: building an index by sorting is several times cheaper than
    /// a million scattered B-tree insertions. Such a load also runs as trusted rows (see
    /// ``withTrustedRows(_:)``): its rows were validated by the sync layer and reference the
    /// feed and sections of this transaction.
    public func insertImages(feedID: Int64, count: Int, beforeIndexing: (() -> Void)?, _ next: () throws -> ImageRecord)
        throws
    {
        guard count >= 20_000, try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM image)")! else {
            return try insertImageRows(feedID: feedID, count: count, next)
        }
        let indexes = try Row.fetchAll(
            db,
            sql: """
                SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'image' AND sql IS NOT NULL
                """)
        for index in indexes {
            try db.execute(sql: "DROP INDEX \(quotedIdentifier(index["name"]))")
        }
        try withTrustedRows { try insertImageRows(feedID: feedID, count: count, next) }
        if !indexes.isEmpty { beforeIndexing?() }
        for index in indexes {
            try db.execute(sql: index["sql"])
        }
    }

    /// Runs `body`, which writes rows the service vouches for, with SQLite's per-row checks of
    /// foreign keys and CHECK constraints off (and on again after it, even when it throws).
    ///
    /// Only for bulk loads whose every row references parents of the same transaction and
    /// whose every value passed the sync layer's validation (the bounds the CHECK constraints
    /// repeat): a first import's image rows and change log. There the checks cannot fail and
    /// cost three B-tree look-ups a row, a third of a million-image import. The tests check
    /// such imports with `PRAGMA foreign_key_check` and `PRAGMA integrity_check` (which
    /// verifies CHECK and NOT NULL constraints). `PRAGMA foreign_keys` cannot change inside a
    /// transaction, so the switch goes through `sqlite3_db_config` (CSQLiteSwitches); both
    /// settings apply to statements prepared while they hold.
    func withTrustedRows<T>(_ body: () throws -> T) throws -> T {
        guard let connection = db.sqliteConnection.map(UnsafeMutableRawPointer.init) else { return try body() }
        let enforced = waterfall_sqlite_enforce_foreign_keys(connection, -1)
        guard enforced >= 0, waterfall_sqlite_enforce_foreign_keys(connection, 0) == 0 else {
            throw StoreError(.cannotWrite, "SQLite refused to switch its foreign-key checks off for a bulk load.")
        }
        defer { _ = waterfall_sqlite_enforce_foreign_keys(connection, enforced) }
        try RawStatement.execute(db, "PRAGMA ignore_check_constraints = ON")
        defer { _ = try? RawStatement.execute(db, "PRAGMA ignore_check_constraints = OFF") }
        return try body()
    }

    /// Inserts `count` images produced by `next` with one prepared statement.
    private func insertImageRows(feedID: Int64, count: Int, _ next: () throws -> ImageRecord) throws {
        let insert = try RawStatement(
            db,
            """
            INSERT INTO image (feed_id, sort_key, external_id, section_id, width, height, full_span, url, title, taken_at,
                               placeholder, color, renditions, tags)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for _ in 0..<count {
            let image = try next()
            insert.bind(1, feedID)
            insert.bind(2, image.key)
            insert.bind(4, image.sectionID)
            insert.bind(5, Int64(image.width))
            insert.bind(6, Int64(image.height))
            insert.bind(7, Int64(image.isFullSpan ? 1 : 0))
            insert.bind(10, image.takenAt)
            insert.bind(11, image.placeholder)
            insert.bind(12, image.color)
            insert.bind(13, image.renditions)
            insert.bind(14, image.tags)
            try insert.withBound(3, image.externalID) {
                try insert.withBound(8, image.url) {
                    try insert.withBound(9, image.title) {
                        try insert.run()
                    }
                }
            }
        }
    }

    /// Rewrites the sizes, span, url, title, date, placeholder, colour, renditions and tags of the
    /// image at `image.key`.
    public func updateImages(feedID: Int64, _ images: some Sequence<ImageRecord>) throws {
        let update = try RawStatement(
            db,
            """
            UPDATE image SET width = ?, height = ?, full_span = ?, url = ?, title = ?, taken_at = ?,
                             placeholder = ?, color = ?, renditions = ?, tags = ?
            WHERE feed_id = ? AND sort_key = ?
            """)
        for image in images {
            update.bind(1, Int64(image.width))
            update.bind(2, Int64(image.height))
            update.bind(3, Int64(image.isFullSpan ? 1 : 0))
            update.bind(4, image.url)
            update.bind(5, image.title)
            update.bind(6, image.takenAt)
            update.bind(7, image.placeholder)
            update.bind(8, image.color)
            update.bind(9, image.renditions)
            update.bind(10, image.tags)
            update.bind(11, feedID)
            update.bind(12, image.key)
            try update.run()
        }
    }

    /// Deletes the images at `keys`.
    public func deleteImages(feedID: Int64, keys: some Sequence<Int64>) throws {
        let delete = try RawStatement(db, "DELETE FROM image WHERE feed_id = ? AND sort_key = ?")
        for key in keys {
            delete.bind(1, feedID)
            delete.bind(2, key)
            try delete.run()
        }
    }

    /// Gives many images new keys (and sections, where `sectionID` is not `nil`) at once, in any
    /// order: the rows first park at negative keys (never used otherwise), so that a permutation
    /// never collides with itself.
    public func rekeyImages(feedID: Int64, _ moves: [(from: Int64, to: Int64, sectionID: Int64?)]) throws {
        let park = try RawStatement(db, "UPDATE image SET sort_key = -sort_key WHERE feed_id = ? AND sort_key = ?")
        for move in moves {
            park.bind(1, feedID)
            park.bind(2, move.from)
            try park.run()
        }
        let place = try RawStatement(
            db,
            """
            UPDATE image SET sort_key = ?, section_id = COALESCE(?, section_id) WHERE feed_id = ? AND sort_key = ?
            """)
        for move in moves {
            place.bind(1, move.to)
            place.bind(2, move.sectionID)
            place.bind(3, feedID)
            place.bind(4, -move.from)
            try place.run()
        }
    }
}

extension ImageRecord {
    init(row: Row) {
        self.init(
            key: row[0], externalID: row[1], sectionID: row[2], width: row[3], height: row[4],
            isFullSpan: row[5], url: row[6], title: row[7], takenAt: row[8],
            placeholder: row[9], color: row[10], renditions: row[11], tags: row[12])
    }

    init(statement: RawStatement) {
        self.init(
            key: statement.int64(0), externalID: statement.string(1) ?? "", sectionID: statement.int64(2),
            width: Int32(truncatingIfNeeded: statement.int64(3)),
            height: Int32(truncatingIfNeeded: statement.int64(4)),
            isFullSpan: statement.int64(5) != 0, url: statement.string(6), title: statement.string(7),
            takenAt: statement.isNull(8) ? nil : statement.int64(8),
            placeholder: statement.string(9), color: statement.string(10), renditions: statement.string(11),
            tags: statement.string(12))
    }
}

/// `name` as an SQL identifier, quoted.
func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
