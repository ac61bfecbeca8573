import Foundation
import WaterfallStore
import WaterfallSync

extension WaterfallService {
    /// Options of an import.
    public struct ImportOptions: Hashable, Sendable {
        /// The feed's name when the file has no `feed` field (`--feed`).
        public var feedName: String?
        public var mode: ImportMode
        /// Drop user reorders and adopt the file's order (snapshot imports only).
        public var resetOrder: Bool
        /// Sections by date (`--section-by`), over the file's `sectionBy` and the feed's own.
        public var sectionBy: SectionBy?
        /// The time zone of date sections (`--time-zone`, an IANA name), over the file's
        /// `timeZone` and the feed's own.
        public var timeZone: String?

        public init(
            feedName: String? = nil, mode: ImportMode = .snapshot, resetOrder: Bool = false,
            sectionBy: SectionBy? = nil, timeZone: String? = nil
        ) {
            self.feedName = feedName
            self.mode = mode
            self.resetOrder = resetOrder
            self.sectionBy = sectionBy
            self.timeZone = timeZone
        }
    }

    /// Reads, validates and imports the feed file at `path` (`-` for standard input).
    ///
    /// The feed's name is the file's `feed` field, else `options.feedName`, else the file's
    /// name without its extension. The whole file is validated before anything is written, and
    /// everything is written in one transaction: a rejected file changes nothing.
    /// - Parameter progress: told where a long import is: reading the file (every few
    ///   megabytes), writing its rows (every 50,000), rebuilding indexes.
    /// - Throws: ``WaterfallError``: `invalidData` for a bad file, `fileUnreadable` for a
    ///   missing one, `usage` for contradicting options, `database` when writing fails.
    public func importFeed(
        contentsOf path: String, options: ImportOptions, progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws(WaterfallError) -> ChangeSummary {
        if options.resetOrder && options.mode == .append {
            throw WaterfallError.conflictingValues(.resetOrder, .appendMode)
        }
        var decoder = FeedDecoder()
        if let progress {
            decoder.progress = { bytes, total in progress(.reading(bytes: bytes, totalBytes: total)) }
        }
        let document = try performNow { try decoder.decode(contentsOf: path, format: FeedFormat(path: path)) }
        var fileName: String?
        if path != "-" {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            fileName =
                base.split(separator: ".", omittingEmptySubsequences: false).count > 1
                ? base.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
                : base
        }
        guard let name = document.feed ?? options.feedName ?? fileName else {
            throw WaterfallError.feedNameMissing
        }
        return try await importFeed(document, named: name, options: options, progress: progress)
    }

    /// Imports an already decoded feed under `name` (DESIGN section 4), in one transaction.
    /// Importing the same document twice changes nothing the second time.
    public func importFeed(
        _ document: FeedDocument, named name: String, options: ImportOptions,
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) async throws(WaterfallError) -> ChangeSummary {
        try Self.validateName(name, .feedName)
        if options.resetOrder && options.mode == .append {
            throw WaterfallError.conflictingValues(.resetOrder, .appendMode)
        }
        if let zone = options.timeZone, TimeZoneName.zone(named: zone) == nil {
            throw WaterfallError.invalidValue(
                .timeZone, "must be an IANA time zone name such as Europe/Paris or UTC, got \(zone.quoted).")
        }
        return try await perform {
            try await writeContent(.feed(name)) { tx in
                var created = false
                let feed: FeedRecord
                let existing = try tx.feed(named: name)
                try checkExpectedRevision(of: existing, named: name)
                if let existing {
                    feed = existing
                } else {
                    feed = try tx.createFeed(named: name)
                    created = true
                }
                let dates = try Self.dateSections(options: options, document: document, feed: feed).map { sections in
                    (sections: sections, derived: sections.derive(document.images))
                }
                func applier(over catalog: CatalogSnapshot) -> ImportApplier {
                    let plan = ImportPlanner.plan(
                        catalog: catalog, document: document, mode: options.mode, resetOrder: options.resetOrder,
                        dates: dates)
                    return ImportApplier(
                        tx: tx, feed: feed, catalog: catalog, document: document, plan: plan, progress: progress)
                }
                // An append into date sections plans against the images it can move or sit
                // beside, not the whole feed; a gap too narrow for it renumbers the whole feed,
                // which only a plan of the whole feed can do.
                let datedAppend = options.mode == .append && feed.imageCount > 0 ? dates?.derived : nil
                var planned = applier(
                    over: try datedAppend.map {
                        try CatalogSnapshot.touchedByAppend(to: feed, of: document, derived: $0, tx)
                    }
                        ?? CatalogSnapshot.whole(feed, tx))
                if datedAppend != nil && planned.renumbers {
                    planned = applier(over: try CatalogSnapshot.whole(feed, tx))
                }
                var summary = try tx.withBulkWriteMemory(pageCacheKiB: 4_096) {
                    try planned.apply(feedCreated: created)
                }
                let sectionBy = dates?.sections.sectionBy.rawValue
                let zone = dates?.sections.zoneName
                if feed.sectionBy != sectionBy || feed.timeZone != zone {
                    try tx.setSectioning(feedID: feed.id, sectionBy: sectionBy, timeZone: zone)
                }
                summary.sectionFieldsIgnored = dates?.derived.sectionFieldsIgnored
                return summary
            }
        }
    }
}

extension WaterfallService {
    /// The date sections an import makes (DESIGN section 17), `nil` for the feed's own: the
    /// option, else the file's `sectionBy`, else what the feed remembers; the zone likewise,
    /// else UTC. A zone given where no date sections are made is refused rather than ignored.
    static func dateSections(options: ImportOptions, document: FeedDocument, feed: FeedRecord) throws -> DateSections? {
        let sectionBy =
            options.sectionBy ?? document.sectionBy ?? feed.sectionBy.flatMap(SectionBy.init(rawValue:))
            ?? .feedSections
        guard sectionBy != .feedSections else {
            if let zone = options.timeZone {
                throw WaterfallError.invalidValue(
                    .timeZone, "\(zone.quoted) needs date sections: give a section-by of day, month or year too.")
            }
            if let zone = document.timeZone {
                throw WaterfallError.invalidData(
                    "timeZone: \(zone.quoted) needs date sections: give sectionBy \"day\", \"month\" or \"year\" too.")
            }
            return nil
        }
        let zone = options.timeZone ?? document.timeZone ?? feed.timeZone ?? "UTC"
        guard let sections = DateSections(sectionBy: sectionBy, zoneName: zone) else {
            throw WaterfallError.invalidValue(
                .timeZone, "must be an IANA time zone name such as Europe/Paris or UTC, got \(zone.quoted).")
        }
        return sections
    }
}

/// Writes an ``ImportPlan`` inside the caller's transaction, one phase a step: sections, removals,
/// moves and updates, inserts, section order, then the revision with its change log and the
/// cache invalidation. Rows that do not change are not written. The keys are allocated first,
/// when it is made, so that a caller knows whether the plan renumbers the feed.
struct ImportApplier {
    let tx: any CatalogTransaction
    let feed: FeedRecord
    let catalog: CatalogSnapshot
    let document: FeedDocument
    let plan: ImportPlan
    var progress: (@Sendable (ImportProgress) -> Void)?

