import Crypto
import Foundation
import WaterfallStore
import WaterfallSync

/// `share list --json`: every share link of the catalog (DESIGN section 20), without tokens
/// (only their hashes are kept).
public struct ShareList: Hashable, Sendable {
    public struct Share: Hashable, Sendable {
        public var id: Int64
        public var feed: String
        /// The view it hands out; `nil`: the whole feed.
        public var view: String?
        /// The one named layout it allows; `nil`: any.
        public var layout: String?
        /// RFC 3339 in UTC; `nil`: never.
        public var expires: String?
        public var created: String
    }
    public var shares: [Share]
}

/// A share link just made: its path, shown this once.
public struct NewShare: Hashable, Sendable {
    /// `/s/{token}`.
    public var path: String
    public var share: ShareList.Share
}

/// What a share link hands out, found from its token.
public struct SharedScope: Hashable, Sendable {
    /// The link's id (`share list`): its streams are capped as one key's (DESIGN section 19).
    public var id: Int64
    public var feed: String
    public var view: String?
    public var layout: String?
    /// When the link stops answering, in seconds since the epoch; `nil`: never.
    public var expiresAt: Int64? = nil
}

extension WaterfallService {
    /// The prefix of a share link's path.
    public static let sharePathPrefix = "/s/"

    /// Makes a share link to a feed, or one of its views, optionally allowing one named layout
    /// only, until `expires` (`nil`: until removed). The token is 24 characters of base64url
    /// (18 random bytes); only its SHA-256 is kept, so it is shown this once.
    /// - Throws: ``WaterfallError``: an unknown feed, view or layout.
    public func addShare(feed: String?, view: String?, layout: String?, expires: Date?, now: Date = Date())
        async throws(WaterfallError) -> NewShare
    {
        var generator = SystemRandomNumberGenerator()
        let token = Self.base64url((0..<18).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        let hash = Array(SHA256.hash(data: Array(token.utf8)))
        let share = try await perform {
            try await writeContent(.feed(named: feed)) { tx in
                let record = try inView(nil).resolveFeed(feed, tx)
                if let view, try tx.view(feedID: record.id, name: view) == nil {
                    throw WaterfallError.unknownView(feed: record.name, view: view)
                }
                if let layout, try tx.layout(feedID: record.id, name: layout) == nil {
                    throw WaterfallError.unknownLayout(feed: record.name, layout: layout)
                }
                var share = ShareRecord(
                    tokenHash: hash, feedID: record.id, feedName: record.name, view: view, layout: layout,
                    expiresAt: expires.map { Int64($0.timeIntervalSince1970.rounded(.up)) },
                    createdAt: Int64(now.timeIntervalSince1970))
                share.id = try tx.insertShare(share)
                return share
            }
        }
        return NewShare(path: Self.sharePathPrefix + token, share: ShareList.Share(share))
    }

    /// The most views a feed may have: each is a copy of its members' rows, kept current by
    /// every write to the feed.
    public static let maximumViewsPerFeed = 256

    /// Every share link, by id (their feeds, views, layouts and expiry; not their tokens).
    public func shares() async throws(WaterfallError) -> ShareList {
        try await perform {
            try await database.read { tx in ShareList(shares: try tx.shares().map(ShareList.Share.init)) }
        }
    }

    /// Removes a share link: its path answers 404 within a second. With `covering`, only a link
    /// to a feed it says yes to (a key's scope; another is as unknown).
    /// - Throws: ``WaterfallError/unknownShare(_:)`` for an id no share (it may see) has.
    public func removeShare(id: Int64, covering: (@Sendable (String) -> Bool)? = nil) async throws(WaterfallError) {
        try await perform {
            try await writeContent(.catalog) { tx in
                if let covering, let share = try tx.shares().first(where: { $0.id == id }), !covering(share.feedName) {
                    throw WaterfallError.unknownShare(id)
                }
                guard try tx.removeShare(id: id) else {
                    throw WaterfallError.unknownShare(id)
                }
            }
        }
    }

    /// What the share link of `token` hands out now, or `nil` when there is none (never made,
    /// removed, expired, or its feed gone): a client is told nothing more.
    public func sharedScope(token: String, now: Date = Date()) async throws(WaterfallError) -> SharedScope? {
        guard Self.isShareTokenShaped(token) else { return nil }
        let hash = Array(SHA256.hash(data: Array(token.utf8)))
        return try await perform {
            try await database.read { tx in
                guard let share = try tx.share(tokenHash: hash) else { return nil }
                if let expires = share.expiresAt, expires <= Int64(now.timeIntervalSince1970) { return nil }
                return SharedScope(
                    id: share.id, feed: share.feedName, view: share.view, layout: share.layout,
                    expiresAt: share.expiresAt)
            }
        }
    }

    /// Whether `token` has a share token's shape: 24 characters of base64url.
    public static func isShareTokenShaped(_ token: String) -> Bool {
        token.utf8.count == 24 && token.utf8.allSatisfy(isBase64url)
    }

    private static func isBase64url(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension ShareList.Share {
    init(_ record: ShareRecord) {
        self.init(
            id: record.id, feed: record.feedName, view: record.view, layout: record.layout,
            expires: record.expiresAt.map { TakenAt.string(milliseconds: $0 * 1000) },
            created: TakenAt.string(milliseconds: record.createdAt * 1000))
    }
}
