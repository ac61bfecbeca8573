import WaterfallStore
import WaterfallSync

/// Applies the sync rules of DESIGN section 4 to a catalog snapshot and a feed document: a pure
/// function from (catalog, file, mode) to the final order. O(n log n) in the feed's size.
///
/// Snapshot rules, in the words of the design: a new image goes right after the nearest earlier
/// image of its section in the file that is already in the catalog, else first in its section;
/// images are placed in file order, so a run of new images keeps the file's order. An existing
/// image whose section changes is placed the same way. A new section goes right after the
/// nearest earlier section of the file that exists, else first. With `resetOrder`, the file's
/// order (sections too) is adopted; existing images on the longest run already in file order
/// keep their keys, so only the others are rewritten.
///
/// With date sections (DESIGN section 17) the sections and the order in which the rules read the
/// file's images are the ones ``DateSections/derive(_:)`` made (date order), the file's own
/// `sections` and `section` fields are not read, and two phases differ: sections are kept in date
/// order, newest first, `undated` last (new ones take their date's place); a new image, or one
/// whose section changes, goes before the first image of its section whose `takenAt` is older,
/// else last, so a library that grows stays in date order while user moves are kept.
struct ImportPlanner {
    let catalog: CatalogSnapshot
    let document: FeedDocument
    let mode: ImportMode
    let resetOrder: Bool
    /// The date sections and what they make of the document, when the feed has date sections.
    let dates: (sections: DateSections, derived: DateSections.Derived)?
    /// The file's section names (with date sections, the derived ones).
    let sectionNames: [String]
    /// Section slots: `0..<sectionNames.count` are the file's named sections, `unnamedSlot`
    /// the unnamed one.
    let unnamedSlot: Int

    // What the phases learn, in the order they learn it.
    private var slotByName: [ExactString: Int] = [:]
    /// The file's sections in the file's order: declared ones first, then others by first image.
    private var fileOrder: [Int] = []
    private var inFile: [Bool]
    private var declaredTitle: [Int: String?] = [:]
    private var existingBySlot: [Int?]
    private var slotOfExisting: [Int?]
    /// Final section order, as (catalog section index?, file slot?).
    private var order: [(existing: Int?, slot: Int?)] = []
    private var finalIndexOfSlot: [Int?]
    private var finalIndexOfExisting: [Int?]
    private var documentIndexOfCatalog: IndexMap
    private var catalogIndexOfDocument: IndexMap
    private var sectionIndexByID: [Int64: Int] = [:]
    private var plan = ImportPlan()

    /// Plans an import: DESIGN section 4's rules, one phase each, in order.
    static func plan(
        catalog: CatalogSnapshot, document: FeedDocument, mode: ImportMode, resetOrder: Bool,
        dates: (sections: DateSections, derived: DateSections.Derived)? = nil
    ) -> ImportPlan {
        var planner = ImportPlanner(
            catalog: catalog, document: document, mode: mode, resetOrder: resetOrder, dates: dates)
        planner.listSectionsInFileOrder()
        planner.matchCatalogSections()
        if resetOrder {
            planner.adoptTheFilesSectionOrder()
        } else if let dates {
            planner.keepSectionsInDateOrder(dates.sections)
        } else {
            planner.placeNewSectionsAfterTheirNearestEarlierSection()
        }
        planner.decideSectionTitlesAndDeclarations()
        planner.matchImagesByID()
        if resetOrder {
            planner.adoptTheFilesImageOrder()
        } else if dates != nil {
            planner.keepPlacesAndPlaceNewImagesBeforeTheFirstOlderImage()
        } else {
            planner.keepPlacesAndPlaceNewImagesAfterTheirNearestEarlierImage()
        }
        if mode == .snapshot { planner.removeImagesTheFileDoesNotList() }
        planner.dropSectionsLeftEmptyAndUndeclared()
        planner.noteWhetherSectionsChanged()
        return planner.plan
    }

