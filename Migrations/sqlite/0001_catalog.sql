-- Waterfall schema, migration 0001: the catalog, the change log, named layouts, the layout cache.
--
-- Runnable by hand: `sqlite3 waterfall.sqlite < Migrations/0001_catalog.sql` (then mark it
-- applied the way `waterfall` does: see WaterfallStore/DatabaseOpener.swift). The binary
-- carries these files: the EmbedMigrations build plugin compiles them in.

-- Marks the file as a Waterfall database ('WTFL'): files without it are refused, not modified.
PRAGMA application_id = 1465140812;

-- A feed: a board, an album, a timeline. `revision` counts its committed changes;
-- `image_count` is kept by every write so that totals cost nothing.
CREATE TABLE feed (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL UNIQUE CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 128),
    revision  INTEGER NOT NULL DEFAULT 0 CHECK (revision >= 0),
    image_count INTEGER NOT NULL DEFAULT 0 CHECK (image_count >= 0)
) STRICT;

-- A section of a feed, ordered by `position` (sparse: new sections fit between old ones).
-- `name` NULL is the unnamed section. `declared` = listed in `sections` of the last snapshot
-- import (or of an append import since): such a section stays even with no images.
CREATE TABLE section (
    id        INTEGER PRIMARY KEY,
    feed_id   INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    name      TEXT    CHECK (name IS NULL OR length(CAST(name AS BLOB)) BETWEEN 1 AND 256),
    title     TEXT    CHECK (title IS NULL OR length(CAST(title AS BLOB)) <= 1024),
    position  INTEGER NOT NULL,
    declared  INTEGER NOT NULL DEFAULT 0 CHECK (declared IN (0, 1)),
    UNIQUE (feed_id, position),
    UNIQUE (feed_id, name)
) STRICT;
CREATE UNIQUE INDEX section_unnamed ON section(feed_id) WHERE name IS NULL;

-- An image. Catalog order is `sort_key` order: sparse keys, so a move rewrites one row.
-- Keys respect section order: every image of a section sorts after every image of the
-- sections before it. The table is clustered on (feed, key), so reading a page or laying
-- out a feed is one sequential range scan.
CREATE TABLE image (
    feed_id     INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    sort_key    INTEGER NOT NULL,
    external_id TEXT    NOT NULL CHECK (length(CAST(external_id AS BLOB)) BETWEEN 1 AND 256),
    section_id  INTEGER NOT NULL REFERENCES section(id) ON DELETE CASCADE,
    width       INTEGER NOT NULL CHECK (width BETWEEN 1 AND 1000000),
    height      INTEGER NOT NULL CHECK (height BETWEEN 1 AND 1000000),
    full_span   INTEGER NOT NULL DEFAULT 0 CHECK (full_span IN (0, 1)),
    url         TEXT    CHECK (url IS NULL OR length(CAST(url AS BLOB)) <= 4096),
    title       TEXT    CHECK (title IS NULL OR length(CAST(title AS BLOB)) <= 1024),
    PRIMARY KEY (feed_id, sort_key)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX image_external_id ON image(feed_id, external_id);
CREATE INDEX image_section ON image(section_id, sort_key);

-- The change log: one row per changed image per revision, appended in the same transaction.
-- A rowid table: rows are appended in order, which is three times cheaper than keyed inserts
-- when a first import logs a million of them; `id` orders the rows of one revision.
CREATE TABLE change (
    id          INTEGER PRIMARY KEY,
    feed_id     INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('insert', 'update', 'move', 'remove')),
    external_id TEXT    NOT NULL,
    section     TEXT
) STRICT;
CREATE INDEX change_revision ON change(feed_id, revision);

-- Named layouts: a configuration (canonical JSON) saved under a name, per feed.
CREATE TABLE layout (
    feed_id       INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    name          TEXT    NOT NULL CHECK (length(CAST(name AS BLOB)) BETWEEN 1 AND 128),
    configuration TEXT    NOT NULL,
    PRIMARY KEY (feed_id, name)
) STRICT, WITHOUT ROWID;

-- The layout cache: one entry per (feed, configuration), named or inline.
-- The `end_*` columns describe the layout's end (content height, the band of the last partial
-- chunk) and are valid only while `end_revision` equals the feed's revision.
CREATE TABLE layout_cache (
    id             INTEGER PRIMARY KEY,
    feed_id        INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    configuration  TEXT    NOT NULL,
    stride         INTEGER NOT NULL CHECK (stride > 0),
    end_revision   INTEGER,
    total_items    INTEGER,
    content_height REAL,
    tail_top       REAL,
    tail_bottom    REAL,
    UNIQUE (feed_id, configuration)
) STRICT;

-- A checkpoint: the resumable layout state just before the image at catalog index `idx`
-- (a positive multiple of the stride for a waterfall; the first row start at least a stride
-- after the previous checkpoint for justified rows), that image's order key, the section open
-- in the state, and the band that the chunk of images from the previous checkpoint to `idx`
-- and its headers and footers occupy (horizontal for a cover flow). A change at order key K
-- deletes the checkpoints with sort_key >= K.
CREATE TABLE layout_checkpoint (
    cache_id    INTEGER NOT NULL REFERENCES layout_cache(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL CHECK (idx > 0),
    sort_key    INTEGER NOT NULL,
    section_id  INTEGER NOT NULL,
    state       BLOB    NOT NULL,
    band_top    REAL    NOT NULL,
    band_bottom REAL    NOT NULL,
    PRIMARY KEY (cache_id, idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX layout_checkpoint_key ON layout_checkpoint(cache_id, sort_key);

-- Where each section starts and ends in a cached layout (for pinned headers). `until_key` is
-- the order key of the first image after the section (9223372036854775807 when none):
-- a change at key K deletes the rows with until_key >= K.
CREATE TABLE layout_section (
    cache_id      INTEGER NOT NULL REFERENCES layout_cache(id) ON DELETE CASCADE,
    section_id    INTEGER NOT NULL,
    until_key     INTEGER NOT NULL,
    start_y       REAL    NOT NULL,
    end_y         REAL    NOT NULL,
    PRIMARY KEY (cache_id, section_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX layout_section_until ON layout_section(cache_id, until_key);
