-- Waterfall schema, migration 0005: API keys that expire, and when each was last used.
--
-- `expires_at` is the Unix time, in seconds, from which the key is refused (`key add --expires`);
-- NULL: it never expires. `last_used_at` is the Unix time of a request made with the key, as
-- `serve` writes it: at most once a minute a key, best effort, so it may lag by a minute; NULL
-- until its first use. Keys made before this migration never expire and have no last use.

ALTER TABLE api_key ADD COLUMN expires_at   INTEGER CHECK (expires_at IS NULL OR expires_at >= 0);
ALTER TABLE api_key ADD COLUMN last_used_at INTEGER CHECK (last_used_at IS NULL OR last_used_at >= 0);
