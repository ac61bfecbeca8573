-- Waterfall schema for PostgreSQL, migration 0005: placeholders and right-sized images
-- (DESIGN section 16); the same as the SQLite series' migration 0008.
--
-- `image.placeholder` is the feed's ThumbHash or BlurHash (1 to 64 printable ASCII characters),
-- `image.color` its colour as `#rrggbb` in lower case, painted by a client before the image
-- loads. `image.renditions` holds the sizes the image is served at: one line a rendition,
-- `WIDTH URL`, widths strictly ascending; or one line `* TEMPLATE`, a URL whose `{width}` the
-- server fills in. NULL when the feed gives none; images made before this migration have none.

ALTER TABLE image ADD COLUMN placeholder TEXT CHECK (placeholder IS NULL OR octet_length(placeholder) BETWEEN 1 AND 64);
ALTER TABLE image ADD COLUMN color TEXT CHECK (color IS NULL OR color ~ '^#[0-9a-f]{6}$');
ALTER TABLE image ADD COLUMN renditions TEXT CHECK (renditions IS NULL OR length(renditions) > 0);
