import Waterfall

// Share links (DESIGN section 20), each answer described once: these tables write their JSON
// and give the schemas the OpenAPI document publishes.

extension ShareList.Share: JSONAnswer {
    public static let members: [AnswerMember<ShareList.Share>] = [
        .integer("id", .minimum(1), description: "The share's id: what `share remove` and DELETE /v1/shares/{id} take.")
        {
            $0.id
        },
        .string("feed") { $0.feed },
        .string("view", ifAbsent: .null, description: "The view it hands out; null for the whole feed.") { $0.view },
        .string(
            "layout", ifAbsent: .null,
            description: "The one named layout it allows; null for any layout, inline ones too."
        ) { $0.layout },
        .string(
            "expires", .format("date-time"), ifAbsent: .null,
            description: "When it stops answering (RFC 3339, UTC); null for never."
        ) { $0.expires },
        .string("created", .format("date-time")) { $0.created },
    ]

    public static let schemas = [
        schema("Share", description: "A share link: what it hands out, read-only, and until when (never its token).")
    ]
}

extension ShareList: JSONAnswer {
    public static let members: [AnswerMember<ShareList>] = [
        .array("shares", of: "Share") { $0.shares }
    ]

    public static let schemas = [schema("ShareList", description: "Every share link, by id (`share list --json`).")]
}

extension NewShare: JSONAnswer {
    public static let members: [AnswerMember<NewShare>] = [
        .string(
            "path", .pattern("^/s/[A-Za-z0-9_-]{24}$"),
            description:
                "The link's path, `/s/{token}`, shown this once (only the token's hash is kept): its read routes answer under it without a key."
        ) { $0.path },
        .integer("id", .minimum(1)) { $0.share.id },
        .string("feed") { $0.share.feed },
        .string("view", ifAbsent: .null) { $0.share.view },
        .string("layout", ifAbsent: .null) { $0.share.layout },
        .string("expires", .format("date-time"), ifAbsent: .null) { $0.share.expires },
    ]

    public static let schemas = [schema("NewShare", description: "A share link just made (`share add --json`).")]
}
