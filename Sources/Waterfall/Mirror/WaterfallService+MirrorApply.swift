import WaterfallStore
import WaterfallSync

/// Thrown inside a mirror's catch-up when the mirror cannot reach the source's state from the
/// lines it got (its feed is not where the catch-up starts, sections changed order, an image
/// named as a neighbour is missing): the transaction rolls back and the mirror lists the feed
/// again.
private struct MirrorNeedsListing: Error {}

extension WaterfallService {
    /// Writes a feed as its source listed it (DESIGN section 21): `head` and the image lines
    /// spooled at `linesAt`, in one transaction, replacing any feed of that name, and marks the
    /// catalog as a mirror of `source`. The feed's revision is the source's; its change log
    /// starts there (asking for changes before it answers as a pruned log does).
    /// - Throws: ``WaterfallError`` `invalidData` for a line the feed decoder refuses or fewer
    ///   or more lines than `totalItems`, or what the store throws; nothing is written then.
    public func writeMirrorListing(source: String, head: MirrorHead, linesAt path: String) async throws(WaterfallError)
    {
        try Self.validate(head, source: source)
        try await perform {
            try await database.write(.feed(head.feed)) { tx in
                var lines = try MirrorLines(path: path, source: source)
                try Self.checkMirrorTarget(source: source, tx)
                try tx.setMirrorSource(source)
                if let old = try tx.feed(named: head.feed) { try tx.deleteFeed(id: old.id) }
                var feed = try tx.createFeed(named: head.feed)
                try tx.setSectioning(feedID: feed.id, sectionBy: head.sectionBy, timeZone: head.timeZone)
                let sectionIDs = try Self.settleMirrorSections(head, feedID: feed.id, tx)
                var batch: [ImageRecord] = []
                var taken = 0
                var written = 0
                try tx.withBulkWriteMemory(pageCacheKiB: 4_096) {
                    try tx.insertImages(feedID: feed.id, count: head.totalItems) {
                        if taken == batch.count {
                            batch = try lines.next().map {
                                try $0.image.record(key: 0, sectionID: Self.id(of: $0.section, in: sectionIDs, source))
                            }
                            taken = 0
                            guard !batch.isEmpty else {
                                throw WaterfallError.invalidData(
                                    "\(source) listed \(written) images of feed \(head.feed.quoted), not the \(head.totalItems) its first line gives."
                                )
                            }
                        }
                        defer { (taken, written) = (taken + 1, written + 1) }
                        var record = batch[taken]
                        record.key = OrderKeys.spacing * Int64(written + 1)
                        return record
                    }
                }
                guard taken == batch.count, try lines.next().isEmpty else {
                    throw WaterfallError.invalidData(
                        "\(source) listed more images of feed \(head.feed.quoted) than the \(head.totalItems) its first line gives."
                    )
                }
                try tx.adjustImageCount(feedID: feed.id, by: head.totalItems)
                try tx.setRevision(feedID: feed.id, to: head.revision)
                if head.revision > 0 { _ = try tx.pruneChanges(feedID: feed.id, through: head.revision, limit: 0) }
                feed.revision = head.revision
                try Self.settleMirrorLayoutsAndViews(head, feed: feed, followed: [], tx)
                try tx.setMirroredFeed(feedID: feed.id, catalog: head.catalog, incarnation: head.incarnation)
            }
        }
    }

