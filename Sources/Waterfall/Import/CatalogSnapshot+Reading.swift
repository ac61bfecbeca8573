import WaterfallStore
import WaterfallSync

extension CatalogSnapshot {
    /// Every section and every image of `feed`, in order: what an import plans against. O(n).
    static func whole(_ feed: FeedRecord, _ tx: any CatalogTransaction) throws -> CatalogSnapshot {
        CatalogSnapshot(
            sections: try tx.sections(feedID: feed.id),
            images: feed.imageCount == 0 ? [] : try tx.allImages(feedID: feed.id))
    }

    /// What an append into date sections needs of `feed`: every section, and of the images only
    /// those the file names and those beside which its images can land. O(the images of the
    /// sections it adds to) in keys and dates read from an index, and a few records a file's
    /// image, where ``whole(_:_:)`` reads every record of the feed.
    ///
    /// The plan over this snapshot is the plan over the whole feed without the images left out,
    /// which keep their keys, sections and records and log nothing. The images in are:
    /// - every image the file names (moved, updated or unchanged, each is planned);
    /// - in each section, the first and the last of the others, so that images placed at a
    ///   section's end, or in a new section between two, find the keys on either side;
    /// - in each section the file adds to, for each of its dates, the first other image taken
    ///   before it (where the rule "before the first image whose `takenAt` is older" places
    ///   it, unless a named image comes first) and the other image before that one; and the
    ///   other image before each named one: so each run of placed images gets the gap between
    ///   the same two kept images as in the whole feed.
    ///
    /// A gap too narrow, which renumbers the whole feed, is the one plan that differs: the
    /// caller then plans the whole feed (``ImportApplier/renumbers``).
    static func touchedByAppend(
        to feed: FeedRecord, of document: FeedDocument, derived: DateSections.Derived, _ tx: any CatalogTransaction
    ) throws -> CatalogSnapshot {
        let sections = try tx.sections(feedID: feed.id)
        let named = try tx.images(feedID: feed.id, externalIDs: document.images.map(\.id))
        let namedKeys = Set(named.map(\.key))
        var sectionIDByName: [ExactString: Int64] = [:]
        for section in sections {
            if let name = section.name { sectionIDByName[ExactString(name)] = section.id }
        }
        let sectionOfSlot = derived.sectionNames.map { sectionIDByName[ExactString($0)] }
        // The dates the file adds to each existing section, newest first (the date order).
        var datesBySection: [Int64: [Int64]] = [:]
        for index in derived.order {
            guard let section = sectionOfSlot[Int(derived.sectionOfImage[Int(index)])] else { continue }
            datesBySection[section, default: []].append(document.images[Int(index)].takenAt ?? .min)
        }
        let listed = Set(datesBySection.keys).union(named.map(\.sectionID))
        var keys: Set<Int64> = []
        for (section, images) in try tx.keysAndDates(sectionIDs: sections.map(\.id).filter(listed.contains)) {
            keys.formUnion(neighbours(in: images, named: namedKeys, dates: datesBySection[section] ?? []))
        }
        for range in try tx.keyRanges(sectionIDs: sections.map(\.id).filter { !listed.contains($0) }).values {
            keys.formUnion([range.lowerBound, range.upperBound])
        }
        keys.subtract(namedKeys)
        var images = named + (try tx.images(feedID: feed.id, keys: keys.sorted()))
        images.sort { $0.key < $1.key }
        return CatalogSnapshot(sections: sections, images: images)
    }

    /// In one section's images (catalog order), the keys of the other images an append needs
    /// beside the `named` ones (see ``touchedByAppend(to:of:derived:_:)``); `dates` newest first
    /// (`Int64.min`: undated, placed at the end).
    private static func neighbours(in images: [KeyAndDate], named: Set<Int64>, dates: [Int64]) -> [Int64] {
        var keys: [Int64] = []
        var previousOther: Int64?
        for image in images {
            if named.contains(image.key) {
                if let previousOther { keys.append(previousOther) }
            } else {
                if previousOther == nil { keys.append(image.key) }
                previousOther = image.key
            }
        }
        if let previousOther { keys.append(previousOther) }
        // The first other image older than each date: as the dates come newest first, it never
        // lies before the previous date's, so one walk finds them all.
        var position = 0
        var otherBefore: Int64?
        for date in dates {
            while position < images.count {
                let image = images[position]
                if !named.contains(image.key) {
                    if let taken = image.takenAt, taken < date { break }
                    otherBefore = image.key
                }
                position += 1
            }
            guard position < images.count else { break }
            keys.append(images[position].key)
            if let otherBefore { keys.append(otherBefore) }
        }
        return keys
    }
}
