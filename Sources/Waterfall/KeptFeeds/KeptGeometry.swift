import Synchronization
import WaterfallLayout
import WaterfallStore

/// One section of a kept feed: its images' order keys, sizes and id hashes, in
/// catalog order, 28 bytes an image.
struct KeptSection {
    let id: Int64
    var keys: [Int64] = []
    var items: [LayoutItem] = []
    /// ``KeptGeometry/hash(_:)`` of each image's id: how a change-log entry, which names an
    /// image by id, finds the image's old place.
    var idHashes: [UInt64] = []
    /// Changes whenever the section's images change: a hot layout compares it to know whether
    /// its plan of the section still holds.
    var version: UInt64 = 0

    init(id: Int64) {
        self.id = id
    }
}

/// What layout needs of one feed, in catalog order and in memory (DESIGN section 12): each
/// image's size, span, section and order key. Loaded by one ordered scan, then *followed*:
/// ``follow(to:_:)`` applies the change log since its revision, reading only the changed
/// images' rows, so a move costs two array edits in the sections it touches.
///
/// A value: a reader takes a copy (the section arrays are shared, copy on write), so a change
/// copies only the sections it touches, never the feed.
struct KeptGeometry {
    /// Bytes kept an image: key 8, size and span 12, id hash 8.
    static let bytesPerImage = 28
    /// Past this many changed images, following the change log would cost more than a load
    /// (a change may look for its image's old place among all hashes): the feed is loaded anew.
    static let followLimit = 256

    let feedID: Int64
    /// Which load this copy comes from, unique in the process: a copy loaded anew (a change too
    /// large to follow, a feed made anew) starts its sections' versions over, so a layout plan
    /// holds for a section only if it was laid out from a copy of the same generation.
    let generation: UInt64
    private static let generations = Atomic<UInt64>(0)
    private(set) var revision: Int64
    private(set) var sections: [KeptSection]
    /// The catalog index of each section's first image, and the image count last.
    private(set) var starts: [Int]
    private var ordinalByID: [Int64: Int]
    private var nextVersion: UInt64 = 1
    /// Whether no two images share an id hash: checked when the feed is loaded, and kept by
    /// every change, since a hash is inserted only where its image (the only one with it) was
    /// just taken out or none was found. While it holds, a change finds its image by the first
    /// match, looked for first in the section the image is in now (a move inside a section
    /// reads that section alone); else it looks through every section for a second match.
    private let hashesAreUnique: Bool

    /// How many images the feed holds.
    var count: Int { starts[starts.count - 1] }
    /// Bytes kept a section beside its images': its record and three array buffers' headers,
    /// its entry in the map of ordinals, and its start.
    static let bytesPerSection = MemoryLayout<KeptSection>.stride + 3 * 32 + 40 + 8
    /// The memory the copy takes (part of what `serve --hot-memory` bounds): ``bytesPerImage``
    /// an image and ``bytesPerSection`` a section.
    var bytes: Int { count * Self.bytesPerImage + sections.count * Self.bytesPerSection }
    /// What this copy holds that `older`, the copy it was followed from, does not share with
    /// it: the sections a follow copied as it edited them (copy on write, ``bytesPerImage`` an
    /// image of each), with the tables every follow copies (``bytesPerSection`` a section).
    /// What a follow adds to what is held while the older copy is still held too.
    func bytesNotShared(with older: KeptGeometry) -> Int {
        var bytes = sections.count * Self.bytesPerSection
        for section in sections {
            let shared = older.ordinalByID[section.id].map { older.sections[$0] }.map { old in
                section.keys.sharesStorage(with: old.keys) && section.items.sharesStorage(with: old.items)
                    && section.idHashes.sharesStorage(with: old.idHashes)
            }
            if shared != true { bytes += section.keys.count * Self.bytesPerImage }
        }
        return bytes
    }

    /// The section ids in order.
    var sectionIDs: [Int64] { sections.map(\.id) }
    /// Where section `id` stands in the feed's order; `nil` for a section it does not hold.
    func ordinal(ofSection id: Int64) -> Int? { ordinalByID[id] }

