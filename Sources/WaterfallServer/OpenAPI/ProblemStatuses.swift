/// A shared answer of the API, each a `#/components/responses/…` entry of the skeleton: 304 and
/// the problem documents.
enum ProblemStatus: Int, Sendable, CaseIterable, Comparable {
    case notModified = 304
    case badRequest = 400
    case unauthorized = 401
    case forbidden = 403
    case notFound = 404
    case methodNotAllowed = 405
    case conflict = 409
    case preconditionFailed = 412
    case gone = 410
    case contentTooLarge = 413
    case unsupportedMediaType = 415
    case unprocessableContent = 422
    case internalServerError = 500
    case serviceUnavailable = 503
    case insufficientStorage = 507

    /// The entry's name under `components.responses`.
    var component: String {
        switch self {
        case .notModified: "NotModified"
        case .badRequest: "BadRequest"
        case .unauthorized: "Unauthorized"
        case .forbidden: "Forbidden"
        case .notFound: "NotFound"
        case .methodNotAllowed: "MethodNotAllowed"
        case .conflict: "Conflict"
        case .preconditionFailed: "PreconditionFailed"
        case .gone: "ChangesGone"
        case .contentTooLarge: "ContentTooLarge"
        case .unsupportedMediaType: "UnsupportedMediaType"
        case .unprocessableContent: "UnprocessableContent"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .insufficientStorage: "InsufficientStorage"
        }
    }

    static func < (lhs: ProblemStatus, rhs: ProblemStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The shared answers an operation lists, written once per kind of route below and combined
/// with `+` and `-`.
struct ProblemStatuses: Sendable, ExpressibleByArrayLiteral {
    let statuses: Set<ProblemStatus>

    init(arrayLiteral statuses: ProblemStatus...) {
        self.statuses = Set(statuses)
    }

    init(_ statuses: Set<ProblemStatus>) {
        self.statuses = statuses
    }

    /// In the order of their status codes, as the document lists them.
    var sorted: [ProblemStatus] { statuses.sorted() }

    static func + (lhs: ProblemStatuses, rhs: ProblemStatuses) -> ProblemStatuses {
        ProblemStatuses(lhs.statuses.union(rhs.statuses))
    }
    static func - (lhs: ProblemStatuses, rhs: ProblemStatuses) -> ProblemStatuses {
        ProblemStatuses(lhs.statuses.subtracting(rhs.statuses))
    }
}

extension ProblemStatuses {
    /// A route open to anyone that needs no database: a bad query parameter, a fault.
    static let open: ProblemStatuses = [.badRequest, .internalServerError]
    /// A route that looks at the caller's key: a missing or unknown key, a busy database.
    static let keyed: ProblemStatuses = open + [.unauthorized, .serviceUnavailable]
    /// A read about the whole database, answered afresh each time (a key may not cover it).
    static let databaseRead: ProblemStatuses = keyed + [.forbidden]
    /// A read about the whole database whose answer is kept: as above, and 304.
    static let keptDatabaseRead: ProblemStatuses = databaseRead + [.notModified]
    /// A read of one feed, answered afresh each time (an event stream): its feed may be unknown.
    static let feedStream: ProblemStatuses = databaseRead + [.notFound]
    /// A read of one feed whose answer is kept: as above, and 304.
    static let feedRead: ProblemStatuses = feedStream + [.notModified]
    /// A read of a feed's change log since a revision: as above, 410 for a revision whose
    /// later changes were pruned, and 412 for an `If-Match` naming another incarnation.
    static let changeLogRead: ProblemStatuses = feedRead + [.gone, .preconditionFailed]
    /// A write to one feed without a body: its feed may be unknown, its precondition may fail,
    /// the database's disk may be full.
    static let feedWrite: ProblemStatuses = feedStream + [.preconditionFailed, .insufficientStorage]
    /// A write to one feed with a body: as above, and the body may be too large, of another
    /// media type, or wrong.
    static let feedUpload: ProblemStatuses =
        feedWrite + [.contentTooLarge, .unsupportedMediaType, .unprocessableContent]
}
