import Foundation
import PostgresNIO

extension PostgresTransaction {
    private static let imageColumns = SharedSQL.imageColumns

    public func image(feedID: Int64, externalID: String) throws -> ImageRecord? {
        try session.rows(PostgresStatement.ImageByID.self, .int(feedID), .text(externalID)).first.map(
            ImageRecord.init(postgres:))
    }

    public func image(feedID: Int64, key: Int64) throws -> ImageRecord? {
        try session.rows(PostgresStatement.ImageByKey.self, .int(feedID), .int(key)).first.map(
            ImageRecord.init(postgres:))
    }

    /// Read in batches along the primary key, so that no result holds the whole feed twice.
    public func allImages(feedID: Int64) throws -> [ImageRecord] {
        var result: [ImageRecord] = []
        var from = Int64.min
        while true {
            let batch = try images(feedID: feedID, fromKey: from, limit: Self.batch)
            result += batch
            guard batch.count == Self.batch, let last = batch.last else { return result }
            from = last.key + 1
        }
    }

    public func images(feedID: Int64, fromKey key: Int64, limit: Int) throws -> [ImageRecord] {
        try session.rows(PostgresStatement.ImagesFromKey.self, .int(feedID), .int(key), .int(Int64(limit))).map(
            ImageRecord.init(postgres:))
    }

    public func images(feedID: Int64, offset: Int, limit: Int) throws -> [ImageRecord] {
        try session.rows(PostgresStatement.ImagesFromOffset.self, .int(feedID), .int(Int64(limit)), .int(Int64(offset)))
            .map(ImageRecord.init(postgres:))
    }

    public func imageCount(feedID: Int64, tagged tag: String) throws -> Int {
        Int(
            try session.scalar(
                Int64.self, PostgresStatement.TaggedImageCount.self, .int(feedID), .text(SharedSQL.tagNeedle(tag)))
                ?? 0)
    }

    public func images(feedID: Int64, tagged tag: String, fromKey key: Int64, limit: Int) throws -> [ImageRecord] {
        try session.rows(
            PostgresStatement.TaggedImagesFromKey.self, .int(feedID), .int(key), .text(SharedSQL.tagNeedle(tag)),
            .int(Int64(limit))
        ).map(ImageRecord.init(postgres:))
    }

    public func images(feedID: Int64, tagged tag: String, offset: Int, limit: Int) throws -> [ImageRecord] {
        try session.rows(
            PostgresStatement.TaggedImagesFromOffset.self, .int(feedID), .text(SharedSQL.tagNeedle(tag)),
            .int(Int64(limit)), .int(Int64(offset))
        ).map(ImageRecord.init(postgres:))
    }

    /// Reads batches that grow from 512 rows (a page needs a few hundred) to 16,384 (a rebuild
    /// reads on to the end of the feed).
    public func scanGeometry(feedID: Int64, fromKey key: Int64, _ body: (ImageGeometry) throws -> Bool) throws {
        var from = key
        var limit: Int64 = 512
        while true {
            let rows = try session.rows(PostgresStatement.GeometryFromKey.self, .int(feedID), .int(from), .int(limit))
            for row in rows {
                let geometry = try ImageGeometry(postgres: row)
                if try !body(geometry) { return }
                from = geometry.key + 1
            }
            guard rows.count == limit else { return }
            limit = min(limit * 4, 16_384)
        }
    }

    public func scanIdentifiedGeometry(feedID: Int64, _ body: (ImageGeometry, String) throws -> Void) throws {
        var from = Int64.min
        var limit: Int64 = 512
        while true {
            let rows = try session.rows(
                """
                SELECT sort_key, section_id, width, height, full_span, external_id FROM image
                WHERE feed_id = $1 AND sort_key >= $2 ORDER BY sort_key LIMIT $3
                """, .int(feedID), .int(from), .int(limit))
            for row in rows {
                var cells = PostgresCells(row)
                let geometry = try ImageGeometry(postgres: &cells)
                try body(geometry, try cells.next(String.self))
                from = geometry.key + 1
            }
            guard rows.count == limit else { return }
            limit = min(limit * 4, 16_384)
        }
    }

    public func images(feedID: Int64, externalIDs: [String]) throws -> [ImageRecord] {
        guard !externalIDs.isEmpty else { return [] }
        return try session.rows(PostgresStatement.ImagesByIDs.self, .int(feedID), .texts(externalIDs)).map(
            ImageRecord.init(postgres:))
    }

    public func neighbourKeys(feedID: Int64, of keys: [Int64]) throws -> [Int64: NeighbourKeys] {
        guard !keys.isEmpty else { return [:] }
        return try NeighbourKeys.byKey(session.rows(PostgresStatement.NeighbourKeys.self, .int(feedID), .ints(keys)))
    }