    /// Loads a feed by one ordered scan, inside the caller's read transaction.
    init(feed: FeedRecord, _ tx: any CatalogTransaction) throws {
        feedID = feed.id
        generation = Self.generations.wrappingAdd(1, ordering: .relaxed).newValue
        revision = feed.revision
        let ids = try tx.sectionIDs(feedID: feed.id)
        sections = ids.map(KeptSection.init(id:))
        ordinalByID = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        starts = []
        var sections = self.sections
        let ordinals = ordinalByID
        try tx.scanIdentifiedGeometry(feedID: feed.id) { image, id in
            guard let ordinal = ordinals[image.sectionID] else {
                throw WaterfallError.database("the catalog's image \(id.quoted) names a section that does not exist.")
            }
            sections[ordinal].keys.append(image.key)
            sections[ordinal].items.append(
                LayoutItem(width: image.width, height: image.height, isFullSpan: image.isFullSpan))
            sections[ordinal].idHashes.append(Self.hash(id))
        }
        self.sections = sections
        var hashes = sections.flatMap(\.idHashes)
        hashes.sort()
        hashesAreUnique = zip(hashes, hashes.dropFirst()).allSatisfy { $0 != $1 }
        recountStarts()
    }

    /// A 64-bit FNV-1a hash of an image id.
    static func hash(_ id: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// The section ordinal and the index inside it of catalog index `index` (`0..<count`).
    func locate(_ index: Int) -> (section: Int, local: Int) {
        // The last section whose start is at or before `index` and that holds images.
        var low = 0
        var high = sections.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= index { low = middle } else { high = middle }
        }
        while starts[low + 1] <= index { low += 1 }
        return (low, index - starts[low])
    }

    /// The catalog index of the image at order key `key` in section `sectionID`, or `nil` when
    /// the copy holds no such image: a binary search of the section's keys.
    func index(ofKey key: Int64, inSection sectionID: Int64) -> Int? {
        guard let ordinal = ordinalByID[sectionID] else { return nil }
        let keys = sections[ordinal].keys
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        guard low < keys.count, keys[low] == key else { return nil }
        return starts[ordinal] + low
    }

    /// The catalog index of the first image of section `ordinal`.
    func start(of ordinal: Int) -> Int { starts[ordinal] }

    /// Brings the copy to `feed`'s revision by the change log, read through `reads` (a read
    /// transaction at that revision). Returns `false` when it cannot (too many changes, or the
    /// catalog is not what the copy expects): the caller loads the feed anew.
    mutating func follow(to feed: FeedRecord, _ reads: any CatalogPageReads) async throws -> Bool {
        precondition(feed.revision >= revision)
        if feed.revision == revision { return count == feed.imageCount }
        guard canFollow(to: feed), let followed = try await followReads(to: feed, reads) else { return false }
        return apply(followed, to: feed)
    }

    /// Whether the change log from the copy's revision to `feed`'s is worth reading: many
    /// revisions, or many images more or fewer (a large import), load anew at once rather than
    /// read a long change log first.
    func canFollow(to feed: FeedRecord) -> Bool {
        feed.revision - revision <= Int64(Self.followLimit) && abs(feed.imageCount - count) <= Self.followLimit
    }

    /// What following to `feed`'s revision reads, through `reads` (which shows `feed`); `nil`
    /// when the change log names too many images.
    func followReads(to feed: FeedRecord, _ reads: any CatalogPageReads) async throws -> KeptFollowReads? {
        let changes = try await reads.changes(feedID: feedID, since: revision, limit: Self.changeRowLimit)
        guard let ids = Self.changedIDs(changes) else { return nil }
        let sectionIDs = try await reads.sectionIDs(feedID: feedID)
        let rows = try await reads.images(feedID: feedID, externalIDs: ids)
        return KeptFollowReads(
            sectionIDs: sectionIDs, ids: ids, rows: rows,
            neighbours: try await reads.neighbourKeys(feedID: feedID, of: rows.map(\.key)))
    }

    /// ``followReads(to:_:)`` read in a transaction: a server's write, which reads what its
    /// kept feed follows on its own connection before it commits (``KeptFeeds/written(_:_:)``).
    func followReads(_ tx: any CatalogTransaction) throws -> KeptFollowReads? {
        let changes = try tx.changes(feedID: feedID, since: revision, limit: Self.changeRowLimit)
        guard let ids = Self.changedIDs(changes) else { return nil }
        let rows = try tx.images(feedID: feedID, externalIDs: ids)
        return KeptFollowReads(
            sectionIDs: try tx.sectionIDs(feedID: feedID), ids: ids, rows: rows,
            neighbours: try tx.neighbourKeys(feedID: feedID, of: rows.map(\.key)))
    }

