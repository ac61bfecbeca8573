-- Waterfall schema for PostgreSQL, migration 0003: a change log kept within bounds
-- (`serve --keep-changes`); the same as the SQLite series' migration 0006.
--
-- `feed.changes_from` is the oldest revision a client may ask the change log from: rows of
-- revisions up to it may have been pruned, so `changes?since=R` with R below it cannot be
-- answered whole (HTTP 410). 0 until the first prune: the log is whole.
-- `revision_time` is when each revision was committed (Unix seconds), for keeping the log
-- for a duration (`--keep-changes 30d`); revisions made before this migration have none.

ALTER TABLE feed ADD COLUMN changes_from BIGINT NOT NULL DEFAULT 0 CHECK (changes_from >= 0);

CREATE TABLE revision_time (
    feed_id      BIGINT NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    revision     BIGINT NOT NULL,
    committed_at BIGINT NOT NULL,
    PRIMARY KEY (feed_id, revision)
);