    private init(
        catalog: CatalogSnapshot, document: FeedDocument, mode: ImportMode, resetOrder: Bool,
        dates: (sections: DateSections, derived: DateSections.Derived)?
    ) {
        self.catalog = catalog
        self.document = document
        self.mode = mode
        self.resetOrder = resetOrder
        self.dates = dates
        sectionNames = dates?.derived.sectionNames ?? document.sectionNames
        unnamedSlot = sectionNames.count
        inFile = [Bool](repeating: false, count: unnamedSlot + 1)
        existingBySlot = [Int?](repeating: nil, count: unnamedSlot + 1)
        slotOfExisting = [Int?](repeating: nil, count: catalog.sections.count)
        finalIndexOfSlot = [Int?](repeating: nil, count: unnamedSlot + 1)
        finalIndexOfExisting = [Int?](repeating: nil, count: catalog.sections.count)
        documentIndexOfCatalog = IndexMap(count: catalog.images.count)
        catalogIndexOfDocument = IndexMap(count: catalog.images.isEmpty ? 0 : document.images.count)
    }

    /// The section slot of the document's image at `index`.
    private func slot(ofImage index: Int) -> Int {
        if let dates { return Int(dates.derived.sectionOfImage[index]) }
        return document.images[index].section.map(Int.init) ?? unnamedSlot
    }

    /// The index in the document of the image the rules read at `position`: the file's order,
    /// or with date sections the date order.
    private func imageIndex(at position: Int) -> Int {
        if let dates { return Int(dates.derived.order[position]) }
        return position
    }

    private func name(ofSlot slot: Int) -> String? { slot == unnamedSlot ? nil : sectionNames[slot] }

    /// "The sections listed in `sections`, in that order, then any other section in the order
    /// of its first image." Names are compared by code points, as the catalog compares them.
    private mutating func listSectionsInFileOrder() {
        for (index, name) in sectionNames.enumerated() { slotByName[ExactString(name)] = index }
        for section in dates == nil ? document.declaredSections : [] {
            guard let slot = slotByName[ExactString(section.id)] else { continue }
            declaredTitle[slot] = section.title
            if !inFile[slot] {
                inFile[slot] = true
                fileOrder.append(slot)
            }
        }
        for position in document.images.indices {
            let slot = slot(ofImage: imageIndex(at: position))
            if !inFile[slot] {
                inFile[slot] = true
                fileOrder.append(slot)
            }
        }
    }

    /// Which catalog section each file section is (a catalog section the file does not name
    /// has no slot).
    private mutating func matchCatalogSections() {
        for (index, section) in catalog.sections.enumerated() {
            let slot: Int? = section.name.map { slotByName[ExactString($0)] } ?? unnamedSlot
            if let slot {
                existingBySlot[slot] = index
                slotOfExisting[index] = slot
            }
        }
    }

    /// `--reset-order`: the file's section order.
    private mutating func adoptTheFilesSectionOrder() {
        order = fileOrder.map { (existingBySlot[$0], $0) }
    }

    /// "A new section goes right after the nearest earlier section of the feed that already
    /// exists, else first"; existing sections keep their order; an append import puts new
    /// sections at the end and keeps every existing one.
    private mutating func placeNewSectionsAfterTheirNearestEarlierSection() {
        let keepAll = mode == .append
        var followers = [Int?](repeating: nil, count: unnamedSlot + 2)  // slot → next new slot
        let start = unnamedSlot + 1
        var newAtEnd: [Int] = []
        var previous: Int?
        for slot in fileOrder {
            if existingBySlot[slot] == nil {
                if keepAll { newAtEnd.append(slot) } else { followers[previous ?? start] = slot }
            }
            previous = slot
        }
        func chain(from anchor: Int) {
            var next = followers[anchor]
            while let slot = next {
                order.append((nil, slot))
                next = followers[slot]
            }
        }
        chain(from: start)
        for index in catalog.sections.indices {
            let slot = slotOfExisting[index]
            guard keepAll || slot.map({ inFile[$0] }) == true else { continue }
            order.append((index, slot))
            if let slot { chain(from: slot) }
        }
        order += newAtEnd.map { (nil, $0) }
    }

    /// Date sections: every section in date order, newest first (a new one takes its date's
    /// place), then any section of the feed's own naming that an append keeps, in its order,
    /// then `undated`.
    private mutating func keepSectionsInDateOrder(_ sections: DateSections) {
        var entries = fileOrder.map { (existing: existingBySlot[$0], slot: Optional($0)) }
        if mode == .append {
            entries += catalog.sections.indices.filter { slotOfExisting[$0] == nil }.map { ($0, nil) }
        }
        func name(_ entry: (existing: Int?, slot: Int?)) -> String? {
            entry.slot.map { self.name(ofSlot: $0) } ?? entry.existing.flatMap { catalog.sections[$0].name }
        }
        let dated = entries.filter { sections.isDateSection(name($0)) }
            .sorted { name($1)!.utf8.lexicographicallyPrecedes(name($0)!.utf8) }
        let undated = entries.filter { name($0) == DateSections.undatedID }
        let others = entries.filter { !sections.isDateSection(name($0)) && name($0) != DateSections.undatedID }
        order = dated + others + undated
    }

