import Crypto
import WaterfallStore
import WaterfallSync

extension WaterfallService {
    /// The most change-log rows a mirror's catch-up follows: beyond, it lists the feed again
    /// (``WaterfallError/tooManyChangesToFollow(feed:since:limit:)``).
    public static let mirrorCatchUpLimit = 100_000

    /// What a mirror of `feed` needs (DESIGN section 21), from one read transaction: `head`,
    /// then `images` with batches of at most ``imageStreamBatch`` images. Without `since`, a
    /// listing: every image in catalog order. With `since` (and the `incarnation` the mirror
    /// holds), a catch-up: the images the change log names since then (see ``MirrorHead``).
    /// `head` and `images` run on the store's thread, inside the transaction, as in
    /// ``streamImages(feed:tag:head:images:)``. Answers for the feed itself, never a view: a
    /// feed's views come with it.
    /// - Throws: ``WaterfallError`` `unknownFeed`; for a catch-up `cursorOfRemovedFeed` (another
    ///   incarnation), `changesPruned`, `tooManyChangesToFollow`, or `invalidValue(.since)`
    ///   after the feed's revision.
    public func streamMirror(
        feed name: String, since: Int64?, incarnation: Int64?, head: @escaping @Sendable (MirrorHead) throws -> Void,
        images: @escaping @Sendable ([ImageList.Image]) throws -> Void
    ) async throws(WaterfallError) {
        try await perform {
            try await database.read { tx in
                guard let feed = try tx.feed(named: name) else { throw WaterfallError.unknownFeed(name) }
                let sections = try tx.sections(feedID: feed.id)
                let names = sections.namesByID
                var first = MirrorHead(
                    catalog: try Self.catalogIdentity(tx), feed: feed.name, incarnation: feed.id,
                    revision: feed.revision, since: since,
                    totalItems: feed.imageCount, sectionBy: feed.sectionBy, timeZone: feed.timeZone,
                    sections: sections.map { .init(id: $0.name, title: $0.title, declared: $0.isDeclared) },
                    layouts: try tx.layouts(feedID: feed.id).map { .init(name: $0.name, json: $0.configuration) },
                    views: try tx.views(feedID: feed.id).map { .init(name: $0.name, json: $0.rule) })
                func line(_ row: ImageRecord) -> ImageList.Image {
                    ImageList.Image(row, index: 0, section: names[row.sectionID] ?? nil)
                }
                guard let since else {
                    try head(first)
                    var from = Int64.min
                    while true {
                        let rows = try tx.images(feedID: feed.id, fromKey: from, limit: Self.imageStreamBatch)
                        if !rows.isEmpty { try images(rows.map(line)) }
                        guard rows.count == Self.imageStreamBatch, let last = rows.last?.key, last < Int64.max else {
                            return
                        }
                        from = last + 1
                    }
                }
                let keys = try Self.catchUp(feed, since: since, incarnation: incarnation, tx, into: &first)
                try head(first)
                // The records are read back a batch at a time: the head holds ids, not images.
                for start in Swift.stride(from: 0, to: keys.count, by: Self.imageStreamBatch) {
                    let batch = Array(keys[start..<min(start + Self.imageStreamBatch, keys.count)])
                    try images(try tx.images(feedID: feed.id, keys: batch).sorted { $0.key < $1.key }.map(line))
                }
            }
        }
    }

    /// Who the catalog is, without saying its secret: the first 16 bytes of an HMAC-SHA256 of a
    /// fixed text under the catalog's token secret, in hex. The same for every process of one
    /// catalog and different for another, so a mirror pointed at another catalog (or one
    /// made anew at the same address) lists everything again rather than apply its log.
    static func catalogIdentity(_ tx: any CatalogTransaction) throws -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Array("waterfall catalog identity".utf8), using: SymmetricKey(data: try tx.tokenSecret()))
        let digits = Array("0123456789abcdef".utf8)
        return String(
            decoding: code.prefix(16).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Fills a catch-up's `changes`, `removed` and `after`, and returns the keys of its images
    /// in catalog order: the change log since `since`, the images it names read in one
    /// statement, and each one's neighbour before it in another two.
    private static func catchUp(
        _ feed: FeedRecord, since: Int64, incarnation: Int64?, _ tx: any CatalogTransaction,
        into head: inout MirrorHead
    ) throws -> [Int64] {
        guard incarnation == nil || incarnation == feed.id else {
            throw WaterfallError.cursorOfRemovedFeed(feed: feed.name, current: feed.revision)
        }
        guard since >= 0 else { throw WaterfallError.invalidValue(.since, "must be 0 or more, got \(since).") }
        // A mirror ahead of its source (one restored from a backup since) lists again.
        if since > feed.revision {
            throw WaterfallError.cursorExpired(feed: feed.name, revision: since, current: feed.revision)
        }
        let from = try tx.changesFrom(feedID: feed.id)
        if since < from { throw WaterfallError.changesPruned(feed: feed.name, since: since, from: from) }
        let changes = try tx.changes(feedID: feed.id, since: since, limit: mirrorCatchUpLimit + 1)
        if changes.count > mirrorCatchUpLimit {
            throw WaterfallError.tooManyChangesToFollow(feed: feed.name, since: since, limit: mirrorCatchUpLimit)
        }
        var named: [String] = []
        var seen: Set<ExactString> = []
        for change in changes where seen.insert(ExactString(change.externalID)).inserted {
            named.append(change.externalID)
        }
        let touched = try tx.images(feedID: feed.id, externalIDs: named).sorted { $0.key < $1.key }
        let held = Set(touched.map { ExactString($0.externalID) })
        let neighbours = try tx.neighbourKeys(feedID: feed.id, of: touched.map(\.key))
        let before = touched.compactMap { neighbours[$0.key]?.before }
        let idsByKey = Dictionary(
            try tx.images(feedID: feed.id, keys: before).map { ($0.key, $0.externalID) },
            uniquingKeysWith: { a, _ in a })
        head.changes = changes.map {
            ChangeList.Change(revision: $0.revision, kind: $0.kind.rawValue, id: $0.externalID, section: $0.section)
        }
        head.removed = named.filter { !held.contains(ExactString($0)) }
        head.after = touched.map { row in neighbours[row.key]?.before.flatMap { idsByKey[$0] } }
        return touched.map(\.key)
    }
}
