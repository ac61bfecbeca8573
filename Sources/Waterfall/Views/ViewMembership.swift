import WaterfallStore
import WaterfallSync

/// Keeps each view's membership (DESIGN section 20): a feed of its own holding a copy of each
/// image of its feed that matches the view's rule, at the same order key, in a copy of each of
/// the feed's sections that has a match. Every query a feed answers runs on a membership
/// unchanged (its pages, viewports, indexes, listings, change log and layout cache are a feed's),
/// so a view answers exactly as its images alone would.
///
/// A membership is built whole when its view is saved, and followed in the transaction of every
/// write to its feed, from the change log of the revision written: each image that revision
/// names is read once from the feed and from the membership, and leaves, enters, moves or is
/// rewritten in it; the change log of the membership names exactly those (an image entering is
/// an `insert`, one leaving a `remove`). Keys the feed renumbered to make room for a move are
/// renumbered alike. A revision of more than ``followLimit`` changes, a feed renumbered whole,
/// or a rule that reads differently now (its local dates in a feed whose time zone changed)
/// builds the membership anew, as another incarnation: clients holding its tags, cursors or
/// streams are told, as for a feed made anew (DESIGN section 19).
enum ViewMembership {
    /// The most changes one revision may make for its views to follow it; beyond, each view is
    /// built anew from the feed.
    static let followLimit = 50_000
    /// Images read from the feed at a time while a membership is built.
    static let buildBatch = 10_000

    /// The membership's name in the catalog: no feed can be given it (a feed's name holds no
    /// control character), and no lookup by name finds it.
    static func name(feedID: Int64, view: String) -> String {
        "\u{1F}view \(feedID) \(view)"
    }

    /// Builds `view`'s membership of `feed` (at its current revision) and saves the view.
    @discardableResult
    static func build(
        _ view: String, rule: ViewRule, of feed: FeedRecord, _ tx: any CatalogTransaction
    ) throws -> ViewRecord {
        let matcher = try ViewMatcher(rule, feed: feed)
        let membership = try tx.createFeed(named: name(feedID: feed.id, view: view), viewOf: feed.id)
        try tx.setSectioning(feedID: membership.id, sectionBy: feed.sectionBy, timeZone: feed.timeZone)
        var sections = SectionCopies(feed: try tx.sections(feedID: feed.id), membership: [])
        var count = 0
        var from = Int64.min
        while true {
            let rows = try tx.images(feedID: feed.id, fromKey: from, limit: buildBatch)
            var copies: [ImageRecord] = []
            for row in rows where matcher.matches(row, section: sections.feedSection(row.sectionID)?.name) {
                var copy = row
                copy.sectionID = try sections.copy(of: row.sectionID, into: membership.id, tx)
                copies.append(copy)
            }
            if !copies.isEmpty { try tx.insertImages(feedID: membership.id, copies) }
            count += copies.count
            guard rows.count == buildBatch, let last = rows.last?.key, last < Int64.max else { break }
            from = last + 1
        }
        try tx.adjustImageCount(feedID: membership.id, by: count)
        try tx.setRevision(feedID: membership.id, to: feed.revision)
        if feed.revision > 0 { try tx.appendInsertChangesForWholeFeed(feedID: membership.id, revision: feed.revision) }
        let record = ViewRecord(
            feedID: feed.id, name: view, rule: rule.canonicalJSON, membershipID: membership.id,
            resolved: matcher.resolved)
        try tx.saveView(record)
        return record
    }

    /// Brings every view of feed `feedID` to `revision`, just written in this transaction with
    /// its change log. `renumbered` are the keys the write renumbered, in order (before and
    /// after); `renewedKeys` says the feed was renumbered whole (every view is built anew).
    static func follow(
        feedID: Int64, revision: Int64, renumbered: [(from: [Int64], to: [Int64])] = [], renewedKeys: Bool = false,
        _ tx: any CatalogTransaction
    ) throws {
        let views = try tx.views(feedID: feedID)
        guard !views.isEmpty, let feed = try tx.feed(id: feedID) else { return }
        let changeCount = try tx.changeCounts(feedID: feedID, revision: revision).values.reduce(0, +)
        let rebuildsAll = renewedKeys || changeCount > followLimit
        var reads: FeedReads?
        for view in views {
            let rule = try WaterfallService.rule(of: view)
            let matcher = try ViewMatcher(rule, feed: feed)
            let membership = try tx.feed(id: view.membershipID)
            guard let membership, !rebuildsAll, matcher.resolved == view.resolved,
                membership.revision == revision - 1
            else {
                if let membership { try tx.deleteFeed(id: membership.id) }
                try build(view.name, rule: rule, of: feed, tx)
                continue
            }
            if reads == nil { reads = try FeedReads(feed, revision: revision, tx) }
            try follow(membership, of: feed, matcher, reads!, renumbered: renumbered, revision: revision, tx)
        }
    }

