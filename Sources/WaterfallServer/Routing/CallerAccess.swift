import Foundation
import Waterfall
import WaterfallJSON

/// `GET /v1/access`: what the caller may do here, for a client (the gallery) to offer only
/// that: `{"key", "feeds", "write", "expires"}`, the key's name (absent without one), the feeds
/// it covers (absent: every feed), whether it may write, and when it expires (ISO 8601; absent:
/// never).
struct CallerAccess: Sendable {
    let key: String?
    let feeds: [String]?
    let write: Bool
    let expires: Date?
}

/// The access answer, described once: this table writes it and gives its schema.
extension CallerAccess: JSONAnswer {
    static let members: [AnswerMember<CallerAccess>] = [
        .string("key", ifAbsent: .omitted, description: "The name of the caller's API key; absent without one.") {
            $0.key
        },
        .encoded(
            "feeds", as: .strings, ifAbsent: .omitted,
            description: "The feeds the key covers, by name; absent: every feed."
        ) { $0.feeds },
        .boolean("write", description: "Whether the caller may write (import, reorder, remove, save layouts).") {
            $0.write
        },
        .string(
            "expires", ifAbsent: .omitted,
            description: "When the key stops working, ISO 8601 in UTC; absent: never, or no key."
        ) { $0.expires.map(KeyExpiry.format) },
    ]

    static let schemas = [schema("Access", description: "What the caller may do on this server.")]
}