    public func images(feedID: Int64, keys: [Int64]) throws -> [ImageRecord] {
        guard !keys.isEmpty else { return [] }
        return try session.rows(
            "SELECT \(SharedSQL.imageColumns) FROM image WHERE feed_id = $1 AND sort_key = ANY($2::bigint[])",
            .int(feedID), .ints(keys)
        ).map(ImageRecord.init(postgres:))
    }

    /// One round trip for all the sections.
    public func keysAndDates(sectionIDs: [Int64]) throws -> [Int64: [KeyAndDate]] {
        var result: [Int64: [KeyAndDate]] = [:]
        guard !sectionIDs.isEmpty else { return result }
        let rows = try session.rows(
            "SELECT section_id, sort_key, taken_at FROM image WHERE section_id = ANY($1::bigint[]) ORDER BY section_id, sort_key",
            .ints(sectionIDs))
        for row in rows {
            let (section, key, takenAt) = try row.decode((Int64, Int64, Int64?).self)
            result[section, default: []].append(KeyAndDate(key: key, takenAt: takenAt))
        }
        return result
    }

    public func key(feedID: Int64, before key: Int64) throws -> Int64? {
        try session.scalar(Int64.self, PostgresStatement.KeyBefore.self, .int(feedID), .int(key))
    }

    public func key(feedID: Int64, after key: Int64) throws -> Int64? {
        try session.scalar(Int64.self, PostgresStatement.KeyAfter.self, .int(feedID), .int(key))
    }

    public func keys(feedID: Int64, atOrBelow key: Int64, limit: Int) throws -> [Int64] {
        try session.rows(PostgresStatement.KeysAtOrBelow.self, .int(feedID), .int(key), .int(Int64(limit))).map {
            try $0.decode(Int64.self)
        }
    }

    public func keys(feedID: Int64, atOrAbove key: Int64, limit: Int) throws -> [Int64] {
        try session.rows(PostgresStatement.KeysAtOrAbove.self, .int(feedID), .int(key), .int(Int64(limit))).map {
            try $0.decode(Int64.self)
        }
    }

    public func key(sectionID: Int64, index: Int) throws -> Int64? {
        try session.scalar(Int64.self, PostgresStatement.KeyInSection.self, .int(sectionID), .int(Int64(index)))
    }

    public func index(sectionID: Int64, key: Int64) throws -> Int {
        Int(
            try session.scalar(
                Int64.self, "SELECT count(*) FROM image WHERE section_id = $1 AND sort_key < $2", .int(sectionID),
                .int(key)) ?? 0)
    }

    /// Sends the rows in batches of ``batch``, each one `INSERT … SELECT FROM unnest(…)` of
    /// column arrays in PostgreSQL's binary format: one round trip per batch, not per row.
    public func insertImages(feedID: Int64, count: Int, beforeIndexing: (() -> Void)?, _ next: () throws -> ImageRecord)
        throws
    {
        var batch = ImageColumns(capacity: min(count, Self.batch))
        var sent = 0
        while sent < count {
            batch.removeAll()
            for _ in 0..<min(Self.batch, count - sent) { batch.append(try next()) }
            try session.execute(
                """
                INSERT INTO image (feed_id, sort_key, external_id, section_id, width, height, full_span, url, title, taken_at,
                                   placeholder, color, renditions, tags)
                SELECT $1, k, e, s, w, h, f, CASE WHEN un THEN NULL ELSE u END, CASE WHEN tn THEN NULL ELSE t END,
                       CASE WHEN dn THEN NULL ELSE d END, CASE WHEN pn THEN NULL ELSE p END,
                       CASE WHEN cn THEN NULL ELSE c END, CASE WHEN rn THEN NULL ELSE re END,
                       CASE WHEN gn THEN NULL ELSE g END
                FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::int[], $6::int[], $7::bool[],
                            $8::text[], $9::bool[], $10::text[], $11::bool[], $12::bigint[], $13::bool[],
                            $14::text[], $15::bool[], $16::text[], $17::bool[], $18::text[], $19::bool[],
                            $20::text[], $21::bool[])
                     AS r(k, e, s, w, h, f, u, un, t, tn, d, dn, p, pn, c, cn, re, rn, g, gn)
                """,
                .int(feedID), .ints(batch.keys), .texts(batch.ids), .ints(batch.sections), .int32s(batch.widths),
                .int32s(batch.heights), .bools(batch.fullSpans), .texts(batch.urls), .bools(batch.urlIsNull),
                .texts(batch.titles), .bools(batch.titleIsNull), .ints(batch.takenAts), .bools(batch.takenAtIsNull),
                .texts(batch.placeholders), .bools(batch.placeholderIsNull), .texts(batch.colors),
                .bools(batch.colorIsNull),
                .texts(batch.renditions), .bools(batch.renditionsIsNull), .texts(batch.tags),
                .bools(batch.tagsIsNull), length: .bulk)
            sent += batch.keys.count
        }
    }

