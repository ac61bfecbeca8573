import Waterfall

// What a server hands a mirror (DESIGN section 21): a first line, the head, then an image a
// line in the feed file's own format, which the mirror reads with the feed decoder.

extension MirrorHead.Section: JSONAnswer {
    public static let members: [AnswerMember<MirrorHead.Section>] = [
        .string("id", ifAbsent: .null, description: "The section's name; null for the unnamed section.") { $0.id },
        .string("title", ifAbsent: .null) { $0.title },
        .boolean("declared", description: "Listed by the feed: kept when it holds no image.") { $0.declared },
    ]

    public static let schemas = [schema("MirrorSection", description: "A section of a mirrored feed, in order.")]
}

extension MirrorHead.Named: JSONAnswer {
    public static let members: [AnswerMember<MirrorHead.Named>] = [
        .string("name") { $0.name },
        .string("json", description: "The layout's configuration or the view's rule: its canonical JSON, as text.") {
            $0.json
        },
    ]

    public static let schemas = [schema("MirrorNamed", description: "A named layout or a view of a mirrored feed.")]
}

extension MirrorHead: JSONAnswer {
    public static let members: [AnswerMember<MirrorHead>] = [
        .string(
            "catalog", .minLength(1), .maxLength(64),
            description:
                "Who the source's catalog is (derived from its secret, which it does not reveal): another catalog at the same address has another, and a mirror lists everything again."
        ) { $0.catalog },
        .string("feed") { $0.feed },
        .integer("incarnation", .minimum(1), description: "The feed's incarnation (DESIGN section 19).") {
            $0.incarnation
        },
        .integer("revision") { $0.revision },
        .integer(
            "since", .minimum(0), ifAbsent: .omitted,
            description: "A catch-up's revision it starts from; absent from a listing."
        ) { $0.since },
        .integer("totalItems", description: "The feed's images at `revision`.") { $0.totalItems },
        .string("sectionBy", .oneOf(["day", "month", "year"]), ifAbsent: .null) { $0.sectionBy },
        .string("timeZone", ifAbsent: .null) { $0.timeZone },
        .array("sections", of: "MirrorSection") { $0.sections },
        .array("layouts", of: "MirrorNamed") { $0.layouts },
        .array("views", of: "MirrorNamed") { $0.views },
        .array("changes", of: "Change", description: "A catch-up's change-log rows after `since`; empty for a listing.")
        {
            $0.changes
        },
        .encoded(
            "removed", as: .strings, description: "A catch-up's ids named since `since` that the feed no longer holds."
        ) { $0.removed },
        .encoded(
            "after", as: .strings,
            description:
                "A catch-up's neighbour of each image line: the id of the image before it in the feed, the empty string (no id) for the first."
        ) { $0.after.map { $0 ?? "" } },
    ]

    public static let schemas = [
        schema(
            "MirrorHead",
            description:
                "The first line of a mirror's listing or catch-up: the feed's state at `revision` but for its images, which follow a line each (`MirrorImage`)."
        )
    ]
}

/// An image line of a mirror's listing or catch-up: the image as a feed file gives it (every
/// field, `span` too), which the mirror reads as an import reads a line.
public struct MirrorImageLine: Sendable {
    public var image: ImageList.Image

    public init(_ image: ImageList.Image) {
        self.image = image
    }
}

extension MirrorImageLine: JSONAnswer {
    public static let members: [AnswerMember<MirrorImageLine>] = [
        .string("id") { $0.image.id },
        .string("section", ifAbsent: .null) { $0.image.section },
        .integer("width") { $0.image.width },
        .integer("height") { $0.image.height },
        .string("span", .constant("full"), ifAbsent: .omitted, description: "`full` for a banner; absent otherwise.") {
            $0.image.isFullSpan ? "full" : nil
        },
        .string("url", ifAbsent: .null) { $0.image.url },
        .string("title", ifAbsent: .null) { $0.image.title },
        .string("takenAt", .format("date-time"), ifAbsent: .omitted, description: ImageProse.takenAt) {
            $0.image.takenAt
        },
        .string("placeholder", .minLength(1), .maxLength(64), ifAbsent: .omitted, description: ImageProse.placeholder) {
            $0.image.placeholder
        },
        .string("color", .pattern("^#[0-9a-f]{6}$"), ifAbsent: .omitted, description: ImageProse.color) {
            $0.image.color
        },
        .encoded("renditions", as: .objects(renditionSchema), .maxItems(32), ifAbsent: .omitted) {
            line -> [Rendition]? in
            if case .list(let list)? = line.image.renditions { list } else { nil }
        },
        .string("urlTemplate", .maxLength(4096), .pattern("\\{width\\}"), ifAbsent: .omitted) { line -> String? in
            if case .template(let template)? = line.image.renditions { template } else { nil }
        },
        .encoded("tags", as: .strings, .maxItems(ImageTags.maximumCount), ifAbsent: .omitted) {
            $0.image.tags.isEmpty ? nil : $0.image.tags
        },
    ]

    public static let schemas = [
        schema("MirrorImage", description: "An image line of a mirror's listing or catch-up, as a feed file gives it.")
    ]
}
