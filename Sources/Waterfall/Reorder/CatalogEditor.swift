import WaterfallStore
import WaterfallSync

/// Applies user edits (moves, order lists, removals) to one feed inside a write transaction,
/// gathering the change log and the first order key they affect; ``finish()`` commits the
/// revision. A move writes O(1) rows: the image row gets a key between its new neighbours.
struct CatalogEditor {
    let tx: any CatalogTransaction
    let feed: FeedRecord
    private var changes: [(kind: ChangeKind, externalID: String, section: String?)] = []
    private var firstAffectedKey: Int64?
    private var movedIDs: Set<ExactString> = []
    private var removed = 0
    private var unchanged = 0
    private var sectionNames: [Int64: String?] = [:]
    /// The keys renumbered to make room for moves, in order: what the feed's views replay.
    private var renumbered: [(from: [Int64], to: [Int64])] = []

    init(tx: any CatalogTransaction, feed: FeedRecord) {
        self.tx = tx
        self.feed = feed
    }

    private mutating func touch(_ key: Int64) {
        firstAffectedKey = min(firstAffectedKey ?? key, key)
    }

    private mutating func sectionName(_ id: Int64) throws -> String? {
        if let name = sectionNames[id] { return name }
        let name = try tx.section(id: id)?.name
        sectionNames[id] = name
        return name
    }

    private func image(_ id: String, place: String) throws -> ImageRecord {
        guard let image = try tx.image(feedID: feed.id, externalID: id) else {
            throw WaterfallError.unknownImage(feed: feed.name, id: id, place: place)
        }
        return image
    }

    /// Moves image `id` (remove, then insert at the target; never a swap). `place` prefixes
    /// messages (e.g. "reorder.json: moves[3]: ").
    mutating func move(_ id: String, to target: MoveTarget, place: String = "") throws {
        let image = try image(id, place: place)
        var sectionID = image.sectionID
        var lower: Int64?
        var upper: Int64?
        switch target {
        case .before(let other), .after(let other):
            if other.isExactly(id) {
                throw WaterfallError.moveOntoItself("\(place)cannot move \(id.quoted) next to itself.")
            }
            let anchor = try self.image(other, place: place)
            sectionID = anchor.sectionID
            try checkStaysInItsDateSection(image, to: sectionID, place: place)
            if case .before = target {
                upper = anchor.key
                lower = try tx.key(feedID: feed.id, before: anchor.key)
                if lower == image.key { lower = try tx.key(feedID: feed.id, before: image.key) }
            } else {
                lower = anchor.key
                upper = try tx.key(feedID: feed.id, after: anchor.key)
                if upper == image.key { upper = try tx.key(feedID: feed.id, after: image.key) }
            }
        case .index(let index):
            let count = try tx.imageCount(sectionID: image.sectionID)
            guard index >= 0 && index < count else {
                let section = try sectionName(image.sectionID)
                throw WaterfallError.indexOutsideSection(index: index, section: section, count: count, place: place)
            }
            let current = try tx.index(sectionID: image.sectionID, key: image.key)
            if index == current {
                unchanged += 1
                return
            }
            // The image now at `index` (counting the moving image itself) is the new neighbour.
            let neighbour = try tx.key(sectionID: image.sectionID, index: index)!
            if index < current {
                upper = neighbour
                lower = try tx.key(feedID: feed.id, before: neighbour)
            } else {
                lower = neighbour
                upper = try tx.key(feedID: feed.id, after: neighbour)
            }
        }
        let staysInPlace =
            sectionID == image.sectionID
            && (lower.map { $0 < image.key } ?? true) && (upper.map { image.key < $0 } ?? true)
        if staysInPlace {
            unchanged += 1
            return
        }
        try tx.deleteImages(feedID: feed.id, keys: [image.key])
        let allocation = try tx.allocateKeys(feedID: feed.id, count: 1, after: lower, before: upper)
        var moved = image
        moved.key = allocation.keys[0]
        moved.sectionID = sectionID
        try tx.insertImages(feedID: feed.id, [moved])
        touch(image.key)
        touch(moved.key)
        if let renumberedFrom = allocation.renumberedFrom {
            touch(renumberedFrom)
            renumbered.append((allocation.renumberedKeys, allocation.renumberedTo))
        }
        changes.append((.move, id, try sectionName(sectionID)))
        movedIDs.insert(ExactString(id))
    }

    /// Gives the listed images, in the listed order, the places the same images hold now
    /// (how a client persists a drag over what it showed). Places keep their sections, so an
    /// order list can move images across sections.
    mutating func applyOrder(_ ids: [String], place: String = "") throws {
        var images: [ImageRecord] = []
        images.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() {
            images.append(try image(id, place: "\(place)order[\(index)]: "))
        }
        let slots = images.map { (key: $0.key, sectionID: $0.sectionID) }.sorted { $0.key < $1.key }
        var rekeys: [(from: Int64, to: Int64, sectionID: Int64?)] = []
        for (index, (image, slot)) in zip(images, slots).enumerated() {
            try checkStaysInItsDateSection(image, to: slot.sectionID, place: "\(place)order[\(index)]: ")
            if image.key == slot.key {
                unchanged += 1
                continue
            }
            rekeys.append((image.key, slot.key, slot.sectionID))
            touch(slot.key)
            changes.append((.move, image.externalID, try sectionName(slot.sectionID)))
            movedIDs.insert(ExactString(image.externalID))
        }
        try tx.rekeyImages(feedID: feed.id, rekeys)
    }

    /// In a feed whose sections are made by date (DESIGN section 17), an image stays in the
    /// section its date gives it: a move into another one is refused (and the transaction with
    /// it, so nothing changes).
    private mutating func checkStaysInItsDateSection(_ image: ImageRecord, to sectionID: Int64, place: String) throws {
        guard let sectionBy = feed.sectionBy, sectionID != image.sectionID else { return }
        throw WaterfallError.moveAcrossDateSections(
            feed: feed.name, id: image.externalID, from: try sectionName(image.sectionID),
            to: try sectionName(sectionID),
            sectionBy: sectionBy, place: place)
    }

    /// Removes image `id`.
    mutating func remove(_ id: String, place: String = "") throws {
        let image = try image(id, place: place)
        try tx.deleteImages(feedID: feed.id, keys: [image.key])
        touch(image.key)
        changes.append((.remove, id, try sectionName(image.sectionID)))
        removed += 1
    }

    /// Drops sections left empty and undeclared, bumps the revision when anything changed,
    /// appends the change log, invalidates the cached layouts from the first affected key and
    /// brings the feed's views along (DESIGN section 20).
    mutating func finish() throws -> ChangeSummary {
        var summary = ChangeSummary(feed: feed.name, revision: feed.revision)
        summary.moved = movedIDs.count
        summary.removed = removed
        summary.unchanged = unchanged
        guard !changes.isEmpty else { return summary }
        try tx.deleteEmptyUndeclaredSections(feedID: feed.id)
        summary.revision = try tx.bumpRevision(feedID: feed.id)
        try tx.appendChanges(feedID: feed.id, revision: summary.revision, changes)
        if removed > 0 { try tx.adjustImageCount(feedID: feed.id, by: -removed) }
        try tx.invalidateLayouts(feedID: feed.id, fromKey: firstAffectedKey ?? OrderKeys.end)
        try ViewMembership.follow(feedID: feed.id, revision: summary.revision, renumbered: renumbered, tx)
        return summary
    }
}