    // What the phases build up.
    private var summary: ChangeSummary
    private var changes: [(kind: ChangeKind, externalID: String, section: String?)] = []
    /// The first order key whose layout the import changes (the cache is invalidated from it).
    private var firstAffectedKey: Int64?
    /// The catalog id of each planned section.
    private var sectionIDs: [Int64] = []
    /// The order key of each planned image.
    private var keys: [Int64] = []
    /// Whether a gap was too narrow and the whole feed got new keys.
    private var renumbered = false
    private var rekeys: [(from: Int64, to: Int64, sectionID: Int64?)] = []
    private var updates: [ImageRecord] = []
    /// Into an empty feed (a first import), the change log is written by one statement at the end.
    private var isFirstImport: Bool { catalog.images.isEmpty }

    init(
        tx: any CatalogTransaction, feed: FeedRecord, catalog: CatalogSnapshot, document: FeedDocument,
        plan: ImportPlan,
        progress: (@Sendable (ImportProgress) -> Void)?
    ) {
        self.tx = tx
        self.feed = feed
        self.catalog = catalog
        self.document = document
        self.plan = plan
        self.progress = progress
        summary = ChangeSummary(feed: feed.name, revision: feed.revision)
        allocateKeysKeepingKeptImagesKeys()
    }

    /// Whether a gap between kept images is too narrow for the images placed in it, so that
    /// the whole feed gets new keys (known before anything is written).
    var renumbers: Bool { renumbered }

