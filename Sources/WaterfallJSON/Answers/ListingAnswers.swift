import Waterfall

// The answers that list a feed's catalog, layouts and changes, each described once: these
// tables write their JSON and give the schemas the OpenAPI document publishes. (The list of
// feeds is with the statistics, which hold its entries: `CatalogAnswers.swift`.)

/// The sentences every answer that lists images shares.
enum ImageProse {
    static let takenAt =
        "When the image was taken (RFC 3339, in UTC: `2017-11-14T15:28:13Z`, with milliseconds when not zero); absent when the feed gave none."
    static let placeholder =
        "The image's ThumbHash or BlurHash as the feed gave it, to paint before the image loads; absent when the feed gave none."
    static let color =
        "The image's colour, `#rrggbb` in lower case, to paint before the image loads; absent when the feed gave none."
}

/// A rendition as the feed gave it (``Rendition``'s own `Encodable` form, the feed's).
let renditionSchema = AnswerSchema(
    name: "Rendition", description: nil,
    members: [
        MemberSchema(
            name: "width", value: .integer, presence: .required, constraints: [.minimum(1), .maximum(1_000_000)],
            description: "Pixel width of this rendition."),
        MemberSchema(name: "url", value: .string, presence: .required, constraints: [.minLength(1), .maxLength(4096)]),
    ])

extension ImageList.Image: JSONAnswer {
    public static let members: [AnswerMember<ImageList.Image>] = [
        .integer("index") { $0.index },
        .string("id") { $0.id },
        .string("section", ifAbsent: .null) { $0.section },
        .integer("width") { $0.width },
        .integer("height") { $0.height },
        .string("url", ifAbsent: .null) { $0.url },
        .string("title", ifAbsent: .null) { $0.title },
        .string("takenAt", .format("date-time"), ifAbsent: .omitted, description: ImageProse.takenAt) { $0.takenAt },
        .string("placeholder", .minLength(1), .maxLength(64), ifAbsent: .omitted, description: ImageProse.placeholder) {
            $0.placeholder
        },
        .string("color", .pattern("^#[0-9a-f]{6}$"), ifAbsent: .omitted, description: ImageProse.color) { $0.color },
        .encoded(
            "renditions", as: .objects(renditionSchema), .maxItems(32), ifAbsent: .omitted,
            description: "The renditions as the feed gave them; absent when it gave none (or a `urlTemplate`)."
        ) { image -> [Rendition]? in
            if case .list(let list)? = image.renditions { list } else { nil }
        },
        .string(
            "urlTemplate", .maxLength(4096), .pattern("\\{width\\}"), ifAbsent: .omitted,
            description: "The URL template as the feed gave it; absent when it gave none."
        ) { image -> String? in
            if case .template(let template)? = image.renditions { template } else { nil }
        },
        .encoded(
            "tags", as: .strings, .maxItems(ImageTags.maximumCount), ifAbsent: .omitted,
            description:
                "The image's tags in the feed's order (each 1 to 64 bytes, compared exactly); absent when it has none."
        ) { $0.tags.isEmpty ? nil : $0.tags },
    ]

    public static let schemas = [
        schema("CatalogImage", description: "An image in catalog order; `width` and `height` are its pixel size.")
    ]
}

extension ImageList: JSONAnswer {
    public static let members: [AnswerMember<ImageList>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .integer("totalItems") { $0.totalItems },
        .integer("nextOffset", ifAbsent: .null, description: "The offset of the next slice; null at the end.") {
            $0.nextOffset
        },
        .string(
            "nextCursor", ifAbsent: .omitted,
            description:
                "Where the listing goes on as of its revision (`cursor=`): an opaque token; absent at the end."
        ) { $0.nextCursor },
        .array("images", of: "CatalogImage") { $0.images },
    ]

    public static let schemas = [schema("ImageList", description: "A slice of a feed's catalog order.")]
}

extension SectionList.Section: JSONAnswer {
    public static let members: [AnswerMember<SectionList.Section>] = [
        .string("id", ifAbsent: .null, description: "The section id; null for the unnamed section.") { $0.id },
        .string("title", ifAbsent: .null) { $0.title },
        .integer("images", .minimum(0)) { $0.images },
    ]

    public static let schemas = [
        schema("ListedSection", description: "One section of a feed: its id, title and number of images.")
    ]
}

extension SectionList: JSONAnswer {
    public static let members: [AnswerMember<SectionList>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .array("sections", of: "ListedSection") { $0.sections },
    ]

    public static let schemas = [schema("SectionList", description: "A feed's sections in order (`sections --json`).")]
}

extension NamedLayout: JSONAnswer {
    public static let members: [AnswerMember<NamedLayout>] = [
        .string("name") { $0.name },
        .encoded("configuration", as: .reference("AnyLayoutConfiguration")) { $0.configuration },
    ]

