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
enum ImportPlanner {
    static func plan(
        catalog: CatalogSnapshot, document: FeedDocument, mode: ImportMode, resetOrder: Bool
    ) -> ImportPlan {
        let images = document.images
        // Section slots: 0..<names.count are the named sections, names.count the unnamed one.
        let unnamedSlot = document.sectionNames.count
        func slot(of image: FeedImage) -> Int { image.section.map(Int.init) ?? unnamedSlot }
        func name(ofSlot slot: Int) -> String? { slot == unnamedSlot ? nil : document.sectionNames[slot] }

        // The file's section order: declared sections first, then others by first image.
        // Keys are compared by code points, as the catalog compares them (see ExactString).
        var slotByName: [ExactString: Int] = [:]
        for (index, name) in document.sectionNames.enumerated() { slotByName[ExactString(name)] = index }
        var fileOrder: [Int] = []
        var inFile = [Bool](repeating: false, count: unnamedSlot + 1)
        var declaredTitle: [Int: String?] = [:]
        for section in document.declaredSections {
            guard let slot = slotByName[ExactString(section.id)] else { continue }
            declaredTitle[slot] = section.title
            if !inFile[slot] { inFile[slot] = true; fileOrder.append(slot) }
        }
        for image in images {
            let slot = slot(of: image)
            if !inFile[slot] { inFile[slot] = true; fileOrder.append(slot) }
        }

        // The catalog's sections by slot (a catalog section the file does not name has none).
        var existingBySlot = [Int?](repeating: nil, count: unnamedSlot + 1)
        var slotOfExisting = [Int?](repeating: nil, count: catalog.sections.count)
        for (index, section) in catalog.sections.enumerated() {
            let slot: Int? = section.name.map { slotByName[ExactString($0)] } ?? unnamedSlot
            if let slot {
                existingBySlot[slot] = index
                slotOfExisting[index] = slot
            }
        }

        // Final section order, as a list of (existing index?, slot?).
        var order: [(existing: Int?, slot: Int?)] = []
        if resetOrder {
            order = fileOrder.map { (existingBySlot[$0], $0) }
        } else {
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
            for (index, _) in catalog.sections.enumerated() {
                let slot = slotOfExisting[index]
                guard keepAll || slot.map({ inFile[$0] }) == true else { continue }
                order.append((index, slot))
                if let slot { chain(from: slot) }
            }
            order += newAtEnd.map { (nil, $0) }
        }
        var plan = ImportPlan()
        var finalIndexOfSlot = [Int?](repeating: nil, count: unnamedSlot + 1)
        var finalIndexOfExisting = [Int?](repeating: nil, count: catalog.sections.count)
        for (finalIndex, entry) in order.enumerated() {
            let existing = entry.existing.map { catalog.sections[$0] }
            let isDeclaredNow = entry.slot.map { declaredTitle[$0] != nil } ?? false
            let isDeclared = mode == .append ? (isDeclaredNow || existing?.isDeclared == true) : isDeclaredNow
            let title: String? = entry.slot.flatMap { declaredTitle[$0] } ?? existing?.title
            plan.sections.append(.init(
                existing: existing, name: entry.slot.map { name(ofSlot: $0) } ?? existing?.name,
                title: title, isDeclared: isDeclared))
            if let slot = entry.slot { finalIndexOfSlot[slot] = finalIndex }
            if let index = entry.existing { finalIndexOfExisting[index] = finalIndex }
        }

        // Images: which catalog image each file image is.
        var catalogIndexByID: [ExactString: Int] = [:]
        catalogIndexByID.reserveCapacity(catalog.images.count)
        for (index, image) in catalog.images.enumerated() { catalogIndexByID[ExactString(image.externalID)] = index }
        var documentIndexOfCatalog = IndexMap(count: catalog.images.count)
        var catalogIndexOfDocument = IndexMap(count: catalog.images.isEmpty ? 0 : images.count)
        for (index, image) in images.enumerated() {
            if let existing = catalogIndexByID[ExactString(image.id)] {
                documentIndexOfCatalog[existing] = index
                catalogIndexOfDocument[index] = existing
            }
        }
        var sectionIndexByID: [Int64: Int] = [:]
        for (index, section) in catalog.sections.enumerated() { sectionIndexByID[section.id] = index }
        /// The final section of a catalog image that stays in its section, or nil when it moves out.
        func finalSectionKeepingPlace(_ catalogIndex: Int) -> Int? {
            let sectionIndex = sectionIndexByID[catalog.images[catalogIndex].sectionID]!
            guard let finalSection = finalIndexOfExisting[sectionIndex] else { return nil }
            if let documentIndex = documentIndexOfCatalog[catalogIndex] {
                // Mentioned by the file: it stays only if the file puts it in the same section.
                return finalIndexOfSlot[slot(of: images[documentIndex])] == finalSection ? finalSection : nil
            }
            return mode == .append ? finalSection : nil
        }

        if resetOrder {
            plan.entries = resetEntries(images: images, slot: slot, finalIndexOfSlot: finalIndexOfSlot,
                                        catalogIndexOfDocument: catalogIndexOfDocument,
                                        keepsSection: { finalSectionKeepingPlace($0) != nil }, catalog: catalog)
        } else {
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
            for (index, image) in images.enumerated() {
                let slot = slot(of: image)
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
                        plan.entries.append(placedEntry(next, section: finalSection, catalogIndexOfDocument))
                        next = nextAfterDocument[next]
                    }
                }
                emitChain(startingAt: firstOfSection[finalSection])
                for catalogIndex in kept[finalSection] {
                    let documentIndex = documentIndexOfCatalog[catalogIndex]
                    plan.entries.append(.init(source: .existing(catalogIndex), section: finalSection,
                                              document: documentIndex, keepsKey: true))
                    if let documentIndex { emitChain(startingAt: nextAfterDocument[documentIndex]) }
                }
                for index in tails[finalSection] {
                    plan.entries.append(placedEntry(index, section: finalSection, catalogIndexOfDocument))
                }
            }
        }

        // Removals: snapshot drops every catalog image the file does not mention.
        if mode == .snapshot {
            plan.removed = catalog.images.indices.filter { documentIndexOfCatalog[$0] == nil }
        }

        // Drop sections left with no image that are not declared.
        var used = [Bool](repeating: false, count: plan.sections.count)
        for entry in plan.entries { used[entry.section] = true }
        if used.contains(false) {
            var remap = [Int](repeating: -1, count: plan.sections.count)
            var sections: [ImportPlan.Section] = []
            for (index, section) in plan.sections.enumerated() where used[index] || section.isDeclared {
                remap[index] = sections.count
                sections.append(section)
            }
            plan.sections = sections
            for index in plan.entries.indices { plan.entries[index].section = remap[plan.entries[index].section] }
        }

        plan.sectionsChanged = plan.sections.count != catalog.sections.count
            || zip(plan.sections, catalog.sections).contains { planned, current in
                planned.existing?.id != current.id || !planned.title.isExactly(current.title)
                    || planned.isDeclared != current.isDeclared
            }
        return plan
    }

    private static func placedEntry(_ documentIndex: Int, section: Int, _ catalogIndexOfDocument: IndexMap) -> ImportPlan.Entry {
        let source: ImportPlan.Source = catalogIndexOfDocument[documentIndex].map { .existing($0) } ?? .new(documentIndex)
        return .init(source: source, section: section, document: documentIndex, keepsKey: false)
    }

    /// The file's order, grouped by final section; existing images on a longest run of
    /// increasing keys (that stay in their section) keep their keys.
    private static func resetEntries(
        images: [FeedImage], slot: (FeedImage) -> Int, finalIndexOfSlot: [Int?],
        catalogIndexOfDocument: IndexMap, keepsSection: (Int) -> Bool, catalog: CatalogSnapshot
    ) -> [ImportPlan.Entry] {
        var bySection: [[Int]] = []
        for (index, image) in images.enumerated() {
            let finalSection = finalIndexOfSlot[slot(image)]!
            while bySection.count <= finalSection { bySection.append([]) }
            bySection[finalSection].append(index)
        }
        var entries: [ImportPlan.Entry] = []
        entries.reserveCapacity(images.count)
        for (finalSection, documentIndices) in bySection.enumerated() {
            for documentIndex in documentIndices {
                let source: ImportPlan.Source = catalogIndexOfDocument[documentIndex].map { .existing($0) } ?? .new(documentIndex)
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
        var tailIndex: [Int] = []          // index into items of the smallest tail of each length
        var parent = [Int](repeating: -1, count: items.count)
        for (index, item) in items.enumerated() {
            var low = 0, high = tailIndex.count
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
