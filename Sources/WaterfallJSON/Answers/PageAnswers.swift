import Waterfall

// The answers of `page`, `viewport` and the section index, each described once: these tables
// write their JSON (the command line's `--json` and the HTTP bodies) and give the schemas the
// OpenAPI document publishes.

extension PlacedImage: JSONAnswer {
    public static let members: [AnswerMember<PlacedImage>] = [
        .integer("index") { $0.index },
        .string("id") { $0.id },
        .string("section", ifAbsent: .null) { $0.section },
        .frame { $0.frame },
        .string(
            "url", ifAbsent: .null,
            description:
                "The image's smallest rendition at least its frame's width × `dpr` pixels wide (`dpr` defaults to the layout's `scale`), else its largest rendition, else the image's own URL."
        ) { $0.url },
        .string(
            "takenAt", .format("date-time"), ifAbsent: .omitted,
            description:
                ImageProse.takenAt
        ) { $0.takenAt },
        .string(
            "placeholder", .minLength(1), .maxLength(64), ifAbsent: .omitted,
            description:
                ImageProse.placeholder
        ) { $0.placeholder },
        .string(
            "color", .pattern("^#[0-9a-f]{6}$"), ifAbsent: .omitted,
            description:
                ImageProse.color
        ) { $0.color },
    ]

    public static let schemas = [schema("PlacedImage", description: "An image with its frame, in points.")]
}

extension PlacedSupplement: JSONAnswer {
    public static let members: [AnswerMember<PlacedSupplement>] = [
        .string("section", ifAbsent: .null) { $0.section },
        .frame { $0.frame },
        .boolean("pinned", ifAbsent: .omitted, description: "Whether a pinned header moved from its natural place.") {
            $0.pinned
        },
    ]

    /// A header always says whether it is pinned; a footer never does.
    public static let schemas = [
        schema("Header", description: "A section header's frame.").requiring(["pinned"]),
        schema("Footer", description: "A section footer's frame.").removing(["pinned"]),
    ]
}

extension LayoutPage: JSONAnswer {
    public static let members: [AnswerMember<LayoutPage>] =
        AnswerMember.placedHead + [
            .integer("nextOffset", ifAbsent: .null, description: "The offset after this page; null at the end.") {
                $0.nextOffset
            }
        ] + AnswerMember.placedElements

    public static let schemas = [
        schema(
            "Page",
            description:
                "A page of frames: images offset..<offset + limit, the headers of sections whose first image is in it and the footers of sections whose last image is in it."
        )
    ]
}

extension ViewportPage: JSONAnswer {
    public static let members: [AnswerMember<ViewportPage>] =
        AnswerMember.placedHead + [.number("y") { $0.y }, .number("height") { $0.height }] + AnswerMember.placedElements

    public static let schemas = [
        schema(
            "Viewport", description: "Every header, image and footer whose frame meets the band [y, y + height).")
    ]
}

extension SectionIndex.Section: JSONAnswer {
    public static let members: [AnswerMember<SectionIndex.Section>] = [
        .string("section", ifAbsent: .null, description: "The section id; null for the unnamed section.") {
            $0.section
        },
        .string(
            "title", ifAbsent: .null,
            description: "The section's title, else its id; null for the unnamed section, which has neither."
        ) { $0.title },
        .integer(
            "index", .minimum(0),
            description:
                "The catalog index of the section's first image; for an empty section, of the first image after it (the feed's image count when none follows)."
        ) { $0.index },
        .integer("count", .minimum(0), description: "The section's images.") { $0.count },
        .number("y", description: "Where the section begins: the y at the top of its loop, above its header inset.") {
            $0.y
        },
        .number(
            "height", .minimum(0),
            description: "From y to where the section ends, below its footer and footer inset: the next section's y."
        ) { $0.height },
        .string(
            "firstTakenAt", .format("date-time"), ifAbsent: .omitted,
            description: "The earliest takenAt of the section's images (RFC 3339, UTC); absent when none has one."
        ) { $0.firstTakenAt },
        .string(
            "lastTakenAt", .format("date-time"), ifAbsent: .omitted,
            description: "The latest takenAt of the section's images (RFC 3339, UTC); absent when none has one."
        ) { $0.lastTakenAt },
    ]

    public static let schemas = [schema("IndexedSection", description: "One section of a section index.")]
}

extension SectionIndex: JSONAnswer {
    public static let members: [AnswerMember<SectionIndex>] = [
        .integer("revision") { $0.revision },
        .number(
            "contentHeight", description: "The last section's end, or minimumContentHeight when that is larger."
        ) { $0.contentHeight },
        .array("sections", of: "IndexedSection") { $0.sections },
    ]

    public static let schemas = [
        schema(
            "SectionIndex",
            description:
                "The section index of a layout (`sections --layout NAME --json`): every section in catalog order, empty ones included."
        )
    ]
}

/// What a page and a viewport both are: which feed, revision and layout, its size, and the
/// elements placed; their tables share the members that say so (``AnswerMember/placedHead``,
/// ``AnswerMember/placedElements``).
public protocol PlacedAnswer: Sendable {
    var feed: String { get }
    var revision: Int64 { get }
    var layout: String? { get }
    var contentHeight: Double { get }
    var totalItems: Int { get }
    var items: [PlacedImage] { get }
    var headers: [PlacedSupplement] { get }
    var footers: [PlacedSupplement] { get }
}

extension LayoutPage: PlacedAnswer {}
extension ViewportPage: PlacedAnswer {}

extension AnswerMember where Answer: PlacedAnswer {
    /// The first members of a page or a viewport: which feed, revision and layout, and its size.
    static var placedHead: [Self] {
        [
            .string("feed") { $0.feed },
            .integer("revision") { $0.revision },
            .string("layout", ifAbsent: .null, description: "The named layout; null for an inline configuration.") {
                $0.layout
            },
            .number("contentHeight") { $0.contentHeight },
            .integer("totalItems") { $0.totalItems },
        ]
    }

    /// The last members of a page or a viewport: its images, headers and footers.
    static var placedElements: [Self] {
        [
            .array("items", of: "PlacedImage") { $0.items },
            .array("headers", of: "Header") { $0.headers },
            .array("footers", of: "Footer") { $0.footers },
        ]
    }
}