    /// Brings a mirror's feed from `head.since` to `head.revision` (DESIGN section 21) in one
    /// transaction: takes out every image the catch-up names, puts each image line back after
    /// its neighbour, settles sections, layouts and views, and appends the source's change log.
    /// Returns `false`, having written nothing, when the mirror must list the feed again (it is
    /// not at `since` of that incarnation, or the catch-up does not fit it).
    /// - Throws: ``WaterfallError`` as ``writeMirrorListing(source:head:linesAt:)``.
    public func writeMirrorCatchUp(source: String, head: MirrorHead, linesAt path: String) async throws(WaterfallError)
        -> Bool
    {
        try Self.validate(head, source: source)
        do {
            try await database.write(.feed(head.feed)) { tx in
                var lines = try MirrorLines(path: path, source: source)
                try Self.checkMirrorTarget(source: source, tx)
                guard var feed = try tx.feed(named: head.feed), feed.revision == head.since,
                    let held = try tx.mirroredFeed(feedID: feed.id), held.catalog == head.catalog,
                    held.incarnation == head.incarnation
                else { throw MirrorNeedsListing() }
                var placing = MirrorPlacing(feedID: feed.id)
                try placing.takeOut(head.removed, tx)
                let sectionIDs = try Self.settleMirrorSections(head, feedID: feed.id, tx)
                var index = 0
                while case let batch = try lines.next(), !batch.isEmpty {
                    guard index + batch.count <= head.after.count else { throw MirrorNeedsListing() }
                    let records = try batch.map {
                        try $0.image.record(key: 0, sectionID: Self.id(of: $0.section, in: sectionIDs, source))
                    }
                    try placing.takeOut(records.map(\.externalID), tx)
                    try placing.put(records, after: Array(head.after[index..<index + batch.count]), tx)
                    index += batch.count
                }
                guard index == head.after.count else { throw MirrorNeedsListing() }
                try placing.finish(tx)
                try tx.deleteEmptyUndeclaredSections(feedID: feed.id)
                guard try tx.sections(feedID: feed.id).count == head.sections.count else { throw MirrorNeedsListing() }
                if feed.sectionBy != head.sectionBy || feed.timeZone != head.timeZone {
                    try tx.setSectioning(feedID: feed.id, sectionBy: head.sectionBy, timeZone: head.timeZone)
                }
                let byRevision = Dictionary(grouping: head.changes, by: \.revision)
                for revision in byRevision.keys.sorted() where revision > head.since ?? 0 && revision <= head.revision {
                    try tx.appendChanges(
                        feedID: feed.id, revision: revision,
                        try byRevision[revision]!.map { change in
                            guard let kind = ChangeKind(rawValue: change.kind) else { throw MirrorNeedsListing() }
                            return (kind, change.id, change.section)
                        })
                }
                try tx.setRevision(feedID: feed.id, to: head.revision)
                guard try tx.feed(id: feed.id)?.imageCount == head.totalItems else { throw MirrorNeedsListing() }
                feed.revision = head.revision
                feed.sectionBy = head.sectionBy
                feed.timeZone = head.timeZone
                let since = head.since ?? 0
                let followed =
                    head.revision - since <= Self.mirrorFollowedRevisions
                    ? Array((since + 1)..<(head.revision + 1)) : [head.revision]
                try Self.settleMirrorLayoutsAndViews(
                    head, feed: feed, followed: followed, renumbered: placing.renumbered, tx)
            }
            return true
        } catch is MirrorNeedsListing {
            return false
        } catch {
            throw WaterfallError(error)
        }
    }

    /// Whether a catalog may follow `source`: one that mirrors it already, or one that holds no
    /// feed yet (a new file). Never an ordinary catalog with feeds of its own, or a mirror of
    /// another server: following would replace its feeds and lock it against writes.
    public func checkMirrorTarget(source: String) async throws(WaterfallError) {
        try await perform { try await database.read { tx in try Self.checkMirrorTarget(source: source, tx) } }
    }

    private static func checkMirrorTarget(source: String, _ tx: any CatalogTransaction) throws {
        if let current = try tx.mirrorSource() {
            guard current == source else {
                throw WaterfallError.cannotCreate(
                    "this catalog is a mirror of \(current), not of \(source); mirror \(source) into another file.")
            }
        } else if !(try tx.feeds().isEmpty) {
            throw WaterfallError.cannotCreate(
                "this catalog holds feeds of its own, so it cannot become a mirror of \(source); mirror into a new file."
            )
        }
    }

    /// Checks a head as a front end checks what it is given: the feed's name, the sections'
    /// names and titles, the date settings and the change log's rows.
    static func validate(_ head: MirrorHead, source: String) throws(WaterfallError) {
        try validateName(head.feed, .feedName)
        func refuse(_ what: String) -> WaterfallError {
            .invalidData("\(source) sent feed \(head.feed.quoted) with \(what).")
        }
        let limits = SyncLimits.default
        for section in head.sections {
            if let id = section.id, id.isEmpty || id.utf8.count > limits.sectionIdBytes {
                throw refuse("a section name of \(id.utf8.count) bytes")
            }
            if let title = section.title, title.utf8.count > limits.titleBytes {
                throw refuse("a section title of \(title.utf8.count) bytes")
            }
        }
        if let sectionBy = head.sectionBy, SectionBy(rawValue: sectionBy) == nil {
            throw refuse("sectionBy \(sectionBy.quoted)")
        }
        if let zone = head.timeZone, TimeZoneName.zone(named: zone) == nil { throw refuse("time zone \(zone.quoted)") }
        let since = head.since ?? head.revision
        for change in head.changes {
            guard change.revision > since, change.revision <= head.revision, ChangeKind(rawValue: change.kind) != nil,
                !change.id.isEmpty, change.id.utf8.count <= limits.idBytes
            else {
                throw refuse(
                    "a change-log row out of its bounds (revision \(change.revision), kind \(change.kind.quoted))")
            }
        }
    }

