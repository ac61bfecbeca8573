import Waterfall

/// What `openapi.json` says of one route beyond its method, path and `operationId`: the prose,
/// the parameters, the request body and the answers. A route holds one (``Route/doc``), and
/// ``APIDocument`` writes the route's operation from it, so that the document cannot list a
/// parameter or an answer the route table does not.
///
/// Parameters, schemas and shared answers are named by their `components` entry in the
/// skeleton (`Assets/openapi-skeleton.json`), where their own prose lives.
struct OperationDoc: Sendable {
    /// The one-line `summary`.
    let summary: String
    /// The `description`, when the summary is not enough.
    let description: String?
    /// The `tags`, each one of the skeleton's.
    let tags: [String]
    /// Every parameter, path parameters included (the document writes those once for the path).
    let parameters: [ParameterRef]
    /// The request body, for a route that reads one.
    let body: RequestBodyDoc?
    /// The success answers, each with its status.
    let responses: [ResponseDoc]
    /// The shared answers (`#/components/responses/…`): 304 and the problems.
    let problems: ProblemStatuses

    init(
        _ summary: String, tags: [String], description: String? = nil, parameters: [ParameterRef] = [],
        body: RequestBodyDoc? = nil, responses: [ResponseDoc], problems: ProblemStatuses
    ) {
        self.summary = summary
        self.description = description
        self.tags = tags
        self.parameters = parameters
        self.body = body
        self.responses = responses
        self.problems = problems
    }
}

extension OperationDoc {
    /// The same operation, answering 410 too: a read pinned to a revision that is no longer
    /// current (DESIGN section 20).
    var pinnable: OperationDoc {
        OperationDoc(
            summary, tags: tags, description: description, parameters: parameters, body: body,
            responses: responses, problems: problems + [.gone])
    }
}

/// A parameter of an operation: the name of its `#/components/parameters/…` entry and where
/// it goes (the entry's `in`, said here too so that a route reads as what it takes; a test holds
/// the two together).
struct ParameterRef: Sendable, Hashable {
    /// The entry's `in`.
    enum Location: String, Sendable {
        case path, query, header
    }

    let location: Location
    /// The entry's name under `components.parameters`: `Offset`, `Feed`.
    let component: String

    static func path(_ component: String) -> ParameterRef { ParameterRef(location: .path, component: component) }
    static func query(_ component: String) -> ParameterRef { ParameterRef(location: .query, component: component) }
    static func header(_ component: String) -> ParameterRef { ParameterRef(location: .header, component: component) }
}

extension ParameterRef {
    /// `{feed}`.
    static let feed = path("Feed")
    /// `{id}`, a share link's id.
    static let shareID = path("ShareID")
    /// `{token}`, a share link's.
    static let shareToken = path("ShareToken")
    /// `{view}`, a view of the feed.
    static let viewName = path("ViewName")
    /// `{name}`, a named layout.
    static let layoutName = path("LayoutName")
    /// `{id}`, an image.
    static let imageID = path("ImageID")
    /// `If-None-Match`: a kept read answers 304.
    static let ifNoneMatch = header("IfNoneMatch")
}

/// Parameters that routes take together, written once.
enum ParameterGroup {
    /// A write's preconditions: `If-Match` and `X-Feed-Revision`.
    static let writePreconditions: [ParameterRef] = [.header("IfMatch"), .header("FeedRevision")]
    /// A slice of a page: `offset`/`limit` or `page`/`pageSize` (``QueryParameter``).
    static let pageSlice = query([.offset, .limit, .page, .pageSize, .dpr])
    /// A viewport's band and pinned headers (``QueryParameter``).
    static let viewportBand = query([.y, .height, .pinHeaders, .pinOffset, .anchor, .anchorY, .dpr])
    /// What `locate` looks for, and the page size its offset counts in (``QueryParameter``).
    static let locate = query([.id, .date, .locateLimit])
    /// A layout configuration of either kind given inline, as query parameters named like its
    /// JSON keys: `kind`, `sections` and every field of the kinds' tables.
    static let inlineLayout = APIDocument.inlineLayoutParameters
    /// A cover flow's configuration given inline (its field table), and its viewport.
    static let coverFlow = APIDocument.coverFlowParameters + query([.x, .viewportWidth, .dpr])

    private static func query(_ parameters: [QueryParameter]) -> [ParameterRef] {
        parameters.map { .query($0.component) }
    }
}

/// A request body: always required, in one or more media types.
struct RequestBodyDoc: Sendable {
    let description: String?
    let content: [ContentDoc]

    init(description: String? = nil, _ content: ContentDoc...) {
        self.description = description
        self.content = content
    }
}

/// A media type of a body and its schema.
struct ContentDoc: Sendable {
    /// What the schema of the body is.
    enum Schema: Sendable {
        /// `#/components/schemas/…`.
        case component(String)
        /// Any text (`{"type": "string"}`): a page, a style sheet, a script, metrics.
        case text
    }

    let mediaType: String
    let schema: Schema

    /// `application/json`, of the schema named `component`.
    static func json(_ component: String) -> ContentDoc {
        ContentDoc(mediaType: "application/json", schema: .component(component))
    }
    /// Newline-delimited JSON, each line of the schema named `component`.
    static func ndjson(_ component: String) -> ContentDoc {
        ContentDoc(mediaType: "application/x-ndjson", schema: .component(component))
    }
    /// Plain text of `mediaType`.
    static func text(_ mediaType: String) -> ContentDoc { ContentDoc(mediaType: mediaType, schema: .text) }
}

/// A success answer of an operation. Every answer also carries `X-Request-ID`, which the
/// document adds itself.
struct ResponseDoc: Sendable {
    /// A header of the answer.
    enum Header: Sendable {
        /// `#/components/headers/…` under the header's name.
        case component(name: String, component: String)
        /// A header of a string value, described here.
        case text(name: String, description: String)

        /// `ETag`: a read's entity tag.
        static let eTag = Header.component(name: "ETag", component: "ETag")
        /// `Cache-Control: no-cache` of the gallery's files.
        static let noCache = Header.text(
            name: "Cache-Control",
            description:
                "Always `no-cache`: revalidated on every load, so that a new binary's page never runs an old script.")
    }

    let status: Int
    let description: String
    let headers: [Header]
    let content: [ContentDoc]

    /// 200 with a body.
    static func ok(_ description: String, _ content: ContentDoc, headers: [Header] = []) -> ResponseDoc {
        ResponseDoc(status: 200, description: description, headers: headers, content: [content])
    }

    /// 200 with a body in either of two media types, as the request's `Accept` says.
    static func ok(_ description: String, _ content: ContentDoc, _ other: ContentDoc, headers: [Header] = [])
        -> ResponseDoc
    {
        ResponseDoc(status: 200, description: description, headers: headers, content: [content, other])
    }

    /// 201 with a body.
    static func created(_ description: String, _ content: ContentDoc) -> ResponseDoc {
        ResponseDoc(status: 201, description: description, headers: [], content: [content])
    }

    /// 204, no body.
    static func noContent(_ description: String) -> ResponseDoc {
        ResponseDoc(status: 204, description: description, headers: [], content: [])
    }
}
