import Foundation
import WaterfallStore
import WaterfallSync

/// A view's rule made ready to test images of one feed (DESIGN section 20): its local dates
/// read in the feed's time zone, its sections compared exactly.
struct ViewMatcher {
    let rule: ViewRule
    /// Taken at or after, before; milliseconds since the epoch.
    let from: Int64?
    let to: Int64?
    /// The sections named, by their UTF-8 bytes (`nil`: the unnamed section); `nil`: any.
    private let sections: Set<[UInt8]?>?

    /// - Throws: ``WaterfallError/database(_:)`` when the feed names a time zone this system
    ///   does not know (the rule's local dates cannot be read).
    init(_ rule: ViewRule, feed: FeedRecord) throws(WaterfallError) {
        self.rule = rule
        if rule.isOnDates {
            let zoneName = feed.timeZone ?? "UTC"
            guard let zone = TimeZoneName.zone(named: zoneName) else {
                throw WaterfallError.database(
                    "feed \(feed.name.quoted) names a time zone this system does not know, \(zoneName.quoted).")
            }
            from = rule.takenFrom?.milliseconds(in: zone)
            to = rule.takenTo?.milliseconds(in: zone)
        } else {
            (from, to) = (nil, nil)
        }
        sections = rule.sections.map { Set($0.map { $0.map { Array($0.utf8) } }) }
    }

    /// The rule as resolved for the feed: a membership built under another (the feed's time
    /// zone changed) is built anew.
    var resolved: String {
        "takenAt \(from.map(String.init) ?? "-") \(to.map(String.init) ?? "-")"
    }

    /// Whether the image `row`, in the section named `section`, belongs to the view.
    func matches(_ row: ImageRecord, section: String?) -> Bool {
        if let sections, !sections.contains(section.map { Array($0.utf8) }) { return false }
        if let min = rule.aspectMin, Double(row.width) / Double(row.height) < min { return false }
        if let max = rule.aspectMax, Double(row.width) / Double(row.height) > max { return false }
        if rule.isOnDates {
            guard let taken = row.takenAt else { return false }
            if let from, taken < from { return false }
            if let to, taken >= to { return false }
        }
        if !rule.allTags.isEmpty || !rule.anyTags.isEmpty || !rule.noneTags.isEmpty {
            let tags = ImageTags.tags(storedText: row.tags)
            if !rule.allTags.allSatisfy({ ImageTags.contains(tags, $0) }) { return false }
            if !rule.anyTags.isEmpty && !rule.anyTags.contains(where: { ImageTags.contains(tags, $0) }) { return false }
            if rule.noneTags.contains(where: { ImageTags.contains(tags, $0) }) { return false }
        }
        return true
    }
}
