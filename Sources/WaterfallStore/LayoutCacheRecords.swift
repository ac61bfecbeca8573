/// One layout cache entry: a (feed, configuration) pair and what is known of its end.
public struct LayoutCacheRecord: Hashable, Sendable {
    public var id: Int64
    /// The configuration's canonical JSON: the same configuration is the same entry.
    public var configuration: String
    /// Images between checkpoints.
    public var stride: Int
    /// The end of the layout, when it was computed at the feed's current revision.
    public var end: LayoutEndRecord?

    /// How many cache entries of inline configurations (and cover flows) a feed keeps beside
    /// those of its named layouts. Every inline configuration gets an entry (a gallery's "fit
    /// the window" makes one per window width), and every write invalidates every entry of its
    /// feed, so without a bound both the catalog and the cost of a move would grow with each
    /// configuration ever asked for.
    public static let maximumUnnamedEntries = 8
}

/// The end of a cached layout, valid while `revision` is the feed's revision.
public struct LayoutEndRecord: Hashable, Sendable {
    public var revision: Int64
    public var totalItems: Int
    public var contentHeight: Double
    /// The band occupied by the last chunk (after the last checkpoint) and the trailing
    /// sections' headers and footers.
    public var tailTop: Double
    public var tailBottom: Double

    public init(revision: Int64, totalItems: Int, contentHeight: Double, tailTop: Double, tailBottom: Double) {
        self.revision = revision
        self.totalItems = totalItems
        self.contentHeight = contentHeight
        self.tailTop = tailTop
        self.tailBottom = tailBottom
    }
}

/// A resumable layout state just before the image at catalog index `index`.
public struct CheckpointRecord: Hashable, Sendable {
    /// A positive multiple of the cache's stride.
    public var index: Int
    /// The order key of the image at `index`.
    public var key: Int64
    /// The section open in `state` (the section of the image at `index - 1`).
    public var sectionID: Int64
    /// The layout engine's serialized state.
    public var state: [UInt8]
    /// The band occupied by images `index - stride ..< index` and their headers and footers.
    public var bandTop: Double
    public var bandBottom: Double

    public init(index: Int, key: Int64, sectionID: Int64, state: [UInt8], bandTop: Double, bandBottom: Double) {
        self.index = index
        self.key = key
        self.sectionID = sectionID
        self.state = state
        self.bandTop = bandTop
        self.bandBottom = bandBottom
    }
}

/// Where a section starts and ends in a cached layout.
public struct SectionExtentRecord: Hashable, Sendable {
    public var sectionID: Int64
    /// The order key of the first image after the section (`Int64.max` when none).
    public var untilKey: Int64
    /// The y at which the section opened (before its header inset).
    public var startY: Double
    /// The bottom of its last image plus the section inset (its natural top when empty).
    public var endY: Double

    public init(sectionID: Int64, untilKey: Int64, startY: Double, endY: Double) {
        self.sectionID = sectionID
        self.untilKey = untilKey
        self.startY = startY
        self.endY = endY
    }
}

/// How much of one cached layout is valid, for `stats`.
public struct LayoutCacheCoverage: Hashable, Sendable {
    public var feed: String
    public var configuration: String
    /// The names under which the configuration is saved for the feed (may be empty: inline).
    public var names: [String]
    public var stride: Int
    public var checkpoints: Int
    /// Whether the end (content height) is valid at the feed's revision.
    public var isComplete: Bool
    public var feedImages: Int
}
