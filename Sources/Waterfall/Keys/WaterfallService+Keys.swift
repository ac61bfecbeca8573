import Crypto
import Foundation
import WaterfallStore

/// An API key as `key list` shows it: never its secret, which only its holder has.
public struct APIKey: Hashable, Sendable, Encodable {
    public var name: String
    /// The feeds it covers, by name; empty means every feed.
    public var feeds: [String]
    /// Whether it may write (import, reorder, remove, save layouts), besides reading.
    public var write: Bool
    /// When it stops working; nil: never.
    public var expires: Date?
    /// When it was last used, to the minute (a server writes it at most once a minute a key);
    /// nil: not yet.
    public var lastUsed: Date?

    /// Whether it has stopped working at `now`.
    public func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    private enum CodingKeys: String, CodingKey { case name, feeds, write, expires, lastUsed }

    /// `{"name", "feeds", "write", "expires", "lastUsed"}`, times as ISO 8601 in UTC or null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(feeds, forKey: .feeds)
        try container.encode(write, forKey: .write)
        try container.encode(expires.map(KeyExpiry.format), forKey: .expires)
        try container.encode(lastUsed.map(KeyExpiry.format), forKey: .lastUsed)
    }
}

/// `key list --json`: every API key, by name.
public struct APIKeyList: Hashable, Sendable, Encodable {
    public var keys: [APIKey]
}

/// What a presented key lets its holder do.
public struct KeyGrant: Hashable, Sendable {
    public var name: String
    public var canWrite: Bool
    /// The feeds it covers, or nil for every feed.
    public var feeds: Set<String>?
    /// When it stops working; nil: never.
    public var expires: Date?

    public init(name: String, canWrite: Bool, feeds: Set<String>?, expires: Date? = nil) {
        self.name = name
        self.canWrite = canWrite
        self.feeds = feeds
        self.expires = expires
    }

    /// Whether the key covers `feed`.
    public func covers(_ feed: String) -> Bool {
        feeds?.contains(feed) ?? true
    }

    /// Whether the key has stopped working at `now`.
    public func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }
}

/// The keys of a database at one moment, for checking presented secrets.
public struct Keyring: Sendable {
    fileprivate let keys: [APIKeyRecord]

    /// Whether the database has no key at all (a server then asks for none on loopback).
    /// Expired keys count: a database whose keys have all expired stays closed.
    public var isEmpty: Bool { keys.isEmpty }

    /// Whether some key may write and still works at `now` (what `serve` off loopback needs
    /// before it starts).
    public func hasWriteKey(at now: Date) -> Bool {
        keys.contains { key in key.canWrite && key.expiresAt.map { Double($0) > now.timeIntervalSince1970 } ?? true }
    }

    /// The grant of the key whose secret is `secret`, or nil; an expired key's too (the caller
    /// tells its holder it expired). The secret's SHA-256 is compared with every key's in
    /// constant time (all bytes of all keys, whatever matches), so the time taken says nothing
    /// about how close a guess was.
    public func grant(forSecret secret: String) -> KeyGrant? {
        let hash = Array(SHA256.hash(data: Array(secret.utf8)))
        var found: APIKeyRecord?
        for key in keys {
            var difference: UInt8 = key.secretSHA256.count == hash.count ? 0 : 1
            for (a, b) in zip(key.secretSHA256, hash) { difference |= a ^ b }
            if difference == 0 { found = key }
        }
        return found.map { key in
            KeyGrant(
                name: key.name, canWrite: key.canWrite, feeds: key.feeds.isEmpty ? nil : Set(key.feeds),
                expires: key.expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) })
        }
    }
}

extension WaterfallService {
    /// Creates an API key and returns its secret, which is shown this once: only its SHA-256
    /// is stored. `feeds` empty means every feed (a feed may be named before it exists);
    /// `expires` nil means it never expires (``KeyExpiry`` reads `--expires`).
    /// - Throws: ``WaterfallError`` `keyExists`, or `invalidValue` for a bad name.
    public func addKey(name: String, feeds: [String], canWrite: Bool, expires: Date? = nil) async throws(WaterfallError)
        -> String
    {
        try Self.validateName(name, .keyName)
        for feed in feeds { try Self.validateName(feed, .feedName) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret =
            "wf_"
            + bytes.map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            }.joined()
        let record = APIKeyRecord(
            name: name, secretSHA256: Array(SHA256.hash(data: Array(secret.utf8))), canWrite: canWrite, feeds: feeds,
            expiresAt: expires.map { Int64($0.timeIntervalSince1970.rounded(.up)) })
        try await perform {
            try await database.write(.apiKeys) { tx in
                guard try tx.insertAPIKey(record) else { throw WaterfallError.keyExists(name) }
            }
        }
        return secret
    }

    /// Every API key, by name, with its scope, expiry and last use.
    public func keys() async throws(WaterfallError) -> APIKeyList {
        try await perform {
            try await database.read { tx in
                APIKeyList(
                    keys: try tx.apiKeys().map { key in
                        APIKey(
                            name: key.name, feeds: key.feeds, write: key.canWrite,
                            expires: key.expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                            lastUsed: key.lastUsedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) })
                    })
            }
        }
    }

    /// Removes the API key `name`: its holder is refused from the next request on.
    /// - Throws: ``WaterfallError/unknownKey(_:)``.
    public func removeKey(named name: String) async throws(WaterfallError) {
        try await perform {
            try await database.write(.apiKeys) { tx in
                guard try tx.deleteAPIKey(named: name) else { throw WaterfallError.unknownKey(name) }
            }
        }
    }

    /// Records, best effort, that the key `name` was used at `time`: skipped (returning false)
    /// when another writer holds the database for more than a tenth of a second, since a last
    /// use is worth no wait. A server calls it at most once a minute a key.
    @discardableResult
    public func recordKeyUse(named name: String, at time: Date) async throws(WaterfallError) -> Bool {
        try await perform {
            try await database.writeIfAvailable(.apiKeys, within: 0.1) { tx in
                try tx.recordAPIKeyUse(named: name, at: Int64(time.timeIntervalSince1970))
            } != nil
        }
    }

    /// The keys as they are now, for checking presented secrets.
    public func keyring() async throws(WaterfallError) -> Keyring {
        try await perform { try await database.read { tx in Keyring(keys: try tx.apiKeys()) } }
    }
}
