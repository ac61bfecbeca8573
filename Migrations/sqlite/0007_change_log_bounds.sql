-- Waterfall schema, migration 0006: a change log kept within bounds (`serve --keep-changes`).
--
-- `feed.changes_from` is the oldest revision a client may ask the change log from: rows of
-- revisions up to it may have been pruned, so `changes?since=R` with R below it cannot be
-- answered whole (HTTP 410). 0 until the first prune: the log is whole.
-- `revision_time` is when each revision was committed (Unix seconds), for keeping the log
-- for a duration (`--keep-changes 30d`); revisions made before this migration have none.

ALTER TABLE feed ADD COLUMN changes_from INTEGER NOT NULL DEFAULT 0 CHECK (changes_from >= 0);

CREATE TABLE revision_time (
    feed_id      INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    revision     INTEGER NOT NULL,
    committed_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, revision)
) STRICT, WITHOUT ROWID;