    /// What every view of a feed reads of it to follow one revision: read once.
    private struct FeedReads {
        /// The images the revision names, each once, in the log's order.
        var ids: [String] = []
        /// Their rows now, by id (absent: removed).
        var rows: [String: ImageRecord] = [:]
        var sections: [SectionRecord]

        init(_ feed: FeedRecord, revision: Int64, _ tx: any CatalogTransaction) throws {
            var seen = Set<[UInt8]>()
            for change in try tx.changes(feedID: feed.id, since: revision - 1, through: revision)
            where seen.insert(Array(change.externalID.utf8)).inserted {
                ids.append(change.externalID)
            }
            for start in stride(from: 0, to: ids.count, by: 1_000) {
                for row in try tx.images(
                    feedID: feed.id, externalIDs: Array(ids[start..<min(ids.count, start + 1_000)]))
                {
                    rows[row.externalID] = row
                }
            }
            sections = try tx.sections(feedID: feed.id)
        }
    }

    private static func follow(
        _ membership: FeedRecord, of feed: FeedRecord, _ matcher: ViewMatcher, _ reads: FeedReads,
        renumbered: [(from: [Int64], to: [Int64])], revision: Int64, _ tx: any CatalogTransaction
    ) throws {
        var sections = SectionCopies(feed: reads.sections, membership: try tx.sections(feedID: membership.id))
        var sectionsChanged = try sections.align(membership.id, tx)
        var current: [String: ImageRecord] = [:]
        for start in stride(from: 0, to: reads.ids.count, by: 1_000) {
            let ids = Array(reads.ids[start..<min(reads.ids.count, start + 1_000)])
            for row in try tx.images(feedID: membership.id, externalIDs: ids) { current[row.externalID] = row }
        }
        var removals: [Int64] = []
        var copies: [ImageRecord] = []
        var changes: [(kind: ChangeKind, externalID: String, section: String?)] = []
        var firstKey = Int64.max
        for id in reads.ids {
            let old = current[id]
            let row = reads.rows[id].flatMap { row in
                matcher.matches(row, section: sections.feedSection(row.sectionID)?.name) ? row : nil
            }
            var copy: ImageRecord?
            if let row {
                var made = row
                let before = sections.count
                made.sectionID = try sections.copy(of: row.sectionID, into: membership.id, tx)
                if sections.count != before { sectionsChanged = true }
                copy = made
            }
            if let old, let copy, old.isExactly(copy) { continue }
            if let old {
                removals.append(old.key)
                firstKey = min(firstKey, old.key)
            }
            if let copy {
                copies.append(copy)
                firstKey = min(firstKey, copy.key)
            }
            switch (old, copy) {
            case (nil, let copy?):
                changes.append((.insert, id, sections.name(of: copy.sectionID)))
            case (let old?, nil):
                changes.append((.remove, id, sections.name(of: old.sectionID)))
            case (let old?, let copy?):
                let moved =
                    old.key != copy.key
                    || !sections.name(of: old.sectionID).isExactly(sections.name(of: copy.sectionID))
                changes.append((moved ? .move : .update, id, sections.name(of: copy.sectionID)))
            case (nil, nil):
                break
            }
        }
        try tx.deleteImages(feedID: membership.id, keys: removals)
        // The feed's renumbering, replayed on the images that stayed (those of the revision
        // were taken out above and are put back at their keys now).
        for batch in renumbered where !batch.from.isEmpty {
            try tx.rekeyImages(feedID: membership.id, zip(batch.from, batch.to).map { ($0, $1, nil) })
            firstKey = min(firstKey, batch.from.min()!, batch.to.min()!)
        }
        copies.sort { $0.key < $1.key }
        if !copies.isEmpty { try tx.insertImages(feedID: membership.id, copies) }
        try tx.adjustImageCount(feedID: membership.id, by: copies.count - removals.count)
        if try sections.dropEmpty(Set(current.values.map(\.sectionID)), tx) { sectionsChanged = true }
        if membership.sectionBy != feed.sectionBy || membership.timeZone != feed.timeZone {
            try tx.setSectioning(feedID: membership.id, sectionBy: feed.sectionBy, timeZone: feed.timeZone)
            sectionsChanged = true
        }
        try tx.setRevision(feedID: membership.id, to: revision)
        try tx.appendChanges(feedID: membership.id, revision: revision, changes)
        if sectionsChanged {
            try tx.invalidateLayouts(feedID: membership.id, fromKey: Int64.min)
        } else if firstKey < Int64.max {
            try tx.invalidateLayouts(feedID: membership.id, fromKey: firstKey)
        }
    }
}

