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

        public init(feedName: String? = nil, mode: ImportMode = .snapshot, resetOrder: Bool = false) {
            self.feedName = feedName
            self.mode = mode
            self.resetOrder = resetOrder
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
    ) throws(WaterfallError) -> ChangeSummary {
        if options.resetOrder && options.mode == .append {
            throw WaterfallError.conflictingValues(.resetOrder, .appendMode)
        }
        var decoder = FeedDecoder()
        if let progress {
            decoder.progress = { bytes, total in progress(.reading(bytes: bytes, totalBytes: total)) }
        }
        let document = try perform { try decoder.decode(contentsOf: path, format: FeedFormat(path: path)) }
        var fileName: String?
        if path != "-" {
            let base = path.split(separator: "/").last.map(String.init) ?? path
            fileName = base.split(separator: ".", omittingEmptySubsequences: false).count > 1
                ? base.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
                : base
        }
        guard let name = document.feed ?? options.feedName ?? fileName else {
            throw WaterfallError.feedNameMissing
        }
        return try importFeed(document, named: name, options: options, progress: progress)
    }

    /// Imports an already decoded feed under `name` (DESIGN section 4), in one transaction.
    /// Importing the same document twice changes nothing the second time.
    public func importFeed(
        _ document: FeedDocument, named name: String, options: ImportOptions, progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws(WaterfallError) -> ChangeSummary {
        try Self.validateName(name, .feedName)
        if options.resetOrder && options.mode == .append {
            throw WaterfallError.conflictingValues(.resetOrder, .appendMode)
        }
        return try perform {
            try database.write { tx in
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
                let catalog = CatalogSnapshot(
                    sections: try tx.sections(feedID: feed.id),
                    images: feed.imageCount == 0 ? [] : try tx.allImages(feedID: feed.id))
                let plan = ImportPlanner.plan(catalog: catalog, document: document, mode: options.mode, resetOrder: options.resetOrder)
                let applier = ImportApplier(tx: tx, feed: feed, catalog: catalog, document: document, plan: plan, progress: progress)
                return try tx.withBulkWriteMemory(pageCacheKiB: 4_096) { try applier.apply(feedCreated: created) }
            }
        }
    }
}

/// Writes an ``ImportPlan``: sections, removals, keys, inserts, updates, the change log and the
/// cache invalidation, inside the caller's transaction. Rows that do not change are not written.
struct ImportApplier {
    let tx: any CatalogTransaction
    let feed: FeedRecord
    let catalog: CatalogSnapshot
    let document: FeedDocument
    let plan: ImportPlan
    var progress: (@Sendable (ImportProgress) -> Void)?

