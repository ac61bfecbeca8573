-- Waterfall schema for PostgreSQL, migration 0002: API keys that expire, and when each was last
-- used; the same columns as the SQLite series' migration 0005.
--
-- `expires_at` is the Unix time, in seconds, from which the key is refused (`key add --expires`);
-- NULL: it never expires. `last_used_at` is the Unix time of a request made with the key, as
-- `serve` writes it: at most once a minute a key and instance, best effort, so it may lag by a
-- minute; NULL until its first use. Keys made before this migration never expire.

ALTER TABLE api_key ADD COLUMN expires_at   BIGINT CHECK (expires_at IS NULL OR expires_at >= 0);
ALTER TABLE api_key ADD COLUMN last_used_at BIGINT CHECK (last_used_at IS NULL OR last_used_at >= 0);