    /// "A section exists while it has images or is listed in `sections` of the last snapshot
    /// import (or of an append import since)": its title and declared flag in the final order.
    private mutating func decideSectionTitlesAndDeclarations() {
        for (finalIndex, entry) in order.enumerated() {
            let existing = entry.existing.map { catalog.sections[$0] }
            let isDeclaredNow = entry.slot.map { declaredTitle[$0] != nil } ?? false
            let isDeclared = mode == .append ? (isDeclaredNow || existing?.isDeclared == true) : isDeclaredNow
            let derivedTitle = entry.slot.flatMap { slot in dates.map { $0.derived.titles[slot] } }
            let title: String? = derivedTitle ?? entry.slot.flatMap { declaredTitle[$0] } ?? existing?.title
            plan.sections.append(
                .init(
                    existing: existing, name: entry.slot.map { name(ofSlot: $0) } ?? existing?.name,
                    title: title, isDeclared: isDeclared))
            if let slot = entry.slot { finalIndexOfSlot[slot] = finalIndex }
            if let index = entry.existing { finalIndexOfExisting[index] = finalIndex }
        }
    }

    /// Which catalog image each file image is, by id (compared by code points).
    private mutating func matchImagesByID() {
        var catalogIndexByID: [ExactString: Int] = [:]
        catalogIndexByID.reserveCapacity(catalog.images.count)
        for (index, image) in catalog.images.enumerated() { catalogIndexByID[ExactString(image.externalID)] = index }
        for (index, image) in document.images.enumerated() {
            if let existing = catalogIndexByID[ExactString(image.id)] {
                documentIndexOfCatalog[existing] = index
                catalogIndexOfDocument[index] = existing
            }
        }
        for (index, section) in catalog.sections.enumerated() { sectionIndexByID[section.id] = index }
    }

    /// The final section of a catalog image that "keeps its place" (stays in its section), or
    /// nil when it is placed anew: an image the file mentions stays only if the file puts it in
    /// the same section; one it does not mention stays in an append import.
    private func finalSectionKeepingPlace(_ catalogIndex: Int) -> Int? {
        let sectionIndex = sectionIndexByID[catalog.images[catalogIndex].sectionID]!
        guard let finalSection = finalIndexOfExisting[sectionIndex] else { return nil }
        if let documentIndex = documentIndexOfCatalog[catalogIndex] {
            return finalIndexOfSlot[slot(ofImage: documentIndex)] == finalSection ? finalSection : nil
        }
        return mode == .append ? finalSection : nil
    }

    /// `--reset-order`: the file's image order (see ``resetEntries``).
    private mutating func adoptTheFilesImageOrder() {
        plan.entries = Self.resetEntries(
            count: document.images.count, imageIndex: imageIndex(at:), slot: slot(ofImage:),
            finalIndexOfSlot: finalIndexOfSlot,
            catalogIndexOfDocument: catalogIndexOfDocument,
            keepsSection: { finalSectionKeepingPlace($0) != nil }, catalog: catalog)
    }