    func apply(feedCreated: Bool) throws -> ChangeSummary {
        var summary = ChangeSummary(feed: feed.name, revision: feed.revision)
        var changes: [(kind: ChangeKind, externalID: String, section: String?)] = []
        var firstAffectedKey: Int64?
        func touch(_ key: Int64) { firstAffectedKey = min(firstAffectedKey ?? key, key) }
        let catalogSectionNames = catalog.sections.namesByID

        // Sections the import creates get temporary positions until the final renumbering.
        var sectionIDs = plan.sections.map { $0.existing?.id ?? 0 }
        for (index, section) in plan.sections.enumerated() where section.existing == nil {
            sectionIDs[index] = try tx.insertSection(
                feedID: feed.id, name: section.name, title: section.title,
                position: Int64.min + Int64(index), isDeclared: section.isDeclared)
        }

        // Removals.
        for index in plan.removed {
            let image = catalog.images[index]
            touch(image.key)
            changes.append((.remove, image.externalID, catalogSectionNames[image.sectionID] ?? nil))
        }
        try tx.deleteImages(feedID: feed.id, keys: plan.removed.map { catalog.images[$0].key })
        summary.removed = plan.removed.count

        // Keys: kept images keep theirs; runs of placed images share the gap between two kept
        // neighbours. When a gap is too narrow, the whole feed is renumbered.
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

        // Classify every image of the final order; move and update existing rows. Into an
        // empty feed (a first import), the change log is written by one statement at the end.
        let isFirstImport = catalog.images.isEmpty
        var rekeys: [(from: Int64, to: Int64, sectionID: Int64?)] = []
        var updates: [ImageRecord] = []
        for (index, entry) in plan.entries.enumerated() {
            let sectionID = sectionIDs[entry.section]
            let sectionName = plan.sections[entry.section].name
            let fileImage = entry.document.map { document.images[$0] }
            switch entry.source {
            case .new:
                touch(keys[index])
                if !isFirstImport { changes.append((.insert, fileImage!.id, sectionName)) }
                summary.inserted += 1
            case .existing(let catalogIndex):
                let current = catalog.images[catalogIndex]
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
                var updated = current
                if let fileImage {
                    updated.width = fileImage.width
                    updated.height = fileImage.height
                    updated.isFullSpan = fileImage.span == .full
                    updated.url = fileImage.url
                    updated.title = fileImage.title
                }
                if !updated.isExactly(current) {
                    if updated.width != current.width || updated.height != current.height || updated.isFullSpan != current.isFullSpan {
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
        }
        try tx.rekeyImages(feedID: feed.id, rekeys)
        var nextEntry = 0
        var written = 0
        let total = summary.inserted
        let progress = progress
        try tx.insertImages(feedID: feed.id, count: total, beforeIndexing: progress.map { report in { report(.indexing) } }) {
            if let progress, written % 50_000 == 0 { progress(.writing(rows: written, totalRows: total)) }
            written += 1
            while case .existing = plan.entries[nextEntry].source { nextEntry += 1 }
            let entry = plan.entries[nextEntry]
            guard case .new(let documentIndex) = entry.source else { fatalError("unreachable") }
            let image = document.images[documentIndex]
            defer { nextEntry += 1 }
            return ImageRecord(
                key: keys[nextEntry], externalID: image.id, sectionID: sectionIDs[entry.section], width: image.width,
                height: image.height, isFullSpan: image.span == .full, url: image.url, title: image.title)
        }
        try tx.updateImages(feedID: feed.id, updates)

        // Sections: drop the catalog's sections the plan does not keep, then renumber positions
        // and store titles and declared flags.
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
                try tx.updateSection(SectionRecord(
                    id: existing.id, name: existing.name, title: section.title,
                    position: positions[index], isDeclared: section.isDeclared))
            }
        }
        if plan.sectionsChanged {
            // Headers and footers move from the first section that differs on.
            let firstChanged = zip(plan.sections.indices, plan.sections).first { index, section in
                index >= catalog.sections.count || section.existing?.id != catalog.sections[index].id
            }?.0 ?? min(plan.sections.count, catalog.sections.count)
            if let entry = plan.entries.firstIndex(where: { $0.section >= firstChanged }) { touch(keys[entry]) }
            let oldIDs = Set(catalog.sections.dropFirst(firstChanged).map(\.id))
            if let image = catalog.images.first(where: { oldIDs.contains($0.sectionID) }) { touch(image.key) }
        }

        let changed = feedCreated || !changes.isEmpty || summary.inserted > 0 || plan.sectionsChanged || renumber
        guard changed else { return summary }
        summary.revision = try tx.bumpRevision(feedID: feed.id)
        if isFirstImport {
            try tx.appendInsertChangesForWholeFeed(feedID: feed.id, revision: summary.revision)
        } else {
            try tx.appendChanges(feedID: feed.id, revision: summary.revision, changes)
        }
        try tx.adjustImageCount(feedID: feed.id, by: plan.entries.count - catalog.images.count)
        try tx.invalidateLayouts(feedID: feed.id, fromKey: firstAffectedKey ?? OrderKeys.end)
        return summary
    }
}

extension ImageRecord {
    /// Field-by-field equality with strings compared by code points.
    func isExactly(_ other: ImageRecord) -> Bool {
        key == other.key && externalID.isExactly(other.externalID) && sectionID == other.sectionID
            && width == other.width && height == other.height && isFullSpan == other.isFullSpan
            && url.isExactly(other.url) && title.isExactly(other.title)
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
