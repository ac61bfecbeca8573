import WaterfallStore
import WaterfallSync

extension SectionIndex {
    /// The index with each section's first and last `takenAt` (DESIGN section 17), from the
    /// catalog's sections `records` (in catalog order) and their dates `ranges` by section id;
    /// `nil` when `records` are not the index's sections.
    func dated(records: [SectionRecord], ranges: [Int64: ClosedRange<Int64>]) -> SectionIndex? {
        guard records.count == sections.count,
            zip(records, sections).allSatisfy({ $0.name.isExactly($1.section) })
        else { return nil }
        var index = self
        for (ordinal, record) in records.enumerated() {
            guard let range = ranges[record.id] else { continue }
            index.sections[ordinal].firstTakenAt = TakenAt.string(milliseconds: range.lowerBound)
            index.sections[ordinal].lastTakenAt = TakenAt.string(milliseconds: range.upperBound)
        }
        return index
    }
}

extension WaterfallService {
    /// Adds the sections' dates to `index`, read in `tx`, the transaction that made it (so the
    /// sections are the same). Two index seeks a section.
    func addingSectionDates(to index: SectionIndex, feed: FeedRecord, _ tx: any CatalogTransaction) throws
        -> SectionIndex
    {
        let records = try tx.sections(feedID: feed.id)
        let ranges = try tx.takenAtRanges(sectionIDs: records.map(\.id))
        guard let dated = index.dated(records: records, ranges: ranges) else {
            throw WaterfallError.database("the feed's sections changed while its section index was read; try again.")
        }
        return dated
    }
}