    /// The section id of a line's section, which the head must list.
    private static func id(of section: String?, in ids: [ExactString?: Int64], _ source: String) throws -> Int64 {
        guard let id = ids[section.map(ExactString.init)] else {
            throw WaterfallError.invalidData(
                "\(source) sent an image in section \(section.map(\.quoted) ?? "null") that its first line does not list."
            )
        }
        return id
    }

    /// Makes the feed's sections those of `head`, in its order, with its titles and declared
    /// flags: a section the feed lacks is added, one it has in another order than the source's
    /// means listing again. Sections the head does not list are left for the caller to find
    /// empty. Returns each section's id by name.
    private static func settleMirrorSections(_ head: MirrorHead, feedID: Int64, _ tx: any CatalogTransaction) throws
        -> [ExactString?: Int64]
    {
        let current = try tx.sections(feedID: feedID)
        var ids: [ExactString?: Int64] = [:]
        for section in current { ids[section.name.map(ExactString.init)] = section.id }
        let listed = Set(head.sections.map { $0.id.map(ExactString.init) })
        let keptInOrder = current.map { $0.name.map(ExactString.init) }.filter { listed.contains($0) }
        let headInOrder = head.sections.map { $0.id.map(ExactString.init) }.filter { ids[$0] != nil }
        guard keptInOrder == headInOrder else { throw MirrorNeedsListing() }
        var spare = (current.map(\.position).max() ?? 0) + 1
        for section in head.sections {
            let name = section.id.map(ExactString.init)
            if let id = ids[name], let old = current.first(where: { $0.id == id }) {
                if !old.title.isExactly(section.title) || old.isDeclared != section.declared {
                    var updated = old
                    updated.title = section.title
                    updated.isDeclared = section.declared
                    try tx.updateSection(updated)
                }
            } else {
                ids[name] = try tx.insertSection(
                    feedID: feedID, name: section.id, title: section.title, position: spare,
                    isDeclared: section.declared)
                spare += 1
            }
        }
        let order = head.sections.enumerated().map {
            (ids[$0.element.id.map(ExactString.init)]!, Int64($0.offset + 1) << 20)
        }
        let unlisted = current.filter { !listed.contains($0.name.map(ExactString.init)) }
        try tx.repositionSections(
            order + unlisted.enumerated().map { ($0.element.id, Int64(order.count + $0.offset + 1) << 20) })
        return ids
    }

    /// Makes the feed's named layouts and views those of `head` (each checked as a front end's
    /// would be), and brings the views that stay to the feed's revision, following the
    /// revisions in `followed`: a view whose rule changed is built anew; every view is when
    /// keys were renumbered.
    /// The most revisions a catch-up's views follow one by one; beyond, they are built anew.
    static let mirrorFollowedRevisions = 256

    private static func settleMirrorLayoutsAndViews(
        _ head: MirrorHead, feed: FeedRecord, followed: [Int64], renumbered: Bool = false,
        _ tx: any CatalogTransaction
    ) throws {
        let layouts = Dictionary(head.layouts.map { (ExactString($0.name), $0.json) }, uniquingKeysWith: { $1 })
        for layout in try tx.layouts(feedID: feed.id) where layouts[ExactString(layout.name)] == nil {
            _ = try tx.removeLayout(feedID: feed.id, name: layout.name)
        }
        for layout in head.layouts {
            try validateName(layout.name, .layoutName)
            let configuration = try AnyLayoutConfiguration.fromCanonicalJSON(layout.json)
            try configuration.validate()
            let record = NamedLayoutRecord(name: layout.name, configuration: configuration.canonicalJSON)
            if try tx.layout(feedID: feed.id, name: layout.name) != record {
                try tx.saveLayout(feedID: feed.id, record)
            }
        }
        var rules: [ExactString: ViewRule] = [:]
        for view in head.views {
            try validateViewName(view.name)
            rules[ExactString(view.name)] = try viewRule(
                json: Array(view.json.utf8), source: "view \(view.name.quoted)")
        }
        // A view follows the revisions written as on any write when they are every revision
        // since its own, and few; else (or when keys were renumbered) it is built anew, once.
        let since = feed.revision - Int64(followed.count)
        let follows =
            !renumbered && followed.count <= Self.mirrorFollowedRevisions
            && followed.elementsEqual((since + 1)..<(feed.revision + 1))
        var kept: Set<ExactString> = []
        for view in try tx.views(feedID: feed.id) {
            if follows, let rule = rules[ExactString(view.name)], rule.canonicalJSON == view.rule {
                kept.insert(ExactString(view.name))
            } else {
                _ = try tx.removeView(feedID: feed.id, name: view.name)
            }
        }
        for revision in followed { try ViewMembership.follow(feedID: feed.id, revision: revision, tx) }
        for view in head.views where !kept.contains(ExactString(view.name)) {
            try ViewMembership.build(view.name, rule: rules[ExactString(view.name)]!, of: feed, tx)
        }
    }
}