    /// The most change-log rows a follow reads: an image may be named by several (moved again
    /// and again), but a log longer than this is not worth following (a re-import that
    /// rewrote every URL logs a row an image), and is not read to its end.
    static let changeRowLimit = 4 * followLimit

    /// The images `changes` name, each once, in order; `nil` past ``followLimit``, or when
    /// they may be cut short at ``changeRowLimit`` rows.
    private static func changedIDs(_ changes: [ChangeRecord]) -> [String]? {
        guard changes.count < changeRowLimit else { return nil }
        var changed: [String] = []
        var seen: Set<String> = []
        for change in changes where seen.insert(change.externalID).inserted {
            changed.append(change.externalID)
            if changed.count > followLimit { return nil }
        }
        return changed
    }

    /// Brings the copy to `feed`'s revision by what ``followReads(to:_:)``
    /// read at it, in memory: a changed image is taken out where it was and put where its row
    /// is now. Returns `false` when the catalog is not what the copy expects (then this copy is
    /// left half-way: the caller drops it, and the feed is loaded anew, in a transaction).
    mutating func apply(_ reads: KeptFollowReads, to feed: FeedRecord) -> Bool {
        for id in reads.sectionIDs where ordinalByID[id] == nil {
            ordinalByID[id] = sections.count
            sections.append(KeptSection(id: id))
        }
        for image in reads.changed {
            let hash = Self.hash(image.id)
            // Every section the catalog has was added above.
            let ordinal = image.row.flatMap { ordinalByID[$0.sectionID] }
            guard removeImage(hash: hash, lookingFirstIn: ordinal) else { return false }
            guard let row = image.row else { continue }
            guard let ordinal else { return false }
            insert(row, into: ordinal, hash: hash)
        }
        guard reorderSections(reads.sectionIDs) else { return false }
        recountStarts()
        guard reads.changed.allSatisfy(neighboursAgree) else { return false }
        guard count == feed.imageCount else { return false }
        revision = feed.revision
        return true
    }

    /// Puts the sections in the catalog's order; a section the catalog no longer has must hold
    /// no image here (else `false`: the copy and the catalog disagree).
    private mutating func reorderSections(_ ids: [Int64]) -> Bool {
        // Most changes move images, not sections.
        if sections.count == ids.count && zip(sections, ids).allSatisfy({ $0.id == $1 }) { return true }
        let kept = Set(ids)
        guard sections.allSatisfy({ kept.contains($0.id) || $0.keys.isEmpty }) else { return false }
        let byID = Dictionary(uniqueKeysWithValues: sections.map { ($0.id, $0) })
        sections = ids.map { byID[$0] ?? KeptSection(id: $0) }
        ordinalByID = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        return true
    }

    /// Removes the one image with this id hash, if any, looking in section `likely` first;
    /// `false` when two images share it.
    private mutating func removeImage(hash: UInt64, lookingFirstIn likely: Int?) -> Bool {
        var found: (section: Int, index: Int)?
        let order =
            likely.map { likely in [likely] + sections.indices.filter { $0 != likely } } ?? Array(sections.indices)
        search: for ordinal in order {
            let hashes = sections[ordinal].idHashes
            var from = hashes.startIndex
            while let index = hashes[from...].firstIndex(of: hash) {
                if found != nil { return false }
                found = (ordinal, index)
                if hashesAreUnique { break search }
                from = index + 1
            }
        }
        if let (ordinal, index) = found {
            sections[ordinal].keys.remove(at: index)
            sections[ordinal].items.remove(at: index)
            sections[ordinal].idHashes.remove(at: index)
            touch(ordinal)
        }
        return true
    }

    private mutating func insert(_ row: ImageRecord, into ordinal: Int, hash: UInt64) {
        let low = Self.firstIndex(atOrAfter: row.key, in: sections[ordinal].keys)
        sections[ordinal].keys.insert(row.key, at: low)
        sections[ordinal].items.insert(
            LayoutItem(width: row.width, height: row.height, isFullSpan: row.isFullSpan), at: low)
        sections[ordinal].idHashes.insert(hash, at: low)
        touch(ordinal)
    }

