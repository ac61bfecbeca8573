/// The statements requests run on PostgreSQL, each prepared once per connection
/// (``PostgresRequestStatement``): what a page, a viewport, a section index or a move reads,
/// and the write locks. Imports' and removals' bulk statements (column arrays of up to 10,000
/// rows), migrations and rarely run reads stay one-off statements.
enum PostgresStatement {
    // MARK: Feeds and the change log
    enum FeedByName: PostgresRequestStatement { static let sql = SharedSQL.feedByName.postgres }
    enum FeedByID: PostgresRequestStatement { static let sql = SharedSQL.feedByID.postgres }
    enum ViewByName: PostgresRequestStatement {
        static let sql = "SELECT \(SharedSQL.viewColumns) FROM view WHERE feed_id = $1 AND name = $2"
    }
    enum FeedVersions: PostgresRequestStatement { static let sql = SharedSQL.feedVersions.postgres }
    enum ChangesSince: PostgresRequestStatement { static let sql = SharedSQL.changesSince.postgres }

    // MARK: Sections
    enum SectionsOfFeed: PostgresRequestStatement { static let sql = SharedSQL.sectionsOfFeed.postgres }
    enum SectionIDsOfFeed: PostgresRequestStatement { static let sql = SharedSQL.sectionIDsOfFeed.postgres }
    /// Each section's earliest and latest `takenAt`: two seeks of the partial index a section.
    enum TakenAtRanges: PostgresRequestStatement {
        static let sql = """
            SELECT s.id,
                   (SELECT taken_at FROM image WHERE section_id = s.id AND taken_at IS NOT NULL ORDER BY taken_at LIMIT 1),
                   (SELECT taken_at FROM image WHERE section_id = s.id AND taken_at IS NOT NULL ORDER BY taken_at DESC LIMIT 1)
            FROM unnest($1::bigint[]) AS s(id)
            """
    }
    /// The first section of the list (in its order) with an image taken at or before `$2`.
    enum FirstSectionTakenAtOrBefore: PostgresRequestStatement {
        static let sql = """
            SELECT s.id FROM unnest($1::bigint[]) WITH ORDINALITY AS s(id, n)
            WHERE (SELECT taken_at FROM image WHERE section_id = s.id AND taken_at IS NOT NULL ORDER BY taken_at LIMIT 1) <= $2
            ORDER BY s.n LIMIT 1
            """
    }
    enum FirstKeyTakenAtOrBefore: PostgresRequestStatement {
        static let sql = SharedSQL.firstKeyTakenAtOrBefore.postgres
    }
    enum SectionsByID: PostgresRequestStatement {
        static let sql = "SELECT \(SharedSQL.sectionColumns) FROM section WHERE id = ANY($1::bigint[])"
    }

