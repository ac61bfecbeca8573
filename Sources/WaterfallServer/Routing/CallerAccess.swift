import Foundation
import Waterfall

/// `GET /v1/access`: what the caller may do here, for a client (the gallery) to offer only
/// that: `{"key", "feeds", "write", "expires"}`, the key's name (absent without one), the feeds
/// it covers (absent: every feed), whether it may write, and when it expires (ISO 8601; absent:
/// never).
struct CallerAccess: Encodable, Sendable {
    let key: String?
    let feeds: [String]?
    let write: Bool
    let expires: Date?

    private enum CodingKeys: String, CodingKey { case key, feeds, write, expires }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(key, forKey: .key)
        try container.encodeIfPresent(feeds, forKey: .feeds)
        try container.encode(write, forKey: .write)
        try container.encodeIfPresent(expires.map(KeyExpiry.format), forKey: .expires)
    }
}