    mutating func apply(feedCreated: Bool) throws -> ChangeSummary {
        try createNewSections()
        try removeAbsentImages()
        classifyExistingAndNewImages()
        try writeImages()
        try settleSections()
        let changed = feedCreated || !changes.isEmpty || summary.inserted > 0 || plan.sectionsChanged || renumbered
        if changed { try commitRevision() }
        return summary
    }

    private mutating func touch(_ key: Int64) { firstAffectedKey = min(firstAffectedKey ?? key, key) }

    /// Sections the import creates, with temporary positions until ``settleSections()``.
    private mutating func createNewSections() throws {
        sectionIDs = plan.sections.map { $0.existing?.id ?? 0 }
        for (index, section) in plan.sections.enumerated() where section.existing == nil {
            sectionIDs[index] = try tx.insertSection(
                feedID: feed.id, name: section.name, title: section.title,
                position: Int64.min + Int64(index), isDeclared: section.isDeclared)
        }
    }

    private mutating func removeAbsentImages() throws {
        let sectionNames = catalog.sections.namesByID
        for index in plan.removed {
            let image = catalog.images[index]
            touch(image.key)
            changes.append((.remove, image.externalID, sectionNames[image.sectionID] ?? nil))
        }
        try tx.deleteImages(feedID: feed.id, keys: plan.removed.map { catalog.images[$0].key })
        summary.removed = plan.removed.count
    }

    /// Kept images keep their keys; each run of placed images shares the gap between its two
    /// kept neighbours. When a gap is too narrow, the whole feed is renumbered.
    private mutating func allocateKeysKeepingKeptImagesKeys() {
        var keys = [Int64](repeating: 0, count: plan.entries.count)
        var renumber = false
        var lower: Int64 = 0
        var runStart = 0
        func fill(_ run: Range<Int>, below upper: Int64?) {
            guard !run.isEmpty, !renumber else { return }
            guard let spread = OrderKeys.spread(count: run.count, after: lower, before: upper) else {
                renumber = true
                return
            }
            for (entry, key) in zip(run, spread) { keys[entry] = key }
        }
        for (index, entry) in plan.entries.enumerated() where entry.keepsKey {
            guard case .existing(let catalogIndex) = entry.source else { continue }
            let key = catalog.images[catalogIndex].key
            fill(runStart..<index, below: key)
            keys[index] = key
            lower = key
            runStart = index + 1
        }
        fill(runStart..<plan.entries.count, below: nil)
        if renumber {
            keys = OrderKeys.fresh(count: plan.entries.count)
            firstAffectedKey = Int64.min
        }
        self.keys = keys
        renumbered = renumber
    }

    /// Counts every image of the final order as inserted, moved, updated or unchanged, and
    /// collects the rows to re-key and to rewrite.
    private mutating func classifyExistingAndNewImages() {
        for (index, entry) in plan.entries.enumerated() {
            let sectionName = plan.sections[entry.section].name
            switch entry.source {
            case .new:
                touch(keys[index])
                if !isFirstImport { changes.append((.insert, document.images[entry.document!].id, sectionName)) }
                summary.inserted += 1
            case .existing(let catalogIndex):
                classifyExisting(catalog.images[catalogIndex], entry: entry, at: index, sectionName: sectionName)
            }
        }
    }

