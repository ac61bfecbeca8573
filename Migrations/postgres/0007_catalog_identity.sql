-- Waterfall schema for PostgreSQL, migration 0007: the catalog's identity (DESIGN section 19);
-- the SQLite series' migration 0010.
--
-- `token_secret` signs every opaque token a server of this catalog hands out (a listing's
-- `nextCursor`): made once, here, and shared by every instance. Its 32 bytes come from two
-- version-4 UUIDs (`gen_random_uuid`, PostgreSQL's strong random source; 244 random bits).
-- A feed's id is its incarnation: an identity column, which never gives an id twice.
CREATE TABLE catalog_identity (
    singleton    INTEGER PRIMARY KEY CHECK (singleton = 1),
    token_secret BYTEA   NOT NULL CHECK (octet_length(token_secret) = 32)
);
INSERT INTO catalog_identity (singleton, token_secret)
    VALUES (1, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