    /// "Existing images keep their place"; "a new image goes right after the nearest earlier
    /// image of its section in the feed that is already in the catalog, else first in its
    /// section; a run of new images therefore keeps the feed's order", and so does an existing
    /// image whose section changes. An append import puts new images at the end of their
    /// sections, in feed order.
    private mutating func keepPlacesAndPlaceNewImagesAfterTheirNearestEarlierImage() {
        let images = document.images
        // Kept images in catalog order, bucketed by final section.
        var kept = [[Int]](repeating: [], count: plan.sections.count)
        for index in catalog.images.indices {
            if let finalSection = finalSectionKeepingPlace(index) { kept[finalSection].append(index) }
        }
        // Placed images (new, or changing section) chained after their anchors.
        var nextAfterDocument = [Int](repeating: -1, count: images.count)
        plan.entries.reserveCapacity(images.count + catalog.images.count)
        var firstOfSection = [Int](repeating: -1, count: plan.sections.count)
        var tails = [[Int]](repeating: [], count: plan.sections.count)
        var previousInSlot = [Int](repeating: -1, count: unnamedSlot + 1)
        for index in images.indices {
            let slot = slot(ofImage: index)
            let finalSection = finalIndexOfSlot[slot]!
            let isPlaced = catalogIndexOfDocument[index].map { finalSectionKeepingPlace($0) == nil } ?? true
            if isPlaced {
                if mode == .append {
                    tails[finalSection].append(index)
                } else if previousInSlot[slot] >= 0 {
                    nextAfterDocument[previousInSlot[slot]] = index
                } else {
                    firstOfSection[finalSection] = index
                }
            }
            previousInSlot[slot] = index
        }
        for finalSection in plan.sections.indices {
            func emitChain(startingAt first: Int) {
                var next = first
                while next >= 0 {
                    plan.entries.append(Self.placedEntry(next, section: finalSection, catalogIndexOfDocument))
                    next = nextAfterDocument[next]
                }
            }
            emitChain(startingAt: firstOfSection[finalSection])
            for catalogIndex in kept[finalSection] {
                let documentIndex = documentIndexOfCatalog[catalogIndex]
                plan.entries.append(
                    .init(
                        source: .existing(catalogIndex), section: finalSection,
                        document: documentIndex, keepsKey: true))
                if let documentIndex { emitChain(startingAt: nextAfterDocument[documentIndex]) }
            }
            for index in tails[finalSection] {
                plan.entries.append(Self.placedEntry(index, section: finalSection, catalogIndexOfDocument))
            }
        }
    }

    /// Date sections: "a new image (import or append) is placed in its section before the first
    /// image whose `takenAt` is older", and so is an image whose section changes; existing
    /// images keep their places, user moves included. The date order lists each section's
    /// images newest first (ties in the feed's order), so one pass per section merges them.
    private mutating func keepPlacesAndPlaceNewImagesBeforeTheFirstOlderImage() {
        let images = document.images
        var kept = [[Int]](repeating: [], count: plan.sections.count)
        for index in catalog.images.indices {
            if let finalSection = finalSectionKeepingPlace(index) { kept[finalSection].append(index) }
        }
        var placed = [[Int]](repeating: [], count: plan.sections.count)
        for position in images.indices {
            let index = imageIndex(at: position)
            let isPlaced = catalogIndexOfDocument[index].map { finalSectionKeepingPlace($0) == nil } ?? true
            if isPlaced { placed[finalIndexOfSlot[slot(ofImage: index)]!].append(index) }
        }
        /// A kept image's date: the file's when it gives the image, else the catalog's.
        func takenAt(ofKept catalogIndex: Int) -> Int64? {
            documentIndexOfCatalog[catalogIndex].map { images[$0].takenAt } ?? catalog.images[catalogIndex].takenAt
        }
        plan.entries.reserveCapacity(images.count + catalog.images.count)
        for finalSection in plan.sections.indices {
            var next = 0
            let keptHere = kept[finalSection]
            func emitKept(_ catalogIndex: Int) {
                plan.entries.append(
                    .init(
                        source: .existing(catalogIndex), section: finalSection,
                        document: documentIndexOfCatalog[catalogIndex],
                        keepsKey: true))
            }
            for documentIndex in placed[finalSection] {
                let date = images[documentIndex].takenAt
                // Placed images come newest first, so the first older kept image never lies
                // before the previous one's.
                while next < keptHere.count {
                    if let date, let keptDate = takenAt(ofKept: keptHere[next]), keptDate < date { break }
                    emitKept(keptHere[next])
                    next += 1
                }
                plan.entries.append(Self.placedEntry(documentIndex, section: finalSection, catalogIndexOfDocument))
            }
            for catalogIndex in keptHere[next...] { emitKept(catalogIndex) }
        }
    }

    /// "Snapshot import: the feed is the whole truth for membership. Images absent from it are
    /// removed."
    private mutating func removeImagesTheFileDoesNotList() {
        plan.removed = catalog.images.indices.filter { documentIndexOfCatalog[$0] == nil }
    }

    /// "A section emptied by an import otherwise disappears": drops the sections left with no
    /// image that are not declared.
    private mutating func dropSectionsLeftEmptyAndUndeclared() {
        var used = [Bool](repeating: false, count: plan.sections.count)
        for entry in plan.entries { used[entry.section] = true }
        guard used.contains(false) else { return }
        var remap = [Int](repeating: -1, count: plan.sections.count)
        var sections: [ImportPlan.Section] = []
        for (index, section) in plan.sections.enumerated() where used[index] || section.isDeclared {
            remap[index] = sections.count
            sections.append(section)
        }
        plan.sections = sections
        for index in plan.entries.indices { plan.entries[index].section = remap[plan.entries[index].section] }
    }

