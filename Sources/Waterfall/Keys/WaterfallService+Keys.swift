import Crypto
import WaterfallStore

/// An API key as `key list` shows it: never its secret, which only its holder has.
public struct APIKey: Hashable, Sendable, Encodable {
    public var name: String
    /// The feeds it covers, by name; empty means every feed.
    public var feeds: [String]
    /// Whether it may write (import, reorder, remove, save layouts), besides reading.
    public var write: Bool
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

    public init(name: String, canWrite: Bool, feeds: Set<String>?) {
        self.name = name
        self.canWrite = canWrite
        self.feeds = feeds
    }

    /// Whether the key covers `feed`.
    public func covers(_ feed: String) -> Bool {
        feeds?.contains(feed) ?? true
    }
}

/// The keys of a database at one moment, for checking presented secrets.
public struct Keyring: Sendable {
    fileprivate let keys: [APIKeyRecord]

    /// Whether the database has no key at all (a server then asks for none).
    public var isEmpty: Bool { keys.isEmpty }

    /// Whether some key may write (what `serve` off loopback needs before it starts).
    public var hasWriteKey: Bool { keys.contains { $0.canWrite } }

    /// The grant of the key whose secret is `secret`, or nil. The secret's SHA-256 is compared
    /// with every key's in constant time (all bytes of all keys, whatever matches), so the
    /// time taken says nothing about how close a guess was.
    public func grant(forSecret secret: String) -> KeyGrant? {
        let hash = Array(SHA256.hash(data: Array(secret.utf8)))
        var found: APIKeyRecord?
        for key in keys {
            var difference: UInt8 = key.secretSHA256.count == hash.count ? 0 : 1
            for (a, b) in zip(key.secretSHA256, hash) { difference |= a ^ b }
            if difference == 0 { found = key }
        }
        return found.map { KeyGrant(name: $0.name, canWrite: $0.canWrite, feeds: $0.feeds.isEmpty ? nil : Set($0.feeds)) }
    }
}

extension WaterfallService {
    /// Creates an API key and returns its secret, which is shown this once: only its SHA-256
    /// is stored. `feeds` empty means every feed (a feed may be named before it exists).
    /// - Throws: ``WaterfallError`` `keyExists`, or `invalidValue` for a bad name.
    public func addKey(name: String, feeds: [String], canWrite: Bool) throws(WaterfallError) -> String {
        try Self.validateName(name, .keyName)
        for feed in feeds { try Self.validateName(feed, .feedName) }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let secret = "wf_" + bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
        let record = APIKeyRecord(name: name, secretSHA256: Array(SHA256.hash(data: Array(secret.utf8))), canWrite: canWrite, feeds: feeds)
        try perform {
            try database.write { tx in
                guard try tx.insertAPIKey(record) else { throw WaterfallError.keyExists(name) }
            }
        }
        return secret
    }

    /// Every API key, by name.
    public func keys() throws(WaterfallError) -> APIKeyList {
        try perform {
            try database.read { tx in
                APIKeyList(keys: try tx.apiKeys().map { APIKey(name: $0.name, feeds: $0.feeds, write: $0.canWrite) })
            }
        }
    }

    /// Removes the API key `name`: its holder is refused from the next request on.
    /// - Throws: ``WaterfallError/unknownKey(_:)``.
    public func removeKey(named name: String) throws(WaterfallError) {
        try perform {
            try database.write { tx in
                guard try tx.deleteAPIKey(named: name) else { throw WaterfallError.unknownKey(name) }
            }
        }
    }

    /// The keys as they are now, for checking presented secrets.
    public func keyring() throws(WaterfallError) -> Keyring {
        try perform { try database.read { tx in Keyring(keys: try tx.apiKeys()) } }
    }
}
