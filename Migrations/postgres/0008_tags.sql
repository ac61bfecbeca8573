-- Waterfall schema for PostgreSQL, migration 0008: an image's tags (DESIGN section 20); the
-- same as the SQLite series' migration 0011.
--
-- `image.tags` holds the tags the feed gave the image, one line a tag in the feed's order
-- (a tag is 1 to 64 bytes without control characters, so it holds no line break); NULL for
-- an image without tags, and for every image made before this migration.

ALTER TABLE image ADD COLUMN tags TEXT CHECK (tags IS NULL OR length(tags) > 0);