    public func updateImages(feedID: Int64, _ images: some Sequence<ImageRecord>) throws {
        var batch = ImageColumns(capacity: Self.batch)
        var iterator = images.makeIterator()
        var done = false
        while !done {
            batch.removeAll()
            while batch.keys.count < Self.batch, let image = iterator.next() { batch.append(image) }
            done = batch.keys.count < Self.batch
            guard !batch.keys.isEmpty else { return }
            try session.execute(
                """
                UPDATE image SET width = r.w, height = r.h, full_span = r.f,
                       url = CASE WHEN r.un THEN NULL ELSE r.u END, title = CASE WHEN r.tn THEN NULL ELSE r.t END,
                       taken_at = CASE WHEN r.dn THEN NULL ELSE r.d END,
                       placeholder = CASE WHEN r.pn THEN NULL ELSE r.p END, color = CASE WHEN r.cn THEN NULL ELSE r.c END,
                       renditions = CASE WHEN r.rn THEN NULL ELSE r.re END, tags = CASE WHEN r.gn THEN NULL ELSE r.g END
                FROM unnest($2::bigint[], $3::int[], $4::int[], $5::bool[], $6::text[], $7::bool[], $8::text[], $9::bool[],
                            $10::bigint[], $11::bool[], $12::text[], $13::bool[], $14::text[], $15::bool[], $16::text[], $17::bool[],
                            $18::text[], $19::bool[])
                     AS r(k, w, h, f, u, un, t, tn, d, dn, p, pn, c, cn, re, rn, g, gn)
                WHERE image.feed_id = $1 AND image.sort_key = r.k
                """,
                .int(feedID), .ints(batch.keys), .int32s(batch.widths), .int32s(batch.heights), .bools(batch.fullSpans),
                .texts(batch.urls), .bools(batch.urlIsNull), .texts(batch.titles), .bools(batch.titleIsNull),
                .ints(batch.takenAts), .bools(batch.takenAtIsNull), .texts(batch.placeholders),
                .bools(batch.placeholderIsNull),
                .texts(batch.colors), .bools(batch.colorIsNull), .texts(batch.renditions),
                .bools(batch.renditionsIsNull), .texts(batch.tags), .bools(batch.tagsIsNull), length: .bulk)
        }
    }

    public func deleteImages(feedID: Int64, keys: some Sequence<Int64>) throws {
        let all = Array(keys)
        for start in stride(from: 0, to: all.count, by: Self.batch) {
            try session.execute(
                "DELETE FROM image WHERE feed_id = $1 AND sort_key = ANY($2::bigint[])",
                .int(feedID), .ints(Array(all[start..<min(all.count, start + Self.batch)])), length: .bulk)
        }
    }

    /// The rows first park at negative keys (never used otherwise), then take their new ones,
    /// one statement each: a permutation never collides with itself.
    public func rekeyImages(feedID: Int64, _ moves: [(from: Int64, to: Int64, sectionID: Int64?)]) throws {
        for start in stride(from: 0, to: moves.count, by: Self.batch) {
            let slice = moves[start..<min(moves.count, start + Self.batch)]
            try session.execute(
                "UPDATE image SET sort_key = -sort_key WHERE feed_id = $1 AND sort_key = ANY($2::bigint[])",
                .int(feedID), .ints(slice.map(\.from)), length: .bulk)
        }
        for start in stride(from: 0, to: moves.count, by: Self.batch) {
            let slice = moves[start..<min(moves.count, start + Self.batch)]
            try session.execute(
                """
                UPDATE image SET sort_key = m.t, section_id = CASE WHEN m.keep THEN image.section_id ELSE m.s END
                FROM unnest($2::bigint[], $3::bigint[], $4::bigint[], $5::bool[]) AS m(f, t, s, keep)
                WHERE image.feed_id = $1 AND image.sort_key = -m.f
                """,
                .int(feedID), .ints(slice.map(\.from)), .ints(slice.map(\.to)),
                .ints(slice.map { $0.sectionID ?? 0 }), .bools(slice.map { $0.sectionID == nil }), length: .bulk)
        }
    }
}

/// A batch of images as column arrays, for `unnest`; NULLs as a flag beside each nullable column.
private struct ImageColumns {
    var keys: [Int64] = []
    var ids: [String] = []
    var sections: [Int64] = []
    var widths: [Int32] = []
    var heights: [Int32] = []
    var fullSpans: [Bool] = []
    var urls: [String] = []
    var urlIsNull: [Bool] = []
    var titles: [String] = []
    var titleIsNull: [Bool] = []
    var takenAts: [Int64] = []
    var takenAtIsNull: [Bool] = []
    var placeholders: [String] = []
    var placeholderIsNull: [Bool] = []
    var colors: [String] = []
    var colorIsNull: [Bool] = []
    var renditions: [String] = []
    var renditionsIsNull: [Bool] = []
    var tags: [String] = []
    var tagsIsNull: [Bool] = []