    // MARK: Images and their keys
    enum ImageByID: PostgresRequestStatement { static let sql = SharedSQL.imageByID.postgres }
    enum ImageByKey: PostgresRequestStatement { static let sql = SharedSQL.imageByKey.postgres }
    enum ImagesFromKey: PostgresRequestStatement { static let sql = SharedSQL.imagesFromKey.postgres }
    enum ImagesFromKeyAtRevision: PostgresRequestStatement {
        static let sql = SharedSQL.imagesFromKeyAtRevision.postgres
    }
    enum ImagesFromOffset: PostgresRequestStatement { static let sql = SharedSQL.imagesFromOffset.postgres }
    enum TaggedImageCount: PostgresRequestStatement { static let sql = SharedSQL.taggedImageCount.postgres }
    enum TaggedImagesFromKey: PostgresRequestStatement { static let sql = SharedSQL.taggedImagesFromKey.postgres }
    enum TaggedImagesFromOffset: PostgresRequestStatement {
        static let sql = SharedSQL.taggedImagesFromOffset.postgres
    }
    enum GeometryFromKey: PostgresRequestStatement {
        static let sql = """
            SELECT sort_key, section_id, width, height, full_span FROM image
            WHERE feed_id = $1 AND sort_key >= $2 ORDER BY sort_key LIMIT $3
            """
    }
    enum ImagesByIDs: PostgresRequestStatement {
        static let sql =
            "SELECT \(SharedSQL.imageColumns) FROM image WHERE feed_id = $1 AND external_id = ANY($2::text[])"
    }
    /// Each key's neighbours: two index seeks a key, in one round trip.
    enum NeighbourKeys: PostgresRequestStatement {
        static let sql = """
            SELECT k.key,
                   (SELECT sort_key FROM image WHERE feed_id = $1 AND sort_key < k.key ORDER BY sort_key DESC LIMIT 1),
                   (SELECT sort_key FROM image WHERE feed_id = $1 AND sort_key > k.key ORDER BY sort_key LIMIT 1)
            FROM unnest($2::bigint[]) AS k(key)
            """
    }
    enum KeyBefore: PostgresRequestStatement { static let sql = SharedSQL.keyBefore.postgres }
    enum KeyAfter: PostgresRequestStatement { static let sql = SharedSQL.keyAfter.postgres }
    enum KeysAtOrBelow: PostgresRequestStatement { static let sql = SharedSQL.keysAtOrBelow.postgres }
    enum KeysAtOrAbove: PostgresRequestStatement { static let sql = SharedSQL.keysAtOrAbove.postgres }
    enum KeyInSection: PostgresRequestStatement { static let sql = SharedSQL.keyInSection.postgres }

    // MARK: Layouts and their cache
    enum LayoutByName: PostgresRequestStatement { static let sql = SharedSQL.layoutByName.postgres }
    enum CacheEntry: PostgresRequestStatement {
        static let sql = """
            SELECT id, configuration, stride, end_revision, total_items, content_height, tail_top, tail_bottom
            FROM layout_cache WHERE feed_id = $1 AND configuration = $2
            """
    }
    enum CheckpointAtOrBelow: PostgresRequestStatement { static let sql = SharedSQL.checkpointAtOrBelow.postgres }
    enum CheckpointAtOrBelowKey: PostgresRequestStatement { static let sql = SharedSQL.checkpointAtOrBelowKey.postgres }
    enum CheckpointBands: PostgresRequestStatement { static let sql = SharedSQL.checkpointBands.postgres }
    enum SectionExtents: PostgresRequestStatement {
        static let sql = """
            SELECT section_id, until_key, start_y, end_y FROM layout_section WHERE cache_id = $1 AND section_id = ANY($2::bigint[])
            """
    }

    // MARK: Write locks (``PostgresCatalog/lockName(_:)``)
    /// The whole catalog's lock, waited for.
    enum LockCatalog: PostgresRequestStatement {
        static let sql = "SELECT pg_advisory_xact_lock($1::integer, hashtext(current_schema())), true"
        static let length = StatementLength.lockWait(locks: 1)
    }
    /// The whole catalog's lock if it is free.
    enum TryLockCatalog: PostgresRequestStatement {
        static let sql = "SELECT pg_try_advisory_xact_lock($1::integer, hashtext(current_schema())), true"
    }
    /// A scope's lock with the catalog's shared, waited for.
    enum LockScope: PostgresRequestStatement {
        static let sql = """
            SELECT pg_advisory_xact_lock_shared($1::integer, hashtext(current_schema())),
                   pg_advisory_xact_lock($1::integer, hashtext(current_schema() || $2::text))
            """
        static let length = StatementLength.lockWait(locks: 2)
    }
    /// A scope's lock with the catalog's shared, if both are free.
    enum TryLockScope: PostgresRequestStatement {
        static let sql = """
            SELECT pg_try_advisory_xact_lock_shared($1::integer, hashtext(current_schema())),
                   pg_try_advisory_xact_lock($1::integer, hashtext(current_schema() || $2::text))
            """
    }
}
