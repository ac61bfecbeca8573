import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// ``sectionIndex(feed:layout:)`` from the hot copy, inside the read transaction that
    /// resolved `feed`: each section's plan gives where it begins and ends, the copy gives its
    /// image count; only the sections' names and titles are read. O(sections), no image row.
    func hotSectionIndex<Kind: StreamingLayoutKind>(
        engine: Kind, configuration: AnyLayoutConfiguration, name: String?, feed: FeedRecord, _ tx: any CatalogTransaction
    ) throws -> HotAnswer<SectionIndex> {
        let lookup = try hotLookup(engine: engine, configuration: configuration, feed: feed, tx)
        guard let hot, case .placed(let geometry, let placement) = lookup else { return lookup.unanswered() }
        let records = try tx.sections(feedID: feed.id)
        guard records.count == geometry.sections.count, zip(records, geometry.sections).allSatisfy({ $0.id == $1.id }) else {
            hot.forget(feedID: feed.id)
            return .notKept
        }
        let last = placement.plans.indices.last
        let bounds = SectionBounds(
            starts: placement.plans.indices.map(placement.origin(of:)),
            end: last.map { placement.plans[$0].end + placement.shifts[$0] } ?? engine.initialState.y)
        return .answer(SectionIndex(
            feed: feed, layout: name, configuration: configuration, contentHeight: placement.contentHeight,
            records: records, counts: { geometry.sections[$0].keys.count }, bounds: bounds))
    }
}
