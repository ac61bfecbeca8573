import Waterfall

// The answer of `coverflow`, described once: these tables write its JSON and give the schemas
// the OpenAPI document publishes.

extension CoverFlowImage: JSONAnswer {
    public static let members: [AnswerMember<CoverFlowImage>] = [
        .integer("index") { $0.index },
        .string("id") { $0.id },
        .string("section", ifAbsent: .null) { $0.section },
        .frame { $0.frame },
        .number("scale") { $0.scale },
        .string(
            "url", ifAbsent: .null,
            description:
                "The image's smallest rendition at least its frame's width × `dpr` pixels wide (`dpr` defaults to the configuration's `scale`), else its largest rendition, else the image's own URL."
        ) { $0.url },
        .string("placeholder", .minLength(1), .maxLength(64), ifAbsent: .omitted, description: ImageProse.placeholder) {
            $0.placeholder
        },
        .string("color", .pattern("^#[0-9a-f]{6}$"), ifAbsent: .omitted, description: ImageProse.color) { $0.color },
    ]

    public static let schemas = [
        schema(
            "CoverFlowImage", description: "A visible cover-flow image with its frame and the scale it is drawn at.")
    ]
}

extension CoverFlowPage: JSONAnswer {
    public static let members: [AnswerMember<CoverFlowPage>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .number("contentWidth") { $0.contentWidth },
        .number("x") { $0.x },
        .number("viewportWidth") { $0.viewportWidth },
        .number(
            "snapOffset",
            description: "The offset that puts the image centre nearest to the viewport centre exactly at it."
        ) { $0.snapOffset },
        .integer("totalItems") { $0.totalItems },
        .array("items", of: "CoverFlowImage") { $0.items },
    ]

    public static let schemas = [
        schema(
            "CoverFlow",
            description: "The cover-flow images visible at offset x, the content width and the snapped offset.")
    ]
}
