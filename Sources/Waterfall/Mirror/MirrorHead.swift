import WaterfallStore

/// The first line of what a server hands a mirror of one of its feeds (DESIGN section 21): the
/// feed's state at one revision but for its images, which follow a line each
/// (``WaterfallService/streamMirror(feed:since:incarnation:head:images:)``).
///
/// A **listing** (`since` absent) is followed by every image of the feed in catalog order,
/// `totalItems` lines. A **catch-up** from `since` is followed by the images the change log
/// names since then that the feed still holds, in catalog order; `after` gives, for each, the
/// id of the image before it in the feed (`nil` for the first), `removed` the ids named that
/// the feed no longer holds, and `changes` the change log's rows since `since`. A mirror at
/// `since` that takes out every image named and puts each line back after its `after`, in line
/// order, holds the feed at `revision`: the images the log does not name kept their order.
public struct MirrorHead: Hashable, Sendable {
    /// A section of the feed, in order.
    public struct Section: Hashable, Sendable {
        /// Its name; `nil` for the unnamed section.
        public var id: String?
        public var title: String?
        /// Listed by the feed (kept when empty).
        public var declared: Bool

        public init(id: String?, title: String?, declared: Bool) {
            self.id = id
            self.title = title
            self.declared = declared
        }
    }

    /// A named layout or a view: its name and its canonical JSON (the configuration, the rule).
    public struct Named: Hashable, Sendable {
        public var name: String
        public var json: String

        public init(name: String, json: String) {
            self.name = name
            self.json = json
        }
    }

    /// Who the source catalog is (``WaterfallService/catalogIdentity(_:)``): another means
    /// another catalog, whatever its address, and the mirror lists everything again.
    public var catalog: String
    public var feed: String
    /// The source's incarnation of the feed (DESIGN section 19).
    public var incarnation: Int64
    public var revision: Int64
    /// The revision a catch-up starts from; `nil` for a listing.
    public var since: Int64?
    /// The images the feed holds at `revision`.
    public var totalItems: Int
    public var sectionBy: String?
    public var timeZone: String?
    public var sections: [Section]
    public var layouts: [Named]
    public var views: [Named]
    /// A catch-up's change-log rows after `since`, oldest first.
    public var changes: [ChangeList.Change]
    /// A catch-up's ids named by `changes` that the feed no longer holds.
    public var removed: [String]
    /// A catch-up's predecessor of each image line, in line order.
    public var after: [String?]

    public init(
        catalog: String, feed: String, incarnation: Int64, revision: Int64, since: Int64?, totalItems: Int,
        sectionBy: String?,
        timeZone: String?, sections: [Section], layouts: [Named], views: [Named], changes: [ChangeList.Change] = [],
        removed: [String] = [], after: [String?] = []
    ) {
        self.catalog = catalog
        self.feed = feed
        self.incarnation = incarnation
        self.revision = revision
        self.since = since
        self.totalItems = totalItems
        self.sectionBy = sectionBy
        self.timeZone = timeZone
        self.sections = sections
        self.layouts = layouts
        self.views = views
        self.changes = changes
        self.removed = removed
        self.after = after
    }
}