    /// The index of the first of `keys` (ascending) at or after `key`; `keys.count` if none.
    private static func firstIndex(atOrAfter key: Int64, in keys: [Int64]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private mutating func touch(_ ordinal: Int) {
        sections[ordinal].version = nextVersion
        nextVersion += 1
    }

    private mutating func recountStarts() {
        var starts = [0]
        starts.reserveCapacity(sections.count + 1)
        for section in sections { starts.append(starts[starts.count - 1] + section.keys.count) }
        self.starts = starts
    }

    /// Whether the images before and after a changed image's row are, in the catalog, the ones
    /// next to it here (a removed image has none to check): order keys of other images change
    /// only when a window is renumbered, which the change log does not list, so each placed
    /// image checks its neighbours. The image is looked for in its section, whose keys ascend.
    private func neighboursAgree(_ image: KeptFollowReads.Image) -> Bool {
        guard let row = image.row else { return true }
        guard let ordinal = ordinalByID[row.sectionID] else { return false }
        let keys = sections[ordinal].keys
        let index = Self.firstIndex(atOrAfter: row.key, in: keys)
        guard index < keys.count, keys[index] == row.key else { return false }
        let before = index > 0 ? keys[index - 1] : sections[..<ordinal].last(where: { !$0.keys.isEmpty })?.keys.last
        let after =
            index + 1 < keys.count
            ? keys[index + 1] : sections[(ordinal + 1)...].first(where: { !$0.keys.isEmpty })?.keys.first
        return image.before == before && image.after == after
    }

    /// The images in catalog order from `start` (a section ordinal and an index inside it,
    /// which may be the section's end).
    func images(from start: (section: Int, local: Int)) -> UnfoldSequence<ImageGeometry, (section: Int, local: Int)> {
        sequence(state: start) { position in
            while position.section < sections.count && position.local >= sections[position.section].keys.count {
                position = (position.section + 1, 0)
            }
            guard position.section < sections.count else { return nil }
            defer { position.local += 1 }
            return geometry(at: position)
        }
    }

    /// The order key, size and section of the image at catalog index `index`.
    func geometry(at position: (section: Int, local: Int)) -> ImageGeometry {
        let section = sections[position.section]
        let item = section.items[position.local]
        return ImageGeometry(
            key: section.keys[position.local], sectionID: section.id, width: item.width, height: item.height,
            isFullSpan: item.isFullSpan)
    }
}

/// What following the change log from a copy's revision to a feed's reads from the catalog, all
/// in the snapshot that shows the feed (``KeptGeometry/followReads(to:_:)-(_,any CatalogTransaction)``),
/// then applies in memory (``KeptGeometry/apply(_:to:)``): read apart from applying, a
/// reader waits for the database without holding the copy.
struct KeptFollowReads: Sendable {
    /// An image the change log names: its row now (`nil`: removed), and the order keys of the
    /// images before and after that row in the catalog.
    typealias Image = (id: String, row: ImageRecord?, before: Int64?, after: Int64?)

    /// The feed's section ids, in order.
    var sectionIDs: [Int64]
    /// Each image the change log names, once, in the order it names them.
    var changed: [Image]

    /// What three statements read, whatever the number of images (the change log aside): the
    /// section ids, the rows of the images named `ids` (those still in the feed), and the keys
    /// beside each row's.
    init(sectionIDs: [Int64], ids: [String], rows: [ImageRecord], neighbours: [Int64: NeighbourKeys]) {
        self.sectionIDs = sectionIDs
        let byID = Dictionary(rows.map { ($0.externalID, $0) }) { first, _ in first }
        changed = ids.map { id in
            guard let row = byID[id] else { return (id, nil, nil, nil) }
            let keys = neighbours[row.key]
            return (id, row, keys?.before, keys?.after)
        }
    }
}

extension Array {
    /// Whether `other` is this array's very storage (a copy not yet written to).
    fileprivate func sharesStorage(with other: [Element]) -> Bool {
        withUnsafeBufferPointer { mine in other.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }
}