    /// "Existing images get the new sizes, url and title but keep their place" (unless placed
    /// anew: a move).
    private mutating func classifyExisting(
        _ current: ImageRecord, entry: ImportPlan.Entry, at index: Int, sectionName: String?
    ) {
        let sectionID = sectionIDs[entry.section]
        if current.key != keys[index] || current.sectionID != sectionID {
            rekeys.append((current.key, keys[index], sectionID))
        }
        let isMoved = !entry.keepsKey
        if isMoved {
            touch(current.key)
            touch(keys[index])
            changes.append((.move, current.externalID, sectionName))
            summary.moved += 1
        }
        let fileImage = entry.document.map { document.images[$0] }
        var updated = current
        if let fileImage {
            updated.width = fileImage.width
            updated.height = fileImage.height
            updated.isFullSpan = fileImage.span == .full
            updated.url = fileImage.url
            updated.title = fileImage.title
            updated.takenAt = fileImage.takenAt
            updated.placeholder = fileImage.placeholder
            updated.color = fileImage.color
            updated.renditions = fileImage.renditions?.storedText
            updated.tags = ImageTags.storedText(fileImage.tags)
        }
        if !updated.isExactly(current) {
            if updated.width != current.width || updated.height != current.height
                || updated.isFullSpan != current.isFullSpan
            {
                touch(keys[index])
                touch(current.key)
            }
            updated.key = keys[index]
            updates.append(updated)
            changes.append((.update, current.externalID, sectionName))
            if !isMoved { summary.updated += 1 }
        } else if !isMoved && fileImage != nil {
            summary.unchanged += 1
        }
    }

    /// Re-keys moved rows, inserts the new ones in final order, rewrites updated ones.
    ///
    /// New rows are made a batch at a time: the batch's images are read in file order, each
    /// record put at its place in the batch. In date order the file's images come in an order
    /// of their own, and reading a million records (and their strings) at scattered places, one
    /// between two row inserts, waits on memory at each; read in file order, they stream.
    private func writeImages() throws {
        try tx.rekeyImages(feedID: feed.id, rekeys)
        var nextEntry = 0
        var written = 0
        let total = summary.inserted
        let (plan, keys, sectionIDs, document, progress) = (plan, keys, sectionIDs, document, progress)
        // The batch: records made but not yet written are `batch[nextInBatch..<batchCount]`;
        // each is moved out as it is written, not copied.
        let batch = UnsafeMutablePointer<ImageRecord>.allocate(capacity: Self.batchSize)
        var batchCount = 0
        var nextInBatch = 0
        defer {
            (batch + nextInBatch).deinitialize(count: batchCount - nextInBatch)
            batch.deallocate()
        }
        var places: [(document: Int, entry: Int)] = []
        var fileOrder: [UInt64] = []
        func makeBatch() {
            places.removeAll(keepingCapacity: true)
            while places.count < Self.batchSize, nextEntry < plan.entries.count {
                if case .new(let documentIndex) = plan.entries[nextEntry].source {
                    places.append((documentIndex, nextEntry))
                }
                nextEntry += 1
            }
            // File order: one sort of plain numbers, the document index above the place.
            fileOrder.removeAll(keepingCapacity: true)
            for (place, entry) in places.enumerated() { fileOrder.append(UInt64(entry.document) << 32 | UInt64(place)) }
            fileOrder.sort()
            for packed in fileOrder {
                let place = Int(packed & 0xFFFF_FFFF)
                let (documentIndex, entryIndex) = places[place]
                let image = document.images[documentIndex]
                (batch + place).initialize(
                    to: image.record(key: keys[entryIndex], sectionID: sectionIDs[plan.entries[entryIndex].section]))
            }
            precondition(!places.isEmpty, "the store asked for more rows than the plan inserts")
            (batchCount, nextInBatch) = (places.count, 0)
        }
        try tx.insertImages(
            feedID: feed.id, count: total, beforeIndexing: progress.map { report in { report(.indexing) } }
        ) {
            if let progress, written % 50_000 == 0 { progress(.writing(rows: written, totalRows: total)) }
            written += 1
            if nextInBatch == batchCount { makeBatch() }
            defer { nextInBatch += 1 }
            return (batch + nextInBatch).move()
        }
        try tx.updateImages(feedID: feed.id, updates)
    }

