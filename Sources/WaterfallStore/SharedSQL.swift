/// The SQL both engines run alike, written once (issue 24): each statement with `?` placeholders,
/// which SQLite takes as written and PostgreSQL numbered `$1`, `$2`, … in order. What differs
/// between the dialects (upserts with `RETURNING`, arrays, `COLLATE "C"`, bulk loads, locks)
/// stays in each engine's folder. `Tests/WaterfallStoreTests/Conformance` runs both.
enum SharedSQL {
    /// The columns of an image row, in ``ImageRecord``'s order.
    static let imageColumns =
        "sort_key, external_id, section_id, width, height, full_span, url, title, taken_at, placeholder, color, renditions, tags"
    /// The columns of a feed row, in ``FeedRecord``'s order.
    static let feedColumns = "id, name, revision, image_count, section_by, time_zone"
    /// The columns of a section row, in ``SectionRecord``'s order.
    static let sectionColumns = "id, name, title, position, declared"

    /// Adjusts a feed's stored image count.
    static let adjustImageCount = SharedStatement("UPDATE feed SET image_count = image_count + ? WHERE id = ?")
    /// The change log of a feed after a revision, oldest first, at most so many rows.
    static let changesSince = SharedStatement(
        "SELECT revision, kind, external_id, section FROM change WHERE feed_id = ? AND revision > ? ORDER BY revision, seq LIMIT ?"
    )
    /// The change log of a feed after a revision up to another (inclusive), oldest first.
    static let changesBetween = SharedStatement(
        "SELECT revision, kind, external_id, section FROM change WHERE feed_id = ? AND revision > ? AND revision <= ? ORDER BY revision, seq"
    )
    /// The rows of each kind of one revision of a feed's change log.
    static let changeCounts = SharedStatement(
        "SELECT kind, count(*) FROM change WHERE feed_id = ? AND revision = ? GROUP BY kind")
    /// The oldest revision a feed's change log can be read from.
    static let changesFrom = SharedStatement("SELECT changes_from FROM feed WHERE id = ?")
    /// The greatest revision of a feed committed before a time (Unix seconds).
    static let lastRevisionBefore = SharedStatement(
        "SELECT max(revision) FROM revision_time WHERE feed_id = ? AND committed_at < ?")
    /// Raises the revision a feed's change log can be read from (never lowers it).
    static let raiseChangesFrom = SharedStatement("UPDATE feed SET changes_from = ? WHERE id = ? AND changes_from < ?")
    /// Deletes the oldest rows of a feed's change log up to a revision, at most so many.
    static let pruneChanges = SharedStatement(
        """
        DELETE FROM change WHERE feed_id = ? AND (revision, seq) IN (
            SELECT revision, seq FROM change WHERE feed_id = ? AND revision <= ? ORDER BY revision, seq LIMIT ?)
        """)
    /// Deletes the commit times of a feed's revisions up to a revision.
    static let pruneRevisionTimes = SharedStatement("DELETE FROM revision_time WHERE feed_id = ? AND revision <= ?")
    /// The checkpoint with the greatest index not above an index (of those not stale: a cache's
    /// checkpoints from its `stale_from` on are, until its next save deletes them).
    static let checkpointAtOrBelow = SharedStatement(
        "SELECT \(checkpointColumns) \(validCheckpoints) AND p.idx <= ? ORDER BY p.idx DESC LIMIT 1")
    /// The checkpoint with the greatest key at or below a key (keys grow with indexes), of those
    /// not stale.
    static let checkpointAtOrBelowKey = SharedStatement(
        "SELECT \(checkpointColumns) \(validCheckpoints) AND p.sort_key <= ? ORDER BY p.idx DESC LIMIT 1")
    /// Every checkpoint's index and band, in index order, of those not stale.
    static let checkpointBands = SharedStatement(
        "SELECT p.idx, p.band_top, p.band_bottom \(validCheckpoints) ORDER BY p.idx")
    /// The columns of a checkpoint row `p`, in ``CheckpointRecord``'s order.
    private static let checkpointColumns = "p.idx, p.sort_key, p.section_id, p.state, p.band_top, p.band_bottom"
    /// The checkpoints `p` of one cache (its id the first argument) that are not stale.
    private static let validCheckpoints = """
        FROM layout_checkpoint p JOIN layout_cache c ON c.id = p.cache_id \
        WHERE p.cache_id = ? AND (c.stale_from IS NULL OR p.idx < c.stale_from)
        """
    /// Marks stale, in every cache of a feed (its id the second argument), the checkpoints from
    /// the first valid one at or after an order key (the first argument) on; a cache with none
    /// keeps its mark. Valid checkpoints are the ones before the mark, so the first found (the
    /// primary key's range, in index order) is the new mark. Each cache's row is rewritten.
    static let markCheckpointsStale = SharedStatement(
        """
        UPDATE layout_cache SET stale_from = COALESCE((
            SELECT min(p.idx) FROM layout_checkpoint p
            WHERE p.cache_id = layout_cache.id AND p.idx < COALESCE(layout_cache.stale_from, 9223372036854775807)
                AND p.sort_key >= ?), stale_from)
        WHERE feed_id = ?
        """)
    /// Deletes a cache's stale checkpoints (its id twice), before a save writes valid ones.
    static let deleteStaleCheckpoints = SharedStatement(
        "DELETE FROM layout_checkpoint WHERE cache_id = ? AND idx >= (SELECT stale_from FROM layout_cache WHERE id = ?)"
    )
    /// Notes that every checkpoint a cache holds is valid (after ``deleteStaleCheckpoints``).
    static let clearStaleFrom = SharedStatement(
        "UPDATE layout_cache SET stale_from = NULL WHERE id = ? AND stale_from IS NOT NULL")
    /// Deletes the API key of a name.
    static let deleteAPIKey = SharedStatement("DELETE FROM api_key WHERE name = ?")
    /// Deletes a feed (the rest goes by cascade).
    static let deleteFeed = SharedStatement("DELETE FROM feed WHERE id = ?")
    /// Deletes a named layout.
    static let deleteLayout = SharedStatement("DELETE FROM layout WHERE feed_id = ? AND name = ?")
    /// Deletes a section.
    static let deleteSection = SharedStatement("DELETE FROM section WHERE id = ?")
    /// The feed of a name.
    static let feedByName = SharedStatement(
        "SELECT \(feedColumns) FROM feed WHERE name = ? AND view_of IS NULL")
    /// Any feed by id, a view's membership included.
    static let feedByID = SharedStatement("SELECT \(feedColumns) FROM feed WHERE id = ?")
    /// Sets a view's membership at its feed's revision.
    static let setRevision = SharedStatement("UPDATE feed SET revision = ? WHERE id = ?")
    /// A feed's views, as ``ViewRecord``s (the order is each engine's: by name, byte order).
    static let viewColumns = "feed_id, name, rule, membership_id, resolved"
    /// Saves a view under its name, replacing one of the name.
    static let saveView = SharedStatement(
        """
        INSERT INTO view (feed_id, name, rule, membership_id, resolved) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (feed_id, name) DO UPDATE SET rule = excluded.rule, membership_id = excluded.membership_id,
            resolved = excluded.resolved
        """)
    /// Removes a view: its membership, and the view's row with it (the schema's cascades).
    static let removeView = SharedStatement(
        "DELETE FROM feed WHERE id = (SELECT membership_id FROM view WHERE feed_id = ? AND name = ?)")
    /// A feed's revision.
    static let feedRevision = SharedStatement("SELECT revision FROM feed WHERE id = ?")
    /// Every feed's incarnation and revision.
    static let feedVersions = SharedStatement("SELECT name, id, revision FROM feed WHERE view_of IS NULL")
    /// Whether any API key exists.
    static let hasAPIKeys = SharedStatement("SELECT EXISTS (SELECT 1 FROM api_key)")
    /// The image of a feed with an id.
    static let imageByID = SharedStatement("SELECT \(imageColumns) FROM image WHERE feed_id = ? AND external_id = ?")
    /// The image of a feed at an order key.
    static let imageByKey = SharedStatement("SELECT \(imageColumns) FROM image WHERE feed_id = ? AND sort_key = ?")
    /// Images from an order key on, in catalog order (a page's rows).
    static let imagesFromKey = SharedStatement(
        "SELECT \(imageColumns) FROM image WHERE feed_id = ? AND sort_key >= ? ORDER BY sort_key LIMIT ?")
    /// A page's rows as ``imagesFromKey``'s, only while the feed is at a revision (bound
    /// feed id, revision, key, limit): none when it is not. One statement is one snapshot, so
    /// the rows are that revision's without a transaction around them. The feed's id is the
    /// subquery's, `NULL` at another revision, so that the index is sought for nothing then:
    /// as a condition beside the key's (`AND EXISTS (…)`), SQLite checked it on every row from
    /// the key to the end of the feed, 60 ms at a million images, and random pages under a
    /// writer fell from 5,000 a second to 1,200.
    static let imagesFromKeyAtRevision = SharedStatement(
        """
        SELECT \(imageColumns) FROM image WHERE feed_id = (SELECT id FROM feed WHERE id = ? AND revision = ?)
        AND sort_key >= ? ORDER BY sort_key LIMIT ?
        """)
    /// Images from a catalog index on, in catalog order.
    static let imagesFromOffset = SharedStatement(
        "SELECT \(imageColumns) FROM image WHERE feed_id = ? ORDER BY sort_key LIMIT ? OFFSET ?")
    /// How many images of a feed carry a tag (bound as `"\n" + tag + "\n"`, see `tagNeedle`).
    static let taggedImageCount = SharedStatement(
        taggedBy: "SELECT count(*) FROM image WHERE feed_id = ? AND {hasTag}")
    /// The images of a feed that carry a tag, from an order key on, in catalog order.
    static let taggedImagesFromKey = SharedStatement(
        taggedBy:
            "SELECT \(imageColumns) FROM image WHERE feed_id = ? AND sort_key >= ? AND {hasTag} ORDER BY sort_key LIMIT ?"
    )
    /// The images of a feed that carry a tag, from an index among them on, in catalog order.
    static let taggedImagesFromOffset = SharedStatement(
        taggedBy: "SELECT \(imageColumns) FROM image WHERE feed_id = ? AND {hasTag} ORDER BY sort_key LIMIT ? OFFSET ?"
    )

