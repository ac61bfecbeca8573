-- Waterfall schema, migration 0003: the change log is clustered on what every reader asks for,
-- (feed, revision), with `seq` ordering the rows of one revision.
--
-- A first import logs one row per image. Kept as a rowid table with a separate
-- (feed_id, revision) index, each row also cost an index insertion that searched the index from
-- its root: about a second of a million-image import. Clustered on the key, rows of one
-- revision are appended in order and written once. The old `id` keeps the old rows' order.

CREATE TABLE change_by_revision (
    feed_id     INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    revision    INTEGER NOT NULL,
    seq         INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('insert', 'update', 'move', 'remove')),
    external_id TEXT    NOT NULL,
    section     TEXT,
    PRIMARY KEY (feed_id, revision, seq)
) STRICT, WITHOUT ROWID;

INSERT INTO change_by_revision (feed_id, revision, seq, kind, external_id, section)
SELECT feed_id, revision, id, kind, external_id, section FROM change;

DROP TABLE change;
ALTER TABLE change_by_revision RENAME TO change;
