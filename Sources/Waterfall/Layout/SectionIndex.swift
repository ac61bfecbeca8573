import WaterfallLayout
import WaterfallStore

/// The section index of a layout (DESIGN section 14): every section of the feed in catalog
/// order, empty ones included, with where its images start in the catalog and where it stands
/// in the layout: what a timeline scrubber needs. The JSON of `sections --layout NAME --json`
/// and of `GET /v1/feeds/{feed}/layouts/{name}/sections`: `{"revision", "contentHeight",
/// "sections": [{"section", "title", "index", "count", "y", "height"}]}`.
public struct SectionIndex: Hashable, Sendable {
    /// One section of the index.
    public struct Section: Hashable, Sendable {
        /// The section's id as feeds write it; `nil` (JSON `null`) for the unnamed section.
        public var section: String?
        /// What a person reads: the section's title, else its id; `nil` (JSON `null`) for the
        /// unnamed section, which has neither (a front end names it in its own words).
        public var title: String?
        /// The catalog index of the section's first image; for an empty section, of the first
        /// image after it (the feed's image count when none follows).
        public var index: Int
        /// The section's images.
        public var count: Int
        /// Where the section begins, in points: DESIGN's `y` at the top of the section's loop,
        /// above its header inset.
        public var y: Double
        /// From `y` to where the section ends (below its footer and footer inset, where the
        /// next section begins), in points.
        public var height: Double
        /// The earliest `takenAt` of the section's images, RFC 3339 in UTC (DESIGN section 17);
        /// absent from the JSON when none of them has a date.
        public var firstTakenAt: String? = nil
        /// The latest `takenAt` of the section's images; absent when none has a date.
        public var lastTakenAt: String? = nil

    }

    /// The feed's name (not part of the JSON).
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    /// The named layout, `nil` for an inline configuration (not part of the JSON).
    public var layout: String?
    /// The height of the whole content, in points: the last section's end, or
    /// `minimumContentHeight` when that is larger.
    public var contentHeight: Double
    public var sections: [Section]
    /// The configuration used (not part of the JSON).
    public var configuration: AnyLayoutConfiguration

    /// The feed's image count: the sum of the sections' counts (not part of the JSON).
    public var totalItems: Int { sections.last.map { $0.index + $0.count } ?? 0 }

}

/// Where each section of a laid-out feed begins, and where the last one ends: all the layout
/// gives a ``SectionIndex`` (the rest is the catalog's), whichever way it was found (a hot
/// copy, the layout cache, a pass over the feed).
struct SectionBounds {
    /// `y` where each section begins, in catalog order.
    var starts: [Double]
    /// `y` below the last section's footer (the initial `y` when the feed has no section).
    var end: Double
}

extension SectionIndex {
    /// Joins the catalog's sections (names, titles, image counts by section id) with where the
    /// layout puts them. `bounds.starts` holds one `y` per section of `records`, in order.
    init(
        feed: FeedRecord, layout: String?, configuration: AnyLayoutConfiguration, contentHeight: Double,
        records: [SectionRecord], counts: (Int) -> Int, bounds: SectionBounds
    ) {
        var sections: [Section] = []
        sections.reserveCapacity(records.count)
        var index = 0
        for (ordinal, record) in records.enumerated() {
            let y = bounds.starts[ordinal]
            let end = ordinal + 1 < bounds.starts.count ? bounds.starts[ordinal + 1] : bounds.end
            let count = counts(ordinal)
            sections.append(
                Section(
                    section: record.name, title: record.title ?? record.name, index: index, count: count, y: y,
                    height: end - y))
            index += count
        }
        self.init(
            feed: feed.name, revision: feed.revision, incarnation: feed.id, layout: layout,
            contentHeight: contentHeight, sections: sections,
            configuration: configuration)
    }
}