    /// What a tagged read binds for its tag: the tag between line breaks, which the stored
    /// lines (`"\n" + tags + "\n"`) hold exactly when one of them is the tag, byte for byte.
    static func tagNeedle(_ tag: String) -> String { "\n" + tag + "\n" }
    /// Deletes the section extents of a feed's cached layouts that end at or after a key.
    static let invalidateSectionExtents = SharedStatement(
        "DELETE FROM layout_section WHERE cache_id IN (SELECT id FROM layout_cache WHERE feed_id = ?) AND until_key >= ?"
    )
    /// The least order key above a key.
    static let keyAfter = SharedStatement(
        "SELECT sort_key FROM image WHERE feed_id = ? AND sort_key > ? ORDER BY sort_key LIMIT 1")
    /// The greatest order key below a key.
    static let keyBefore = SharedStatement(
        "SELECT sort_key FROM image WHERE feed_id = ? AND sort_key < ? ORDER BY sort_key DESC LIMIT 1")
    /// The order key of the image at an index of a section.
    static let keyInSection = SharedStatement(
        "SELECT sort_key FROM image WHERE section_id = ? ORDER BY sort_key LIMIT 1 OFFSET ?")
    /// Order keys at or above a key, least first.
    static let keysAtOrAbove = SharedStatement(
        "SELECT sort_key FROM image WHERE feed_id = ? AND sort_key >= ? ORDER BY sort_key LIMIT ?")
    /// Order keys at or below a key, greatest first.
    static let keysAtOrBelow = SharedStatement(
        "SELECT sort_key FROM image WHERE feed_id = ? AND sort_key <= ? ORDER BY sort_key DESC LIMIT ?")
    /// The named layout of a feed.
    static let layoutByName = SharedStatement("SELECT name, configuration FROM layout WHERE feed_id = ? AND name = ?")
    /// The next sequence number of a revision's change-log rows.
    static let nextChangeSequence = SharedStatement(
        "SELECT coalesce(max(seq) + 1, 0) FROM change WHERE feed_id = ? AND revision = ?")
    /// Saves a named layout, replacing one of the same name.
    static let saveLayout = SharedStatement(
        "INSERT INTO layout (feed_id, name, configuration) VALUES (?, ?, ?) ON CONFLICT (feed_id, name) DO UPDATE SET configuration = excluded.configuration"
    )
    /// Stores the end of a cached layout.
    static let saveLayoutEnd = SharedStatement(
        "UPDATE layout_cache SET end_revision = ?, total_items = ?, content_height = ?, tail_top = ?, tail_bottom = ? WHERE id = ?"
    )
    /// The ids of a feed's sections, in order.
    static let sectionIDsOfFeed = SharedStatement("SELECT id FROM section WHERE feed_id = ? ORDER BY position")
    /// The sections of a feed, in order.
    static let sectionsOfFeed = SharedStatement(
        "SELECT \(sectionColumns) FROM section WHERE feed_id = ? ORDER BY position")
    /// Stores a feed's date sections.
    static let setSectioning = SharedStatement("UPDATE feed SET section_by = ?, time_zone = ? WHERE id = ?")
    /// The earliest date of a section's images.
    static let firstTakenAt = SharedStatement(
        "SELECT taken_at FROM image WHERE section_id = ? AND taken_at IS NOT NULL ORDER BY taken_at LIMIT 1")
    /// The first image of a section, in catalog order, taken at or before a moment.
    static let firstKeyTakenAtOrBefore = SharedStatement(
        "SELECT sort_key FROM image WHERE section_id = ? AND taken_at <= ? ORDER BY sort_key LIMIT 1")
    /// The latest date of a section's images.
    static let lastTakenAt = SharedStatement(
        "SELECT taken_at FROM image WHERE section_id = ? AND taken_at IS NOT NULL ORDER BY taken_at DESC LIMIT 1")
    /// The first order key of a section.
    static let firstKeyOfSection = SharedStatement(
        "SELECT sort_key FROM image WHERE section_id = ? ORDER BY sort_key LIMIT 1")
    /// The last order key of a section.
    static let lastKeyOfSection = SharedStatement(
        "SELECT sort_key FROM image WHERE section_id = ? ORDER BY sort_key DESC LIMIT 1")
    /// Stores a section's title, position and declared flag.
    static let updateSection = SharedStatement("UPDATE section SET title = ?, position = ?, declared = ? WHERE id = ?")
}

/// One statement in both dialects.
struct SharedStatement: Sendable {
    /// The statement with `?` placeholders.
    let sqlite: String
    /// The statement with `$1`, `$2`, … placeholders.
    let postgres: String

    /// `sql` with `{hasTag}` written in each dialect: whether the row's `tags` hold the tag
    /// bound there as ``SharedSQL/tagNeedle(_:)`` (a plain substring search, exact by bytes; a
    /// scan of the feed's rows, which views replace with kept membership).
    init(taggedBy sql: String) {
        let sqlite = SharedStatement(sql.replacing("{hasTag}", with: "instr(char(10) || tags || char(10), ?) > 0"))
        let postgres = SharedStatement(sql.replacing("{hasTag}", with: "strpos(chr(10) || tags || chr(10), ?) > 0"))
        self.sqlite = sqlite.sqlite
        self.postgres = postgres.postgres
    }

    init(_ sql: String) {
        sqlite = sql
        var numbered = ""
        var count = 0
        for character in sql {
            if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        postgres = numbered
    }
}
