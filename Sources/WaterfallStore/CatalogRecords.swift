/// A feed as the catalog holds it.
public struct FeedRecord: Hashable, Sendable {
    /// The database's id of the feed.
    public var id: Int64
    /// The feed's unique name.
    public var name: String
    /// Bumped by every committed change to the feed.
    public var revision: Int64
    /// How many images the feed holds.
    public var imageCount: Int
    /// The feed's date sections (DESIGN section 17): `day`, `month` or `year`; `nil` when the
    /// feed's own `section` fields make its sections.
    public var sectionBy: String? = nil
    /// The IANA time zone of the date sections; `nil` is UTC.
    public var timeZone: String? = nil
    /// Set by the service when the record stands for a view's membership (DESIGN section 20):
    /// the view's name, with `name` its feed's; `nil` for a feed. Never stored.
    public var view: String? = nil
    /// With `view`: the id of the view's feed, whose named layouts the view uses.
    public var viewOf: Int64? = nil

    /// The feed whose named layouts this one uses: its own, or a view's feed's.
    public var layoutFeedID: Int64 { viewOf ?? id }
}

/// A view of a feed (DESIGN section 20): its rule, and the feed that holds its images.
public struct ViewRecord: Hashable, Sendable {
    /// The feed the view filters.
    public var feedID: Int64
    /// The view's name, unique in its feed.
    public var name: String
    /// The rule as canonical JSON (`{"where": {…}}`).
    public var rule: String
    /// The view's membership: a feed holding a copy of each image of `feedID` that matches, at
    /// the same order key; its id is the view's incarnation.
    public var membershipID: Int64
    /// The rule as the membership was built under it (dates made moments): made anew when it
    /// changes.
    public var resolved: String

    public init(feedID: Int64, name: String, rule: String, membershipID: Int64, resolved: String) {
        self.feedID = feedID
        self.name = name
        self.rule = rule
        self.membershipID = membershipID
        self.resolved = resolved
    }
}

/// A share link (DESIGN section 20): what its token hands out, until when.
public struct ShareRecord: Hashable, Sendable {
    /// Its id (0 until saved).
    public var id: Int64
    /// The SHA-256 of its token.
    public var tokenHash: [UInt8]
    public var feedID: Int64
    /// The feed's name (read with the share; not stored with it).
    public var feedName: String
    /// The view it hands out, by name; `nil`: the whole feed.
    public var view: String?
    /// The one named layout it allows; `nil`: any layout, inline ones too.
    public var layout: String?
    /// When it stops answering, in seconds since the epoch; `nil`: never.
    public var expiresAt: Int64?
    public var createdAt: Int64

    public init(
        id: Int64 = 0, tokenHash: [UInt8], feedID: Int64, feedName: String, view: String?, layout: String?,
        expiresAt: Int64?, createdAt: Int64
    ) {
        self.id = id
        self.tokenHash = tokenHash
        self.feedID = feedID
        self.feedName = feedName
        self.view = view
        self.layout = layout
        self.expiresAt = expiresAt
        self.createdAt = createdAt
    }
}

/// A feed with its counts, as `feeds` lists it.
public struct FeedSummary: Hashable, Sendable {
    /// The database's id of the feed: its incarnation, never used twice (DESIGN section 19).
    public var id: Int64
    public var name: String
    public var revision: Int64
    public var images: Int
    public var sections: Int
    public var layouts: Int
}

/// A section of a feed. Sections are ordered by `position`; `name == nil` is the unnamed section.
public struct SectionRecord: Hashable, Sendable {
    public var id: Int64
    public var name: String?
    public var title: String?
    /// Sparse order among the feed's sections.
    public var position: Int64
    /// Listed in `sections` of the last snapshot import (or of an append import since).
    public var isDeclared: Bool

    public init(id: Int64, name: String?, title: String?, position: Int64, isDeclared: Bool) {
        self.id = id
        self.name = name
        self.title = title
        self.position = position
        self.isDeclared = isDeclared
    }
}

