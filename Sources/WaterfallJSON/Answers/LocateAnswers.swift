import Waterfall

// The answer of `locate`, described once: this table writes its JSON (`locate --json` and
// `…/locate`) and gives its schema.

extension LocatedImage: JSONAnswer {
    public static let members: [AnswerMember<LocatedImage>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .string("layout", ifAbsent: .null, description: "The named layout; null for an inline configuration.") {
            $0.layout
        },
        .string("id") { $0.id },
        .integer("index", description: "The image's catalog index, from 0.") { $0.index },
        .string("section", ifAbsent: .null) { $0.section },
        .frame("frame", description: "The image's frame, in points, as a page gives it.") { $0.frame },
        .integer(
            "offset",
            description:
                "The first index of the page of `limit` images that holds the image: `index` rounded down to a multiple of `limit`."
        ) { $0.offset },
        .integer("limit") { $0.limit },
        .string(
            "takenAt", .format("date-time"), ifAbsent: .omitted,
            description: "When the image was taken (RFC 3339, in UTC); absent when the feed gave none."
        ) { $0.takenAt },
    ]

    public static let schemas = [
        schema(
            "Location",
            description:
                "Where an image is in a layout (`locate`): its catalog index, section and frame, and the offset of the page of `limit` images that holds it."
        )
    ]
}
