import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// The section index of `laidOut` with the catalog's sections `records`; `nil` when they are
    /// not the copy's sections (the copy is then dropped).
    func sectionIndex(_ laidOut: KeptFeedAnswer, records: [SectionRecord], _ query: LayoutQuery) -> SectionIndex? {
        let feed = query.feed
        let geometry = laidOut.geometry
        guard records.count == geometry.sections.count, zip(records, geometry.sections).allSatisfy({ $0.id == $1.id })
        else {
            keptFeeds?.forget(feedID: feed.id)
            return nil
        }
        return SectionIndex(
            feed: feed, layout: query.name, configuration: query.configuration, contentHeight: laidOut.contentHeight,
            records: records, counts: { geometry.sections[$0].keys.count }, bounds: laidOut.sectionBounds!)
    }
}
