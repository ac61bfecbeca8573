import Waterfall

// The answers that report on the catalog as a whole (its feeds, its statistics, a backup),
// each described once: these tables write their JSON and give the schemas the OpenAPI document
// publishes.

extension FeedList.Feed: JSONAnswer {
    public static let members: [AnswerMember<FeedList.Feed>] = [
        .string("name") { $0.name },
        .integer("images") { $0.images },
        .integer("sections") { $0.sections },
        .integer("revision") { $0.revision },
        .integer("layouts") { $0.layouts },
    ]

    public static let schemas = [
        schema("FeedSummary", description: "A feed with its counts and its current revision.")
    ]
}

extension FeedList: JSONAnswer {
    public static let members: [AnswerMember<FeedList>] = [
        .array("feeds", of: "FeedSummary") { $0.feeds }
    ]

    public static let schemas = [schema("FeedList", description: "Every feed, by name.")]
}

extension KeptFeedReport: JSONAnswer {
    public static let members: [AnswerMember<KeptFeedReport>] = [
        .string("feed") { $0.feed },
        .integer("revision") { $0.revision },
        .integer("images") { $0.images },
        .integer("bytes") { $0.bytes },
    ]

    public static let schemas = [
        schema(
            "HotFeed",
            description:
                "A feed kept hot by the server: the revision its copy is at, its images and the bytes the copy takes.")
    ]
}

extension LayoutCoverage: JSONAnswer {
    public static let members: [AnswerMember<LayoutCoverage>] = [
        .string("feed") { $0.feed },
        .encoded(
            "layouts", as: .strings,
            description: "The names the configuration is saved under (empty for an inline configuration)."
        ) { $0.layouts },
        .string(
            "kind", .oneOf(["waterfall", "justified", "coverflow", "unknown"]),
            description:
                "The layout's kind; `coverflow` for the cache of cover-flow queries (which has no layout configuration)."
        ) { $0.kind },
        .encoded("configuration", as: .reference("AnyLayoutConfiguration"), ifAbsent: .omitted) {
            $0.configuration
        },
        .integer("checkpoints") { $0.checkpoints },
        .integer(
            "expectedCheckpoints", ifAbsent: .omitted,
            description:
                "Checkpoints a complete waterfall cache holds; absent for justified rows, whose checkpoints wait for row starts."
        ) { $0.expectedCheckpoints },
        .boolean("complete") { $0.complete },
    ]

    public static let schemas = [schema("LayoutCoverage", description: "How much of one cached layout is valid.")]
}

extension DatabaseStats: JSONAnswer {
    public static let members: [AnswerMember<DatabaseStats>] = [
        .string(
            "path", ifAbsent: .omitted,
            description:
                "Where the catalog lives: the database file's path, or the PostgreSQL URL without its password."
        ) { $0.path },
        .integer(
            "databaseBytes",
            description:
                "The space the catalog takes: the database file plus its write-ahead log, or the PostgreSQL database's size, in bytes."
        ) { $0.databaseBytes },
        .array("feeds", of: "FeedSummary") { $0.feeds },
        .array("layouts", of: "LayoutCoverage") { $0.layouts },
        .array(
            "hot", of: "HotFeed", ifAbsent: .omitted,
            description:
                "The feeds the server keeps hot in memory (serve --hot-memory): each feed's geometry, followed through the change log, so that reads stay fast while it changes. Absent from the command line's stats."
        ) { $0.hot },
    ]

    public static let schemas = [schema("Stats", description: "Counts, revisions, cache coverage and database size.")]
}

extension BackupReport: JSONAnswer {
    public static let members: [AnswerMember<BackupReport>] = [
        .string("from") { $0.from },
        .string("to") { $0.to },
        .integer("bytes") { $0.bytes },
        .array("feeds", of: "FeedSummary") { $0.feeds },
    ]

    /// `backup` is a command only: the HTTP API has no such answer to describe.
    public static let schemas: [AnswerSchema] = []
}