    public static let schemas = [schema("NamedLayout", description: nil)]
}

extension LayoutList: JSONAnswer {
    public static let members: [AnswerMember<LayoutList>] = [
        .array("layouts", of: "NamedLayout") { $0.layouts }
    ]

    public static let schemas = [schema("LayoutList", description: "A feed's named layouts, by name.")]
}

extension ChangeList.Change: JSONAnswer {
    public static let members: [AnswerMember<ChangeList.Change>] = [
        .integer("revision") { $0.revision },
        .string("kind", .oneOf(["insert", "update", "move", "remove"])) { $0.kind },
        .string("id") { $0.id },
        .string("section", ifAbsent: .null) { $0.section },
    ]

    public static let schemas = [schema("Change", description: nil)]
}

extension ChangeList: JSONAnswer {
    public static let members: [AnswerMember<ChangeList>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .integer(
            "nextSince", .minimum(0), ifAbsent: .omitted,
            description:
                "With `limit`: the revision to ask the changes since next, while later changes are left; absent when the page reaches the end of the log."
        ) { $0.nextSince },
        .integer(
            "truncatedRevision", .minimum(1), ifAbsent: .omitted,
            description:
                "A first revision of more than 100,000 changes (a large import), given by its counts alone (`inserted`, `updated`, `moved`, `removed`) and no changes: list the feed again, then ask since it."
        ) { $0.truncatedRevision },
        .integer("inserted", ifAbsent: .omitted, description: "The truncated revision's insertions.") {
            $0.truncatedRevision == nil ? nil : $0.truncatedCounts[.insert, default: 0]
        },
        .integer("updated", ifAbsent: .omitted, description: "The truncated revision's updates.") {
            $0.truncatedRevision == nil ? nil : $0.truncatedCounts[.update, default: 0]
        },
        .integer("moved", ifAbsent: .omitted, description: "The truncated revision's moves.") {
            $0.truncatedRevision == nil ? nil : $0.truncatedCounts[.move, default: 0]
        },
        .integer("removed", ifAbsent: .omitted, description: "The truncated revision's removals.") {
            $0.truncatedRevision == nil ? nil : $0.truncatedCounts[.remove, default: 0]
        },
        .array("changes", of: "Change") { $0.changes },
    ]

    public static let schemas = [
        schema(
            "ChangeList",
            description:
                "The change log after a revision, oldest first: whole, or with `limit` a page of whole revisions.")
    ]
}

extension ChangeSummary: JSONAnswer {
    public static let members: [AnswerMember<ChangeSummary>] = [
        .string("feed") { $0.feed },
        .integer("revision", description: "The feed's revision after the change (unchanged when nothing changed).") {
            $0.revision
        },
        .integer("inserted") { $0.inserted },
        .integer("updated") { $0.updated },
        .integer("moved") { $0.moved },
        .integer("removed") { $0.removed },
        .integer("unchanged") { $0.unchanged },
        .integer(
            "sectionFieldsIgnored", .minimum(0), ifAbsent: .omitted,
            description:
                "An import with date sections (sectionBy day, month or year) only: how many images' section fields it ignored."
        ) { $0.sectionFieldsIgnored },
    ]

    public static let schemas = [
        schema(
            "ChangeSummary",
            description:
                "What an import, a reorder or a removal changed. Counts are exclusive: inserted, moved, updated, unchanged."
        )
    ]
}

extension ImageStreamHead: JSONAnswer {
    public static let members: [AnswerMember<ImageStreamHead>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .integer("totalItems") { $0.totalItems },
    ]

    public static let schemas = [
        schema(
            "ImageStreamHead",
            description:
                "The first line of the catalog streamed as NDJSON: the feed, the revision every line shows, and how many images follow."
        )
    ]
}

extension ViewList.View: JSONAnswer {
    public static let members: [AnswerMember<ViewList.View>] = [
        .string("name") { $0.name },
        .encoded("rule", as: .reference("ViewRule"), description: "The rule, in its canonical form.") { $0.rule },
        .integer("images", .minimum(0), description: "How many of the feed's images the view holds now.") {
            $0.images
        },
        .integer("sections", .minimum(0), description: "In how many of the feed's sections.") { $0.sections },
    ]

    public static let schemas = [
        schema("ListedView", description: "A view of a feed (DESIGN section 20): its rule and what it holds.")
    ]
}

extension ViewList: JSONAnswer {
    public static let members: [AnswerMember<ViewList>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .array("views", of: "ListedView") { $0.views },
    ]

    public static let schemas = [schema("ViewList", description: "A feed's views, by name (`view list --json`).")]
}
