-- Waterfall schema, migration 0002: API keys for `waterfall serve`.
--
-- A key is a secret a client sends as `Authorization: Bearer SECRET`. Only its SHA-256 is kept,
-- so a copy of the database gives nobody a working key. A key reads (and with `can_write`,
-- writes) every feed, or only the feeds listed for it in `api_key_feed`, by name: a key may
-- name a feed before it exists, so that its holder can create it.

CREATE TABLE api_key (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 128),
    secret_sha256 BLOB    NOT NULL UNIQUE CHECK (length(secret_sha256) = 32),
    can_write     INTEGER NOT NULL DEFAULT 0 CHECK (can_write IN (0, 1))
) STRICT;

CREATE TABLE api_key_feed (
    key_id    INTEGER NOT NULL REFERENCES api_key(id) ON DELETE CASCADE,
    feed_name TEXT    NOT NULL CHECK (length(CAST(feed_name AS BLOB)) BETWEEN 1 AND 128),
    PRIMARY KEY (key_id, feed_name)
) STRICT, WITHOUT ROWID;
