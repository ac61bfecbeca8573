/// A value a page, viewport or cover-flow query gives besides its layout, described once: its
/// name, type, range, default and help. The HTTP API reads its query parameters by these names,
/// the command line's flags take their help from them, and the OpenAPI document's parameter
/// blocks are made from them. The rules that tie several together (``PageSlice``, a viewport's
/// pinned headers) are the service's.
public struct QueryParameter: Hashable, Sendable {
    /// The query parameter's name (the flag is it in kebab case).
    public let name: String
    /// Its entry's name in the OpenAPI document's `components.parameters`: the name with a
    /// capital, unless two parameters of one name differ (`limit` of a page and of `locate`).
    public let component: String
    public let type: ValueType
    /// The least value accepted, and whether it is itself excluded.
    public let minimum: Double?
    public let exclusiveMinimum: Bool
    /// The largest value accepted.
    public let maximum: Double?
    /// The value a query that leaves it out gets, as written; nil when there is none.
    public let defaultValue: String?
    /// Whether every query of its kind must give it.
    public let isRequired: Bool
    /// One sentence for people.
    public let help: String

    /// What a parameter holds.
    public enum ValueType: String, Hashable, Sendable {
        case integer, number, boolean, string
    }

    init(
        _ name: String, _ type: ValueType, minimum: Double? = nil, exclusiveMinimum: Bool = false,
        maximum: Double? = nil,
        default defaultValue: String? = nil, required isRequired: Bool = false, component: String? = nil, help: String
    ) {
        self.name = name
        self.component = component ?? name.prefix(1).uppercased() + name.dropFirst()
        self.type = type
        self.minimum = minimum
        self.exclusiveMinimum = exclusiveMinimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.isRequired = isRequired
        self.help = help
    }
}

extension QueryParameter {
    // A page (``PageSlice``): `page`/`pageSize` or `offset`/`limit`.
    public static let page = QueryParameter(
        "page", .integer, minimum: 0, maximum: Double(Int32.max), default: "0",
        help: "The page number, from 0; pages are pageSize images long.")
    public static let pageSize = QueryParameter(
        "pageSize", .integer, minimum: 1, maximum: Double(WaterfallService.maximumLimit),
        default: String(PageSlice.defaultPageSize),
        help: "Images per page, with page.")
    public static let offset = QueryParameter(
        "offset", .integer, minimum: 0, maximum: Double(WaterfallService.maximumOffset), default: "0",
        help: "Index of the first image, from 0, instead of page.")
    public static let limit = QueryParameter(
        "limit", .integer, minimum: 1, maximum: Double(WaterfallService.maximumLimit),
        default: String(PageSlice.defaultPageSize),
        help: "How many images from offset.")

    // A viewport: the band [y, y + height) and its pinned headers.
    public static let y = QueryParameter(
        "y", .number, minimum: -1e12, maximum: 1e12,
        help: "Top of the band, in points of content; required unless anchor is given.")
    public static let height = QueryParameter(
        "height", .number, minimum: 0, exclusiveMinimum: true, maximum: 1e12, required: true,
        help: "Height of the band in points.")
    public static let pinHeaders = QueryParameter(
        "pinHeaders", .boolean, default: "false",
        help: "Float section headers at the top of the band, as a plain-style table view does.")
    public static let pinOffset = QueryParameter(
        "pinOffset", .number, minimum: -1e12, maximum: 1e12,
        help: "With pinHeaders: pin headers this far below the top of the band (a navigation bar's height).")

    // A listing's cursor (DESIGN section 16).
    public static let cursor = QueryParameter(
        "cursor", .string,
        help:
            "Instead of offset: a listing's nextCursor, to go on as of its revision (410 once the feed has changed since)."
    )

    // A listing of the images that carry a tag (DESIGN section 20).
    public static let tag = QueryParameter(
        "tag", .string,
        help:
            "List only the images carrying this tag (compared exactly); index, totalItems and offset then count those images."
    )

    // An answer pinned to a revision (DESIGN section 20).
    public static let revision = QueryParameter(
        "revision", .integer, minimum: 0, maximum: 1e15,
        help:
            "Pin the answer to this revision of the feed: cacheable for good (immutable), or 410 once the feed is at another."
    )

    // A viewport anchored at an image (DESIGN section 16), instead of y.
    public static let anchor = QueryParameter(
        "anchor", .string,
        help:
            "An image's id, instead of y: the band starts so that the image's top is anchorY points below its top (a client keeps its place across a change of layout, column count or size)."
    )
    public static let anchorY = QueryParameter(
        "anchorY", .number, minimum: -1e12, maximum: 1e12, default: "0",
        help: "With anchor: how far below the band's top the image's top sits, in points.")

    // Locate (DESIGN sections 16 and 17): an image by id or by date.
    public static let id = QueryParameter(
        "id", .string, help: "The image's id; give id or date.")
    public static let date = QueryParameter(
        "date", .string,
        help:
            "Instead of id: the first image, in catalog order, taken at or before this moment, YYYY-MM-DD (its midnight) or YYYY-MM-DDTHH:MM, in the feed's time zone."
    )
    public static let locateLimit = QueryParameter(
        "limit", .integer, minimum: 1, maximum: Double(WaterfallService.maximumLimit),
        default: String(WaterfallService.defaultLocateLimit),
        component: "LocateLimit", help: "The page size the answer's offset counts in.")

    // A cover flow's viewport.
    public static let x = QueryParameter(
        "x", .number, minimum: -1e15, maximum: 1e15, required: true,
        help: "Horizontal offset of the viewport in points (the proposed offset for snapping).")
    public static let viewportWidth = QueryParameter(
        "viewportWidth", .number, minimum: 0, exclusiveMinimum: true, maximum: 1e12, required: true,
        help: "Width of the viewport in points.")

    // Right-sized images (DESIGN section 16).
    public static let dpr = QueryParameter(
        "dpr", .number, minimum: 0, exclusiveMinimum: true, maximum: DevicePixelRatio.maximum,
        help:
            "Device pixels per point of the screen that shows the images: each image's url is its smallest rendition at least its frame's width times dpr pixels wide (else its largest); by default the layout's scale."
    )

    /// Every parameter, in the order the document lists them.
    public static let all: [QueryParameter] = [
        page, pageSize, offset, limit, cursor, tag, revision, y, height, pinHeaders, pinOffset, anchor, anchorY, id,
        date,
        locateLimit,
        x, viewportWidth, dpr,
    ]
}
