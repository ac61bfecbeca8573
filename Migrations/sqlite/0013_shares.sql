-- Waterfall schema, migration 0013: share links (DESIGN section 20).
--
-- A share hands one feed, or one view of it (by name: a view saved again under its name keeps
-- its shares), and optionally one of its named layouts, to whoever holds its token, read-only,
-- until `expires_at` (seconds since the epoch; NULL: until removed). Only the token's SHA-256 is
-- kept: the token itself is shown once, when the share is made. A share goes with its feed.

CREATE TABLE share (
    id          INTEGER PRIMARY KEY,
    token_hash  BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    feed_id     INTEGER NOT NULL REFERENCES feed(id) ON DELETE CASCADE,
    view        TEXT    CHECK (view IS NULL OR length(CAST(view AS BLOB)) BETWEEN 1 AND 64),
    layout      TEXT    CHECK (layout IS NULL OR length(CAST(layout AS BLOB)) BETWEEN 1 AND 128),
    expires_at  INTEGER,
    created_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX share_feed ON share(feed_id);
