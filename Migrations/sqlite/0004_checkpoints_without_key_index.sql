-- Waterfall schema, migration 0004: checkpoints lose their (cache_id, sort_key) index.
--
-- Its only reader was the invalidation after a change ("every checkpoint from this order key
-- on"), and every checkpoint written or deleted paid for it. Checkpoints are taken in catalog
-- order, so within a cache their keys grow with `idx`: the invalidation now finds the first
-- checkpoint at or after the key along the primary key and deletes the range of `idx` from
-- there, one B-tree instead of two (a move in the middle of a 1M-image feed deletes about 2,000
-- checkpoints of each cached layout).

DROP INDEX layout_checkpoint_key;
