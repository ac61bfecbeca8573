-- Waterfall schema for PostgreSQL, migration 0009: views (DESIGN section 20); the same as the
-- SQLite series' migration 0012.
--
-- A view is a named rule over one feed (`rule`: its canonical JSON). Its images are kept as a
-- feed of their own, its *membership*: a `feed` row with `view_of` set to the feed it filters,
-- holding a copy of each matching image at the same order key, in a copy of each section that
-- has a match, with its own revision (always its feed's), change log and layout cache; so every
-- query a feed answers runs on a view unchanged, and a write to the feed updates the membership
-- in the same transaction. A membership is no feed of the catalog's: `feeds` and lookups by name
-- leave it out, and it goes with its view or its feed. `resolved` is the rule as the membership
-- was built under it (dates made moments in the feed's time zone): when that changes, the
-- membership is made anew, as another incarnation.

ALTER TABLE feed ADD COLUMN view_of BIGINT REFERENCES feed(id) ON DELETE CASCADE;
CREATE INDEX feed_view_of ON feed(view_of) WHERE view_of IS NOT NULL;

CREATE TABLE view (
    feed_id       BIGINT NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    name          TEXT   NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 64),
    rule          TEXT   NOT NULL CHECK (length(rule) > 0),
    membership_id BIGINT NOT NULL UNIQUE REFERENCES feed(id) ON DELETE CASCADE,
    resolved      TEXT   NOT NULL,
    PRIMARY KEY (feed_id, name)
);