/// Where a mirror's catch-up takes images out and puts them back (DESIGN section 21): each
/// image line goes after its neighbour at the source, a run of lines that follow each other
/// into one gap of keys, which is renumbered when too narrow.
private struct MirrorPlacing {
    let feedID: Int64
    /// The keys of the images put back so far, by id.
    private var placed: [ExactString: Int64] = [:]
    /// The smallest key taken out, given or renumbered: the cached layouts are invalid from it.
    private var firstKey: Int64?
    private var countDelta = 0
    /// Whether putting images back renumbered any (every view is then built anew).
    private(set) var renumbered = false

    init(feedID: Int64) {
        self.feedID = feedID
    }

    private mutating func touch(_ key: Int64) { firstKey = min(firstKey ?? key, key) }

    /// Takes out the images of these ids that the feed holds.
    mutating func takeOut(_ ids: [String], _ tx: any CatalogTransaction) throws {
        guard !ids.isEmpty else { return }
        let rows = try tx.images(feedID: feedID, externalIDs: ids)
        guard !rows.isEmpty else { return }
        try tx.deleteImages(feedID: feedID, keys: rows.map(\.key))
        for row in rows { touch(row.key) }
        countDelta -= rows.count
    }

    /// Puts `records` back, each after the image `after` names (`nil`: first of the feed).
    mutating func put(_ records: [ImageRecord], after: [String?], _ tx: any CatalogTransaction) throws {
        var start = 0
        while start < records.count {
            var end = start + 1
            while end < records.count, let previous = after[end], previous.isExactly(records[end - 1].externalID) {
                end += 1
            }
            let lower: Int64?
            if let neighbour = after[start] {
                if let key = placed[ExactString(neighbour)] {
                    lower = key
                } else if let row = try tx.image(feedID: feedID, externalID: neighbour) {
                    lower = row.key
                } else {
                    throw MirrorNeedsListing()
                }
            } else {
                lower = nil
            }
            let upper =
                if let lower { try tx.key(feedID: feedID, after: lower) } else {
                    try tx.keys(feedID: feedID, atOrAbove: Int64.min, limit: 1).first
                }
            let allocation = try tx.allocateKeys(feedID: feedID, count: end - start, after: lower, before: upper)
            if !allocation.renumberedKeys.isEmpty {
                renumbered = true
                let moved = Dictionary(
                    zip(allocation.renumberedKeys, allocation.renumberedTo), uniquingKeysWith: { $1 })
                for (id, key) in placed { if let to = moved[key] { placed[id] = to } }
            }
            if let from = allocation.renumberedFrom { touch(from) }
            var run: [ImageRecord] = []
            for (offset, key) in allocation.keys.enumerated() {
                var record = records[start + offset]
                record.key = key
                placed[ExactString(record.externalID)] = key
                touch(key)
                run.append(record)
            }
            try tx.insertImages(feedID: feedID, run)
            countDelta += run.count
            start = end
        }
    }

    /// Adjusts the feed's count and invalidates its cached layouts from the first key touched.
    func finish(_ tx: any CatalogTransaction) throws {
        if countDelta != 0 { try tx.adjustImageCount(feedID: feedID, by: countDelta) }
        if let firstKey { try tx.invalidateLayouts(feedID: feedID, fromKey: firstKey) }
    }
}

extension WaterfallService {
    /// The source's incarnation and the revision of the mirror's feed `name`, or `nil` when the
    /// mirror does not hold it.
    public func mirroredVersion(of name: String) async throws(WaterfallError) -> FeedVersion? {
        try await perform {
            try await database.read { tx in
                guard let feed = try tx.feed(named: name), let held = try tx.mirroredFeed(feedID: feed.id) else {
                    return nil
                }
                return FeedVersion(incarnation: held.incarnation, revision: feed.revision)
            }
        }
    }

    /// Removes a feed of the mirror that its source no longer has (nothing when there is none).
    public func removeMirroredFeed(named name: String) async throws(WaterfallError) {
        try await perform {
            try await database.write(.feed(name)) { tx in
                if let feed = try tx.feed(named: name), try tx.mirroredFeed(feedID: feed.id) != nil {
                    try tx.deleteFeed(id: feed.id)
                }
            }
        }
    }
}
