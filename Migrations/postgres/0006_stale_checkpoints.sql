-- Waterfall schema for PostgreSQL, migration 0006: a change marks a cache's checkpoints stale
-- instead of deleting them; the same as the SQLite series' migration 0009.
--
-- `layout_cache.stale_from` is the index from which that cache's stored checkpoints are no
-- longer valid (NULL: every one is). Every read of checkpoints ignores the stale ones, and the
-- next save of the cache deletes them before it writes its own.
ALTER TABLE layout_cache ADD COLUMN stale_from BIGINT CHECK (stale_from IS NULL OR stale_from > 0);
