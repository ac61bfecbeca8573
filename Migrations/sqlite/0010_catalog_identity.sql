-- Waterfall schema, migration 0010: the catalog's identity (DESIGN section 19).
--
-- `token_secret` signs every opaque token a server of this catalog hands out (a listing's
-- `nextCursor`): made once, here, and shared by every process that opens the catalog, so a
-- cursor one instance wrote verifies on another, and one nobody wrote verifies nowhere.
-- `next_feed_id` is the id the next feed made gets: a feed's id is its incarnation and is never
-- used twice (SQLite alone would give a feed made after the greatest one was removed that
-- removed feed's id), so everything derived from a feed (kept copies, entity tags, cursors,
-- event streams) tells a feed made anew from the one removed.
CREATE TABLE catalog_identity (
    singleton    INTEGER PRIMARY KEY CHECK (singleton = 1),
    token_secret BLOB    NOT NULL CHECK (length(token_secret) = 32),
    next_feed_id INTEGER NOT NULL CHECK (next_feed_id > 0)
) STRICT;
INSERT INTO catalog_identity (singleton, token_secret, next_feed_id)
    VALUES (1, randomblob(32), (SELECT coalesce(max(id), 0) + 1 FROM feed));
