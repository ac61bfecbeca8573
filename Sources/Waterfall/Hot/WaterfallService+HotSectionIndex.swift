import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// ``sectionIndex(feed:layout:)`` from the hot copy, inside the read transaction that
    /// resolved `feed`: each section's plan gives where it begins and ends, the copy gives its
    /// image count; only the sections' names and titles are read. O(sections), no image row.
    func hotSectionIndex<Kind: StreamingLayoutKind>(
        engine: Kind, _ query: LayoutQuery, _ tx: any CatalogTransaction
    ) throws -> HotRead<SectionIndex> {
        try hotAnswer(.sectionIndex, engine: engine, query).flatMap { laidOut in
            let records = try tx.sections(feedID: query.feed.id)
            return sectionIndex(laidOut, records: records, query).map { .ready($0) } ?? .notKept
        }
    }

    /// The section index of `laidOut` with the catalog's sections `records`; `nil` when they are
    /// not the copy's sections (the copy is then dropped).
    func sectionIndex(_ laidOut: HotAnswer, records: [SectionRecord], _ query: LayoutQuery) -> SectionIndex? {
        let feed = query.feed
        let geometry = laidOut.geometry
        guard records.count == geometry.sections.count, zip(records, geometry.sections).allSatisfy({ $0.id == $1.id })
        else {
            hot?.forget(feedID: feed.id)
            return nil
        }
        return SectionIndex(
            feed: feed, layout: query.name, configuration: query.configuration, contentHeight: laidOut.contentHeight,
            records: records, counts: { geometry.sections[$0].keys.count }, bounds: laidOut.sectionBounds!)
    }
}
