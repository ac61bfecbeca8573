-- Waterfall schema, migration 0009: a change marks a cache's checkpoints stale instead of
-- deleting them.
--
-- A move in the middle of a 1M-image feed invalidates about 2,000 checkpoints of each cached
-- layout (DESIGN section 5); deleting them rewrote some 35 pages of 8 KiB in the move's own
-- transaction, most of a move's writing. Now the move writes one number in the cache's row:
-- `stale_from`, the index from which that cache's stored checkpoints are no longer valid (NULL:
-- every one is). Every read of checkpoints ignores the stale ones, and the next save of the
-- cache, by the reader that lays the feed out again, deletes them before it writes its own.
ALTER TABLE layout_cache ADD COLUMN stale_from INTEGER CHECK (stale_from IS NULL OR stale_from > 0);