    /// New rows made at a time by ``writeImages()``: a batch's records and strings stay in the
    /// processor's cache until they are written.
    private static let batchSize = 4_096

    /// Drops the catalog's sections the plan does not keep, renumbers positions, stores titles
    /// and declared flags; when sections changed, headers and footers move from the first
    /// section that differs on.
    private mutating func settleSections() throws {
        let keptIDs = Set(plan.sections.compactMap { $0.existing?.id })
        for section in catalog.sections where !keptIDs.contains(section.id) {
            try tx.deleteSection(id: section.id)
        }
        let positions = plan.sections.indices.map { Int64($0 + 1) << 20 }
        let needsRepositioning = plan.sections.enumerated().contains { index, section in
            section.existing?.position != positions[index]
        }
        if needsRepositioning {
            try tx.repositionSections(plan.sections.indices.map { (sectionIDs[$0], positions[$0]) })
        }
        for (index, section) in plan.sections.enumerated() {
            guard let existing = section.existing else { continue }
            if !existing.title.isExactly(section.title) || existing.isDeclared != section.isDeclared {
                try tx.updateSection(
                    SectionRecord(
                        id: existing.id, name: existing.name, title: section.title,
                        position: positions[index], isDeclared: section.isDeclared))
            }
        }
        guard plan.sectionsChanged else { return }
        let firstChanged =
            zip(plan.sections.indices, plan.sections).first { index, section in
                index >= catalog.sections.count || section.existing?.id != catalog.sections[index].id
            }?.0 ?? min(plan.sections.count, catalog.sections.count)
        if let entry = plan.entries.firstIndex(where: { $0.section >= firstChanged }) { touch(keys[entry]) }
        let oldIDs = Set(catalog.sections.dropFirst(firstChanged).map(\.id))
        if let image = catalog.images.first(where: { oldIDs.contains($0.sectionID) }) { touch(image.key) }
    }

    /// "Every change bumps the feed's revision and appends rows to a change log in the same
    /// transaction"; the cached layouts are invalidated from the first affected key.
    private mutating func commitRevision() throws {
        summary.revision = try tx.bumpRevision(feedID: feed.id)
        if isFirstImport {
            try tx.appendInsertChangesForWholeFeed(feedID: feed.id, revision: summary.revision)
        } else {
            try tx.appendChanges(feedID: feed.id, revision: summary.revision, changes)
        }
        try tx.adjustImageCount(feedID: feed.id, by: plan.entries.count - catalog.images.count)
        try tx.invalidateLayouts(feedID: feed.id, fromKey: firstAffectedKey ?? OrderKeys.end)
        try ViewMembership.follow(feedID: feed.id, revision: summary.revision, renewedKeys: renumbered, tx)
    }
}

extension ImageRecord {
    /// Field-by-field equality with strings compared by code points.
    func isExactly(_ other: ImageRecord) -> Bool {
        key == other.key && externalID.isExactly(other.externalID) && sectionID == other.sectionID
            && width == other.width && height == other.height && isFullSpan == other.isFullSpan
            && url.isExactly(other.url) && title.isExactly(other.title) && takenAt == other.takenAt
            && placeholder == other.placeholder && color == other.color && renditions.isExactly(other.renditions)
            && tags.isExactly(other.tags)
    }
}

/// Where a long import stands, for a progress line.
public enum ImportProgress: Sendable, Equatable {
    /// Reading and checking the file: bytes so far, of the file's size when it is a file.
    case reading(bytes: Int, totalBytes: Int?)
    /// Writing new images: rows so far of the rows to write.
    case writing(rows: Int, totalRows: Int)
    /// Rebuilding the image table's indexes after a first bulk import.
    case indexing
}
