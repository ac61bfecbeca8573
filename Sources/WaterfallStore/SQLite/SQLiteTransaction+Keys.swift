import Foundation
import GRDB

/// An API key as stored: its name, the SHA-256 of its secret, whether it may write, and the
/// feeds it covers (empty: all of them).
public struct APIKeyRecord: Hashable, Sendable {
    public var name: String
    public var secretSHA256: [UInt8]
    public var canWrite: Bool
    public var feeds: [String]

    public init(name: String, secretSHA256: [UInt8], canWrite: Bool, feeds: [String]) {
        self.name = name
        self.secretSHA256 = secretSHA256
        self.canWrite = canWrite
        self.feeds = feeds
    }
}

extension SQLiteTransaction {
    /// Every API key, by name, with its feeds by name.
    public func apiKeys() throws -> [APIKeyRecord] {
        var keys: [Int64: APIKeyRecord] = [:]
        var order: [Int64] = []
        for row in try Row.fetchAll(db, sql: "SELECT id, name, secret_sha256, can_write FROM api_key ORDER BY name") {
            let id: Int64 = row[0]
            let hash: [UInt8] = Array((row[2] as Data?) ?? Data())
            keys[id] = APIKeyRecord(name: row[1], secretSHA256: hash, canWrite: row[3], feeds: [])
            order.append(id)
        }
        for row in try Row.fetchAll(db, sql: "SELECT key_id, feed_name FROM api_key_feed ORDER BY feed_name") {
            keys[row[0]]?.feeds.append(row[1])
        }
        return order.compactMap { keys[$0] }
    }

    /// Whether any API key exists (a server then asks for one).
    public func hasAPIKeys() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_key)") ?? false
    }

    /// Stores a new key. Returns `false` when a key of that name exists (nothing is written).
    public func insertAPIKey(_ key: APIKeyRecord) throws -> Bool {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_key WHERE name = ?)", arguments: [key.name]) == true {
            return false
        }
        try db.execute(
            sql: "INSERT INTO api_key (name, secret_sha256, can_write) VALUES (?, ?, ?)",
            arguments: [key.name, Data(key.secretSHA256), key.canWrite])
        let id = db.lastInsertedRowID
        for feed in Set(key.feeds) {
            try db.execute(sql: "INSERT INTO api_key_feed (key_id, feed_name) VALUES (?, ?)", arguments: [id, feed])
        }
        return true
    }

    /// Deletes the key `name`; `false` when there was none.
    public func deleteAPIKey(named name: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM api_key WHERE name = ?", arguments: [name])
        return db.changesCount > 0
    }
}
