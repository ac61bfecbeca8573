import Foundation
import NIOCore
import PostgresNIO

extension PostgresTransaction {
    public func apiKeys() throws -> [APIKeyRecord] {
        var keys: [Int64: APIKeyRecord] = [:]
        var order: [Int64] = []
        let sql =
            "SELECT id, name, secret_sha256, can_write, expires_at, last_used_at FROM api_key ORDER BY name COLLATE \"C\""
        for row in try session.rows(sql) {
            let (id, name, hash, canWrite, expiresAt, lastUsedAt) = try row.decode(
                (Int64, String, ByteBuffer, Bool, Int64?, Int64?).self)
            keys[id] = APIKeyRecord(
                name: name, secretSHA256: Array(buffer: hash), canWrite: canWrite, feeds: [], expiresAt: expiresAt,
                lastUsedAt: lastUsedAt)
            order.append(id)
        }
        for row in try session.rows("SELECT key_id, feed_name FROM api_key_feed ORDER BY feed_name COLLATE \"C\"") {
            let (id, feed) = try row.decode((Int64, String).self)
            keys[id]?.feeds.append(feed)
        }
        return order.compactMap { keys[$0] }
    }

    public func hasAPIKeys() throws -> Bool {
        try session.scalar(Bool.self, SharedSQL.hasAPIKeys.postgres) ?? false
    }

    public func insertAPIKey(_ key: APIKeyRecord) throws -> Bool {
        guard
            let id = try session.scalar(
                Int64.self,
                """
                INSERT INTO api_key (name, secret_sha256, can_write, expires_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, .text(key.name), .bytes(key.secretSHA256), .bool(key.canWrite), .optionalInt(key.expiresAt))
        else { return false }
        let feeds = Array(Set(key.feeds))
        if !feeds.isEmpty {
            try session.execute(
                "INSERT INTO api_key_feed (key_id, feed_name) SELECT $1, unnest($2::text[])", .int(id), .texts(feeds))
        }
        return true
    }

    public func deleteAPIKey(named name: String) throws -> Bool {
        try session.execute(SharedSQL.deleteAPIKey.postgres, .text(name)) > 0
    }

    public func recordAPIKeyUse(named name: String, at time: Int64) throws {
        _ = try session.execute(
            "UPDATE api_key SET last_used_at = $1 WHERE name = $2 AND (last_used_at IS NULL OR last_used_at < $1)",
            .int(time), .text(name))
    }
}

extension PostgresTransaction {
    /// The secret that signs the catalog's tokens (migration 0007 made it).
    public func tokenSecret() throws -> [UInt8] {
        guard let secret = try session.scalar(ByteBuffer.self, "SELECT token_secret FROM catalog_identity"),
            secret.readableBytes == 32
        else { throw StoreError(.cannotOpen, "the catalog has no token secret: its identity row is missing.") }
        return Array(buffer: secret)
    }

    /// Whether every migration of `Migrations/postgres/` is recorded as applied.
    public func migrationsAreCurrent() throws -> Bool {
        let applied = Set(
            try session.rows("SELECT identifier FROM waterfall_migrations").map { try $0.decode(String.self) })
        return PostgresCatalog.migrations.allSatisfy { applied.contains($0.identifier) }
    }
}

extension PostgresTransaction {
    public func mirrorSource() throws -> String? {
        try session.scalar(String.self, "SELECT url FROM mirror_source")
    }

    public func setMirrorSource(_ url: String) throws {
        _ = try session.execute(
            "INSERT INTO mirror_source (singleton, url) VALUES (1, $1) ON CONFLICT (singleton) DO UPDATE SET url = excluded.url",
            .text(url))
    }

    public func mirroredFeed(feedID: Int64) throws -> (catalog: String, incarnation: Int64)? {
        try session.rows(
            "SELECT source_catalog, source_incarnation FROM mirror_feed WHERE feed_id = $1", .int(feedID)
        ).first.map {
            let (catalog, incarnation) = try $0.decode((String, Int64).self)
            return (catalog: catalog, incarnation: incarnation)
        }
    }

    public func setMirroredFeed(feedID: Int64, catalog: String, incarnation: Int64) throws {
        _ = try session.execute(
            """
            INSERT INTO mirror_feed (feed_id, source_catalog, source_incarnation) VALUES ($1, $2, $3)
            ON CONFLICT (feed_id) DO UPDATE
                SET source_catalog = excluded.source_catalog, source_incarnation = excluded.source_incarnation
            """, .int(feedID), .text(catalog), .int(incarnation))
    }
}