    init(capacity: Int) {
        keys.reserveCapacity(capacity)
        ids.reserveCapacity(capacity)
        sections.reserveCapacity(capacity)
        widths.reserveCapacity(capacity)
        heights.reserveCapacity(capacity)
        fullSpans.reserveCapacity(capacity)
        urls.reserveCapacity(capacity)
        urlIsNull.reserveCapacity(capacity)
        titles.reserveCapacity(capacity)
        titleIsNull.reserveCapacity(capacity)
        takenAts.reserveCapacity(capacity)
        takenAtIsNull.reserveCapacity(capacity)
        placeholders.reserveCapacity(capacity)
        placeholderIsNull.reserveCapacity(capacity)
        colors.reserveCapacity(capacity)
        colorIsNull.reserveCapacity(capacity)
        renditions.reserveCapacity(capacity)
        renditionsIsNull.reserveCapacity(capacity)
        tags.reserveCapacity(capacity)
        tagsIsNull.reserveCapacity(capacity)
    }

    mutating func append(_ image: ImageRecord) {
        keys.append(image.key)
        ids.append(image.externalID)
        sections.append(image.sectionID)
        widths.append(image.width)
        heights.append(image.height)
        fullSpans.append(image.isFullSpan)
        urls.append(image.url ?? "")
        urlIsNull.append(image.url == nil)
        titles.append(image.title ?? "")
        titleIsNull.append(image.title == nil)
        takenAts.append(image.takenAt ?? 0)
        takenAtIsNull.append(image.takenAt == nil)
        placeholders.append(image.placeholder ?? "")
        placeholderIsNull.append(image.placeholder == nil)
        colors.append(image.color ?? "")
        colorIsNull.append(image.color == nil)
        renditions.append(image.renditions ?? "")
        renditionsIsNull.append(image.renditions == nil)
        tags.append(image.tags ?? "")
        tagsIsNull.append(image.tags == nil)
    }

    mutating func removeAll() {
        keys.removeAll(keepingCapacity: true)
        ids.removeAll(keepingCapacity: true)
        sections.removeAll(keepingCapacity: true)
        widths.removeAll(keepingCapacity: true)
        heights.removeAll(keepingCapacity: true)
        fullSpans.removeAll(keepingCapacity: true)
        urls.removeAll(keepingCapacity: true)
        urlIsNull.removeAll(keepingCapacity: true)
        titles.removeAll(keepingCapacity: true)
        titleIsNull.removeAll(keepingCapacity: true)
        takenAts.removeAll(keepingCapacity: true)
        takenAtIsNull.removeAll(keepingCapacity: true)
        placeholders.removeAll(keepingCapacity: true)
        placeholderIsNull.removeAll(keepingCapacity: true)
        colors.removeAll(keepingCapacity: true)
        colorIsNull.removeAll(keepingCapacity: true)
        renditions.removeAll(keepingCapacity: true)
        renditionsIsNull.removeAll(keepingCapacity: true)
        tags.removeAll(keepingCapacity: true)
        tagsIsNull.removeAll(keepingCapacity: true)
    }
}

extension ImageRecord {
    /// A row of ``SharedSQL/imageColumns``.
    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        try self.init(
            key: cells.next(), externalID: cells.next(), sectionID: cells.next(), width: cells.next(),
            height: cells.next(), isFullSpan: cells.next(), url: cells.next(), title: cells.next(),
            takenAt: cells.next(), placeholder: cells.next(), color: cells.next(), renditions: cells.next(),
            tags: cells.next())
    }
}

extension ImageGeometry {
    /// A row that begins with `sort_key, section_id, width, height, full_span`.
    init(postgres row: PostgresRow) throws {
        var cells = PostgresCells(row)
        try self.init(postgres: &cells)
    }

    /// The next five cells of a row: `sort_key, section_id, width, height, full_span`.
    init(postgres cells: inout PostgresCells) throws {
        try self.init(
            key: cells.next(), sectionID: cells.next(), width: cells.next(), height: cells.next(),
            isFullSpan: cells.next())
    }
}

extension NeighbourKeys {
    /// The rows of ``PostgresStatement/NeighbourKeys``, by key.
    static func byKey(_ rows: [PostgresRow]) throws -> [Int64: NeighbourKeys] {
        try rows.reduce(into: [:]) { result, row in
            let (key, before, after) = try row.decode((Int64, Int64?, Int64?).self)
            result[key] = NeighbourKeys(before: before, after: after)
        }
    }
}
