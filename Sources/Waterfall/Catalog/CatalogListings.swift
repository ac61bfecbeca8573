import WaterfallStore
import WaterfallSync

/// `feeds --json`: every feed with its counts.
public struct FeedList: Hashable, Sendable {
    public struct Feed: Hashable, Sendable {
        public var name: String
        public var images: Int
        public var sections: Int
        public var revision: Int64
        /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
        /// JSON; the answer's entity tag carries it.
        public var incarnation: Int64
        public var layouts: Int
    }
    public var feeds: [Feed]
}

/// `images --json`: a slice of a feed's catalog order.
public struct ImageList: Hashable, Sendable {
    public struct Image: Hashable, Sendable {
        public var index: Int
        public var id: String
        public var section: String?
        public var width: Int
        public var height: Int
        public var url: String?
        public var title: String?
        /// When the image was taken, RFC 3339 in UTC (DESIGN section 17); absent from the JSON
        /// when unknown.
        public var takenAt: String?
        /// The placeholder, colour and renditions as the feed gave them (DESIGN section 16);
        /// each absent from the JSON when the feed gives none.
        public var placeholder: String? = nil
        public var color: String? = nil
        public var renditions: Renditions? = nil
        /// The image's tags in the feed's order (DESIGN section 20); absent from the JSON when
        /// it has none.
        public var tags: [String] = []
        /// Set for full-span images only; not part of the JSON.
        public var isFullSpan: Bool

    }
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    public var totalItems: Int
    public var nextOffset: Int?
    /// Where the listing goes on as of its revision (`images?cursor=`, DESIGN section 16): an
    /// opaque token; absent from the JSON at the end.
    public var nextCursor: String?
    public var images: [Image]

}

extension ImageList.Image {
    /// The entry for `row` at catalog index `index` in section `section` (its name, `nil` for
    /// the unnamed one): what a slice, a cursor's slice and the NDJSON stream all list.
    init(_ row: ImageRecord, index: Int, section: String?) {
        self.init(
            index: index, id: row.externalID, section: section, width: Int(row.width), height: Int(row.height),
            url: row.url, title: row.title, takenAt: row.takenAt.map(TakenAt.string(milliseconds:)),
            placeholder: row.placeholder, color: row.color,
            renditions: row.renditions.flatMap(Renditions.init(storedText:)),
            tags: ImageTags.tags(storedText: row.tags), isFullSpan: row.isFullSpan)
    }
}

/// `changes --since R --json`: the change log after revision R.
public struct ChangeList: Hashable, Sendable {
    public struct Change: Hashable, Sendable {
        public var revision: Int64
        public var kind: String
        public var id: String
        public var section: String?

        public init(revision: Int64, kind: String, id: String, section: String?) {
            self.revision = revision
            self.kind = kind
            self.id = id
            self.section = section
        }
    }
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    /// The revision to ask the changes since next, when a `limit` cut the log short; `nil` (and
    /// absent from the JSON) when the page reaches the end of the log.
    public var nextSince: Int64?
    public var changes: [Change]
    /// A first revision of more than ``WaterfallService/maximumLimit`` changes, given by its
    /// counts alone (DESIGN section 19): its number, and how many changes of each kind it made;
    /// `nil` otherwise.
    public var truncated: (revision: Int64, counts: [ChangeKind: Int])? {
        get { truncatedRevision.map { ($0, truncatedCounts) } }
        set {
            truncatedRevision = newValue?.revision
            truncatedCounts = newValue?.counts ?? [:]
        }
    }
    public var truncatedRevision: Int64? = nil
    public var truncatedCounts: [ChangeKind: Int] = [:]

}

/// `sections --json`: a feed's sections in order, with their titles and image counts.
public struct SectionList: Hashable, Sendable {
    public struct Section: Hashable, Sendable {
        /// The section's id as feeds write it; `null` for the unnamed section.
        public var id: String?
        public var title: String?
        public var images: Int

    }
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    public var sections: [Section]
}

/// A page of a feed's change log as an event stream sends it
/// (``WaterfallService/changeEvents(feed:since:limit:)``): an event per revision.
public struct ChangeEventPage: Hashable, Sendable {
    /// One revision's changes.
    public enum Event: Hashable, Sendable {
        /// Every change of the revision, in order.
        case whole(revision: Int64, changes: [ChangeList.Change])
        /// A revision of more changes than a page holds: how many of each kind it made; the
        /// client lists the feed again, or pages `changes`.
        case truncated(revision: Int64, counts: [ChangeKind: Int])

        /// The revision the event is about.
        public var revision: Int64 {
            switch self {
            case .whole(let revision, _), .truncated(let revision, _): revision
            }
        }
    }

    /// The feed's incarnation and revision when the page was read.
    public var version: FeedVersion
    public var events: [Event] = []
    /// Whether the log goes on after the page's last revision.
    public var more = false
}