    /// Whether the sections differ from the catalog's: created, dropped, reordered, retitled or
    /// (un)declared (a change even when no image moves).
    private mutating func noteWhetherSectionsChanged() {
        plan.sectionsChanged =
            plan.sections.count != catalog.sections.count
            || zip(plan.sections, catalog.sections).contains { planned, current in
                planned.existing?.id != current.id || !planned.title.isExactly(current.title)
                    || planned.isDeclared != current.isDeclared
            }
    }

    private static func placedEntry(_ documentIndex: Int, section: Int, _ catalogIndexOfDocument: IndexMap)
        -> ImportPlan.Entry
    {
        let source: ImportPlan.Source =
            catalogIndexOfDocument[documentIndex].map { .existing($0) } ?? .new(documentIndex)
        return .init(source: source, section: section, document: documentIndex, keepsKey: false)
    }

    /// The file's order (the `count` images the rules read, `imageIndex` of each position),
    /// grouped by final section; existing images on a longest run of increasing keys (that
    /// stay in their section) keep their keys.
    private static func resetEntries(
        count: Int, imageIndex: (Int) -> Int, slot: (Int) -> Int, finalIndexOfSlot: [Int?],
        catalogIndexOfDocument: IndexMap, keepsSection: (Int) -> Bool, catalog: CatalogSnapshot
    ) -> [ImportPlan.Entry] {
        var bySection: [[Int]] = []
        for position in 0..<count {
            let index = imageIndex(position)
            let finalSection = finalIndexOfSlot[slot(index)]!
            while bySection.count <= finalSection { bySection.append([]) }
            bySection[finalSection].append(index)
        }
        var entries: [ImportPlan.Entry] = []
        entries.reserveCapacity(count)
        for (finalSection, documentIndices) in bySection.enumerated() {
            for documentIndex in documentIndices {
                let source: ImportPlan.Source =
                    catalogIndexOfDocument[documentIndex].map { .existing($0) } ?? .new(documentIndex)
                entries.append(.init(source: source, section: finalSection, document: documentIndex, keepsKey: false))
            }
        }
        // Longest increasing subsequence of current keys among eligible existing entries.
        var candidates: [(entry: Int, key: Int64)] = []
        for (index, entry) in entries.enumerated() {
            if case .existing(let catalogIndex) = entry.source, keepsSection(catalogIndex) {
                candidates.append((index, catalog.images[catalogIndex].key))
            }
        }
        for entry in longestIncreasingRun(candidates) { entries[entry].keepsKey = true }
        return entries
    }

    /// The entries of a longest strictly increasing subsequence of `keys`. O(n log n).
    static func longestIncreasingRun(_ items: [(entry: Int, key: Int64)]) -> [Int] {
        var tailIndex: [Int] = []  // index into items of the smallest tail of each length
        var parent = [Int](repeating: -1, count: items.count)
        for (index, item) in items.enumerated() {
            var low = 0
            var high = tailIndex.count
            while low < high {
                let middle = (low + high) / 2
                if items[tailIndex[middle]].key < item.key { low = middle + 1 } else { high = middle }
            }
            if low > 0 { parent[index] = tailIndex[low - 1] }
            if low == tailIndex.count { tailIndex.append(index) } else { tailIndex[low] = index }
        }
        var result: [Int] = []
        var cursor = tailIndex.last ?? -1
        while cursor >= 0 {
            result.append(items[cursor].entry)
            cursor = parent[cursor]
        }
        return result.reversed()
    }
}

/// Optional indices, 4 bytes each (an `[Int?]` takes 16): `nil` or an index below 2^31. One
/// of `count` 0 reads `nil` everywhere, so a first import, whose file images are all new,
/// allocates nothing for them.
struct IndexMap {
    private var storage: [Int32]

    init(count: Int) {
        storage = [Int32](repeating: -1, count: count)
    }

    subscript(index: Int) -> Int? {
        get { storage.isEmpty ? nil : storage[index] >= 0 ? Int(storage[index]) : nil }
        set { storage[index] = newValue.map { Int32($0) } ?? -1 }
    }
}
