-- Waterfall schema for PostgreSQL, migration 0011: mirrors (DESIGN section 21); the same as
-- the SQLite series' migration 0014.
--
-- A catalog with a `mirror_source` row follows the server at `url` (`waterfall mirror`): its
-- feeds are that server's, written only by the mirror, and every other write is refused. A
-- `mirror_feed` row names, for a feed of the mirror, the source's feed it holds: the identity
-- of the source's catalog (derived from its secret: another catalog at the same address has
-- another) and the feed's incarnation there (the mirror's own feed ids are its own). A source
-- feed removed and made anew, or one of another catalog, is listed again.
CREATE TABLE mirror_source (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    url       TEXT    NOT NULL CHECK (octet_length(url) BETWEEN 1 AND 4096)
);
CREATE TABLE mirror_feed (
    feed_id            BIGINT PRIMARY KEY REFERENCES feed(id) ON DELETE CASCADE,
    source_catalog     TEXT   NOT NULL CHECK (octet_length(source_catalog) BETWEEN 1 AND 64),
    source_incarnation BIGINT NOT NULL
);