/// An image row. Catalog order is `key` order within a feed.
public struct ImageRecord: Hashable, Sendable {
    /// The sparse order key.
    public var key: Int64
    /// The feed-unique id given by the feed.
    public var externalID: String
    public var sectionID: Int64
    /// Pixel width, 1…1,000,000.
    public var width: Int32
    /// Pixel height, 1…1,000,000.
    public var height: Int32
    /// A banner across all columns (`"span": "full"`).
    public var isFullSpan: Bool
    public var url: String?
    public var title: String?
    /// When the image was taken, in milliseconds since 1970-01-01T00:00:00Z; `nil` when unknown.
    public var takenAt: Int64?
    /// A ThumbHash or BlurHash to paint before the image loads (DESIGN section 16).
    public var placeholder: String?
    /// The image's colour, `#rrggbb` in lower case.
    public var color: String?
    /// The sizes the image is served at, as the catalog stores them (one line a rendition,
    /// `WIDTH URL`, or `* TEMPLATE`; the service reads them with `Renditions(storedText:)`).
    public var renditions: String?
    /// The image's tags as the catalog stores them (one line a tag, in the feed's order; the
    /// service reads them with `ImageTags.tags(storedText:)`); `nil` for none (DESIGN section 20).
    public var tags: String?

    public init(
        key: Int64, externalID: String, sectionID: Int64, width: Int32, height: Int32,
        isFullSpan: Bool, url: String?, title: String?, takenAt: Int64? = nil,
        placeholder: String? = nil, color: String? = nil, renditions: String? = nil, tags: String? = nil
    ) {
        self.key = key
        self.externalID = externalID
        self.sectionID = sectionID
        self.width = width
        self.height = height
        self.isFullSpan = isFullSpan
        self.url = url
        self.title = title
        self.takenAt = takenAt
        self.placeholder = placeholder
        self.color = color
        self.renditions = renditions
        self.tags = tags
    }
}

/// An image's order key and when it was taken (``ImageRows/keysAndDates(sectionIDs:)``).
public struct KeyAndDate: Hashable, Sendable {
    public var key: Int64
    /// Milliseconds since 1970-01-01T00:00:00Z; `nil` when unknown.
    public var takenAt: Int64?

    public init(key: Int64, takenAt: Int64?) {
        self.key = key
        self.takenAt = takenAt
    }
}

/// The layout-relevant part of an image row, read by the layout scans.
public struct ImageGeometry: Hashable, Sendable {
    public var key: Int64
    public var sectionID: Int64
    public var width: Int32
    public var height: Int32
    public var isFullSpan: Bool

    public init(key: Int64, sectionID: Int64, width: Int32, height: Int32, isFullSpan: Bool) {
        self.key = key
        self.sectionID = sectionID
        self.width = width
        self.height = height
        self.isFullSpan = isFullSpan
    }
}

/// What a change-log row says happened to one image.
public enum ChangeKind: String, Hashable, Sendable, CaseIterable {
    case insert, update, move, remove
}

/// One row of the change log.
public struct ChangeRecord: Hashable, Sendable {
    public var revision: Int64
    public var kind: ChangeKind
    public var externalID: String
    /// The image's section after the change (`nil`: the unnamed section, or a removal).
    public var section: String?

    public init(revision: Int64, kind: ChangeKind, externalID: String, section: String?) {
        self.revision = revision
        self.kind = kind
        self.externalID = externalID
        self.section = section
    }
}

/// A named layout: a configuration saved under a name for one feed.
public struct NamedLayoutRecord: Hashable, Sendable {
    public var name: String
    /// The configuration's canonical JSON (the service encodes and decodes it).
    public var configuration: String

    public init(name: String, configuration: String) {
        self.name = name
        self.configuration = configuration
    }
}

/// The order keys on either side of an image's (``ImageRows/neighbourKeys(feedID:of:)``).
public struct NeighbourKeys: Hashable, Sendable {
    /// The greatest key below it, `nil` for the first image.
    public var before: Int64?
    /// The least key above it, `nil` for the last image.
    public var after: Int64?

    public init(before: Int64?, after: Int64?) {
        self.before = before
        self.after = after
    }
}

/// Which state of which feed an answer shows (DESIGN section 19): the feed's incarnation (its
/// id, never used twice in a catalog, so a feed removed and made anew has another) and its
/// revision. A server's entity tags carry both, and a write's `If-Match` expects both: a client
/// that read a feed since removed cannot write to the feed made anew under its name.
public struct FeedVersion: Hashable, Sendable {
    public var incarnation: Int64
    public var revision: Int64

    public init(incarnation: Int64, revision: Int64) {
        self.incarnation = incarnation
        self.revision = revision
    }
}
