-- Waterfall schema for PostgreSQL, migration 0003: a timeline by date (DESIGN section 17); the
-- same columns as the SQLite series' migration 0006.
--
-- `image.taken_at` is when the image was taken, in milliseconds since 1970-01-01T00:00:00Z (the
-- feed's `takenAt`, an RFC 3339 date-time with an offset, kept as its instant); NULL when the
-- feed gives none. `feed.section_by` and `feed.time_zone` are the feed's date sections, as its
-- last import set them (`sectionBy`, `timeZone`): NULL means the feed's own `section` fields,
-- and a zone of NULL is UTC. The partial index gives each section's first and last date.

ALTER TABLE image ADD COLUMN taken_at BIGINT;
ALTER TABLE feed ADD COLUMN section_by TEXT CHECK (section_by IS NULL OR section_by IN ('day', 'month', 'year'));
ALTER TABLE feed ADD COLUMN time_zone TEXT CHECK (time_zone IS NULL OR octet_length(time_zone) BETWEEN 1 AND 64);
CREATE INDEX image_section_taken_at ON image(section_id, taken_at) WHERE taken_at IS NOT NULL;
