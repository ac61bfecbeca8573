import Foundation
import GRDB

/// An API key as stored: its name, the SHA-256 of its secret, whether it may write, the feeds
/// it covers (empty: all of them), when it expires and when it was last used.
public struct APIKeyRecord: Hashable, Sendable {
    public var name: String
    public var secretSHA256: [UInt8]
    public var canWrite: Bool
    public var feeds: [String]
    /// The Unix time, in seconds, from which the key is refused; nil: never.
    public var expiresAt: Int64?
    /// The Unix time, in seconds, of a recent request made with it (written at most once a
    /// minute); nil: not used yet.
    public var lastUsedAt: Int64?

    public init(
        name: String, secretSHA256: [UInt8], canWrite: Bool, feeds: [String], expiresAt: Int64? = nil,
        lastUsedAt: Int64? = nil
    ) {
        self.name = name
        self.secretSHA256 = secretSHA256
        self.canWrite = canWrite
        self.feeds = feeds
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}

extension SQLiteTransaction {
    /// Every API key, by name, with its feeds by name.
    public func apiKeys() throws -> [APIKeyRecord] {
        var keys: [Int64: APIKeyRecord] = [:]
        var order: [Int64] = []
        let sql = "SELECT id, name, secret_sha256, can_write, expires_at, last_used_at FROM api_key ORDER BY name"
        for row in try Row.fetchAll(db, sql: sql) {
            let id: Int64 = row[0]
            let hash: [UInt8] = Array((row[2] as Data?) ?? Data())
            keys[id] = APIKeyRecord(
                name: row[1], secretSHA256: hash, canWrite: row[3], feeds: [], expiresAt: row[4], lastUsedAt: row[5])
            order.append(id)
        }
        for row in try Row.fetchAll(db, sql: "SELECT key_id, feed_name FROM api_key_feed ORDER BY feed_name") {
            keys[row[0]]?.feeds.append(row[1])
        }
        return order.compactMap { keys[$0] }
    }

    /// Whether any API key exists (a server then asks for one).
    public func hasAPIKeys() throws -> Bool {
        try Bool.fetchOne(db, sql: SharedSQL.hasAPIKeys.sqlite) ?? false
    }

    /// Stores a new key. Returns `false` when a key of that name exists (nothing is written).
    public func insertAPIKey(_ key: APIKeyRecord) throws -> Bool {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_key WHERE name = ?)", arguments: [key.name])
            == true
        {
            return false
        }
        try db.execute(
            sql: "INSERT INTO api_key (name, secret_sha256, can_write, expires_at) VALUES (?, ?, ?, ?)",
            arguments: [key.name, Data(key.secretSHA256), key.canWrite, key.expiresAt])
        let id = db.lastInsertedRowID
        for feed in Set(key.feeds) {
            try db.execute(sql: "INSERT INTO api_key_feed (key_id, feed_name) VALUES (?, ?)", arguments: [id, feed])
        }
        return true
    }

    /// Deletes the key `name`; `false` when there was none.
    public func deleteAPIKey(named name: String) throws -> Bool {
        try db.execute(sql: SharedSQL.deleteAPIKey.sqlite, arguments: [name])
        return db.changesCount > 0
    }

    /// Records that the key `name` was used at `time` (Unix seconds), unless a later use is
    /// recorded already.
    public func recordAPIKeyUse(named name: String, at time: Int64) throws {
        try db.execute(
            sql: "UPDATE api_key SET last_used_at = ?1 WHERE name = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)",
            arguments: [time, name])
    }
}

extension SQLiteTransaction {
    /// The secret that signs the catalog's tokens (migration 0010 made it).
    public func tokenSecret() throws -> [UInt8] {
        guard let secret = try Data.fetchOne(db, sql: "SELECT token_secret FROM catalog_identity"), secret.count == 32
        else { throw StoreError(.cannotOpen, "the catalog has no token secret: its identity row is missing.") }
        return Array(secret)
    }

    /// Whether GRDB's migrator has applied every migration of `Migrations/sqlite/`.
    public func migrationsAreCurrent() throws -> Bool {
        try SQLiteCatalog.migrator.hasCompletedMigrations(db)
    }
}

extension SQLiteTransaction {
    public func mirrorSource() throws -> String? {
        try String.fetchOne(db, sql: "SELECT url FROM mirror_source")
    }

    public func setMirrorSource(_ url: String) throws {
        try db.execute(
            sql:
                "INSERT INTO mirror_source (singleton, url) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET url = excluded.url",
            arguments: [url])
    }

    public func mirroredFeed(feedID: Int64) throws -> (catalog: String, incarnation: Int64)? {
        try Row.fetchOne(
            db, sql: "SELECT source_catalog, source_incarnation FROM mirror_feed WHERE feed_id = ?",
            arguments: [feedID]
        ).map { (catalog: $0[0], incarnation: $0[1]) }
    }

    public func setMirroredFeed(feedID: Int64, catalog: String, incarnation: Int64) throws {
        try db.execute(
            sql: """
                INSERT INTO mirror_feed (feed_id, source_catalog, source_incarnation) VALUES (?, ?, ?)
                ON CONFLICT (feed_id) DO UPDATE
                    SET source_catalog = excluded.source_catalog, source_incarnation = excluded.source_incarnation
                """,
            arguments: [feedID, catalog, incarnation])
    }
}
