-- Waterfall schema for PostgreSQL, migration 0011: mirrors (DESIGN section 21); the same as
-- the SQLite series' migration 0014.
--
-- A catalog with a `mirror_source` row follows the server at `url` (`waterfall mirror`): its
-- feeds are that server's, written only by the mirror, and every other write is refused. A
-- `mirror_feed` row names, for a feed of the mirror, the incarnation of the source's feed it
-- holds (the mirror's own feed ids are its own): a source feed removed and made anew has
-- another, and the mirror lists it again.
CREATE TABLE mirror_source (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    url       TEXT    NOT NULL CHECK (octet_length(url) BETWEEN 1 AND 4096)
);
CREATE TABLE mirror_feed (
    feed_id            BIGINT PRIMARY KEY REFERENCES feed(id) ON DELETE CASCADE,
    source_incarnation BIGINT NOT NULL
);
