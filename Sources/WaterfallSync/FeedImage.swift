/// One image of a feed, as decoded and validated from a feed file.
///
/// Every value has already been checked against ``SyncLimits``: the id is non-empty, valid
/// UTF-8 without control characters; sizes are within 1…1,000,000 pixels.
public struct FeedImage: Hashable, Sendable {
    /// The feed-unique external id. A JSON integer id is stored as its decimal text (`397133`
    /// becomes `"397133"`).
    ///
    /// Ids are distinct as exact code-point sequences: compare them with ``ExactString`` (or
    /// their `utf8` views), not with `String.==`, which treats canonically equivalent strings
    /// (precomposed and decomposed "é") as equal.
    public var id: String
    /// The width in pixels, 1…1,000,000.
    public var width: Int32
    /// The height in pixels, 1…1,000,000.
    public var height: Int32
    /// The image's URL, if the feed gives one. Not checked to be a well-formed URL.
    public var url: String?
    /// The image's title, if the feed gives one.
    public var title: String?
    /// The image's section, as an index into ``FeedDocument/sectionNames``; `nil` is the
    /// unnamed section.
    public var section: Int32?
    /// Whether the image spans all columns.
    public var span: Span
    /// When the image was taken, in milliseconds since 1970-01-01T00:00:00Z (see ``TakenAt``).
    public var takenAt: Int64?
    /// A ThumbHash or BlurHash of the image, 1…64 printable ASCII characters, for a client to
    /// paint before the image loads (DESIGN section 16).
    public var placeholder: String?
    /// The image's colour, `#rrggbb` in lower case, to paint before the image loads.
    public var color: String?
    /// The sizes the image is served at.
    public var renditions: Renditions?
    /// The image's tags in the feed's order, each given once (see ``ImageTags``); empty when
    /// the feed gives none.
    public var tags: [String]

    /// Creates an image; the decoder is the usual source, this is for tests and callers that
    /// build feeds in code (values are not validated here).
    public init(
        id: String, width: Int32, height: Int32, url: String? = nil, title: String? = nil,
        section: Int32? = nil, span: Span = .normal, takenAt: Int64? = nil,
        placeholder: String? = nil, color: String? = nil, renditions: Renditions? = nil,
        tags: [String] = []
    ) {
        self.id = id
        self.width = width
        self.height = height
        self.url = url
        self.title = title
        self.section = section
        self.span = span
        self.takenAt = takenAt
        self.placeholder = placeholder
        self.color = color
        self.renditions = renditions
        self.tags = tags
    }
}