/// A membership's sections: a copy of each of the feed's sections that has a match, with the
/// feed section's name, title, position and declared flag.
private struct SectionCopies {
    private var feedSections: [Int64: SectionRecord]
    /// The feed's sections in order.
    private let feedOrder: [SectionRecord]
    /// The membership's sections by id, and by name (as bytes; `nil`: the unnamed section).
    private var copies: [Int64: SectionRecord] = [:]
    private var copyByName: [[UInt8]?: Int64] = [:]
    /// The copies whose section the feed no longer has (found by ``align(_:_:)``).
    private var vanished: Set<Int64> = []

    init(feed: [SectionRecord], membership: [SectionRecord]) {
        feedOrder = feed
        feedSections = Dictionary(uniqueKeysWithValues: feed.map { ($0.id, $0) })
        for section in membership {
            copies[section.id] = section
            copyByName[section.name.map { Array($0.utf8) }] = section.id
        }
    }

    var count: Int { copies.count }

    func feedSection(_ id: Int64) -> SectionRecord? { feedSections[id] }

    /// The name of a membership's section.
    func name(of id: Int64) -> String? { copies[id]?.name }

    /// The membership's copy of the feed's section `id`, made when it has none.
    mutating func copy(of id: Int64, into membershipID: Int64, _ tx: any CatalogTransaction) throws -> Int64 {
        guard let section = feedSections[id] else {
            throw WaterfallError.database("an image of the catalog names a section its feed does not have.")
        }
        let name = section.name.map { Array($0.utf8) }
        if let copy = copyByName[name] { return copy }
        let copy = try tx.insertSection(
            feedID: membershipID, name: section.name, title: section.title, position: section.position,
            isDeclared: section.isDeclared)
        copies[copy] = SectionRecord(
            id: copy, name: section.name, title: section.title, position: section.position,
            isDeclared: section.isDeclared)
        copyByName[name] = copy
        return copy
    }

    /// Gives each copy its feed section's title, position and flag; a copy whose section the
    /// feed no longer has is put after every other (it is emptied and dropped by this follow).
    /// Returns whether anything changed.
    mutating func align(_ membershipID: Int64, _ tx: any CatalogTransaction) throws -> Bool {
        let byName = Dictionary(
            feedOrder.map { ($0.name.map { Array($0.utf8) }, $0) }, uniquingKeysWith: { first, _ in first })
        var past = (feedOrder.map(\.position).max() ?? 0) + 1
        var positions: [(id: Int64, position: Int64)] = []
        var changed = false
        var moved = false
        for (id, copy) in copies.sorted(by: { $0.value.position < $1.value.position }) {
            var wanted = copy
            if let section = byName[copy.name.map { Array($0.utf8) }] {
                wanted.title = section.title
                wanted.position = section.position
                wanted.isDeclared = section.isDeclared
            } else {
                wanted.position = past
                past += 1
                vanished.insert(id)
            }
            positions.append((id, wanted.position))
            if wanted.position != copy.position { moved = true }
            if !wanted.title.isExactly(copy.title) || wanted.isDeclared != copy.isDeclared {
                try tx.updateSection(
                    SectionRecord(
                        id: id, name: copy.name, title: wanted.title, position: copy.position,
                        isDeclared: wanted.isDeclared))
                changed = true
            }
            copies[id] = wanted
        }
        if moved { try tx.repositionSections(positions) }
        return changed || moved
    }

    /// Drops the copies among `candidates` (those that lost images, and those whose section the
    /// feed no longer has) left without images; whether any was. One indexed look each.
    mutating func dropEmpty(_ candidates: Set<Int64>, _ tx: any CatalogTransaction) throws -> Bool {
        var dropped = false
        for id in candidates.union(vanished) where copies[id] != nil {
            guard try tx.key(sectionID: id, index: 0) == nil else { continue }
            try tx.deleteSection(id: id)
            if let name = copies.removeValue(forKey: id)?.name {
                copyByName[Array(name.utf8)] = nil
            } else {
                copyByName[nil] = nil
            }
            dropped = true
        }
        return dropped
    }
}
