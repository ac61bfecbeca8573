import Hummingbird
import Waterfall
import WaterfallJSON

/// A failed request's answer: RFC 9457 problem details (`application/problem+json`),
/// `{"type", "title", "status", "detail", "instance"}`, with `detail` one sentence that names the
/// parameter, the body's place or the thing not found, and `instance` the request's id.
struct Problem: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let detail: String
    /// The id of the request it answers (``RequestIdentity``), set by ``ProblemMapping``.
    var instance: String?
    /// Headers the answer carries besides its type (`Allow`, `Retry-After`).
    var headers: HTTPFields = [:]
    /// For a 410 of the change log: the oldest revision its changes can be asked since
    /// (an extension member, RFC 9457 section 3.2).
    var oldestSince: Int64?
    /// A 410 of a listing's cursor: the feed's revision now, to list again from.
    var revision: Int64?

    init(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = detail
        self.headers = headers
    }

    /// A share link's path that answers nothing: no link, a link removed or expired, or a route
    /// the link does not reach; all alike, so that it reveals nothing.
    static let noShare = Problem(.notFound, "no share link answers this path.")

    static func badRequest(_ detail: String) -> Problem {
        Problem(.badRequest, detail)
    }

    /// The problem a service error is over HTTP: its status, and its sentence with request
    /// values named as the API names them.
    init(_ error: WaterfallError) {
        let detail = error.sentence(naming: \.queryName)
        switch error {
        case .invalidValue, .conflictingValues, .feedNotChosen, .feedNameMissing, .invalidConfiguration,
            .backupNeedsPgDump:
            self.init(.badRequest, detail)
        case .unknownFeed, .noFeeds, .unknownLayout, .unknownView, .unknownKey, .unknownShare, .nothingTakenBy:
            self.init(.notFound, detail)
        case .unknownImage(_, _, let place):
            // An id in a request body is bad data; the id of the path is a missing resource.
            self.init(place.isEmpty ? .notFound : .unprocessableContent, detail)
        case .moveOntoItself, .moveAcrossDateSections, .keyExists, .backupTargetExists:
            self.init(.conflict, detail)
        case .revisionMismatch, .feedRemadeSinceRead:
            self.init(.preconditionFailed, detail)
        case .changesPruned(_, _, let from):
            self.init(.gone, detail)
            oldestSince = from
        case .tooManyChangesToFollow:
            self.init(.gone, detail)
        case .mirrorIsReadOnly:
            self.init(.forbidden, detail)
        case .cursorExpired(_, _, let current), .cursorOfRemovedFeed(_, let current):
            self.init(.gone, detail)
            revision = current
        case .indexOutsideSection, .invalidData:
            self.init(.unprocessableContent, detail)
        case .busy, .unavailable:
            self.init(.serviceUnavailable, detail, headers: [.retryAfter: "1"])
        case .diskFull:
            self.init(.insufficientStorage, detail)
        case .fileUnreadable, .cannotCreate, .database, .other:
            self.init(.internalServerError, detail)
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        response
    }

    /// The answer: the problem document with its status and headers. A problem is never
    /// compressed (it is a sentence, well under ``JSONBody/minimumCompressedBytes``) but, as
    /// every JSON answer, says `Vary: Accept-Encoding`: the same URL may answer gzip later.
    var response: Response {
        var headers = headers
        headers[.contentType] = "application/problem+json"
        headers[.vary] = "Accept-Encoding"
        let bytes = (try? StableJSON.document(of: self)) ?? Array(#"{"type":"about:blank"}"#.utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// The problem document, described once: this table writes it and gives its schema.
extension Problem: JSONAnswer {
    static let members: [AnswerMember<Problem>] = [
        .constant("type", "about:blank", description: "Always `about:blank`."),
        .string("title", description: "The HTTP reason phrase of the status.") { $0.status.reasonPhrase },
        .integer("status", .minimum(400), .maximum(599)) { $0.status.code },
        .string("detail", description: "One sentence saying what went wrong (the sentence the CLI prints).") {
            $0.detail
        },
        .string(
            "instance", ifAbsent: .omitted,
            description: "The id of the request it answers, as the answer's `X-Request-ID` gives it."
        ) { $0.instance },
        .integer(
            "oldestSince", .minimum(0), ifAbsent: .omitted,
            description:
                "With 410 from the change log: the oldest revision whose later changes are kept, to ask the changes since after listing the feed again."
        ) { $0.oldestSince },
        .integer(
            "revision", .minimum(0), ifAbsent: .omitted,
            description: "With 410 from a listing's cursor: the feed's revision now, which a new listing shows."
        ) { $0.revision },
    ]

    static let schemas = [
        schema("Problem", description: "An RFC 9457 problem: the body of every 4xx and 5xx answer.")
    ]
}

extension HTTPResponse.Status {
    /// 507 (RFC 4918): the server cannot store what the request asks it to; swift-http-types
    /// names no such status.
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
}

extension WaterfallError.Parameter {
    /// How the HTTP API names the value: its path or query parameter.
    var queryName: String {
        switch self {
        case .feedName: "the feed name"
        case .layoutName: "the layout name"
        case .keyName: "the key name"
        case .viewName: "the view name"
        case .viewRule: "request body"
        case .appendMode: "mode=append"
        case .sectionBy: "sectionBy"
        case .timeZone: "timeZone"
        case .keepChanges: "--keep-changes"
        case .backupTarget: "the backup's path"
        case .mirrorSource: "the mirror's source"
        default: rawValue
        }
    }
}
