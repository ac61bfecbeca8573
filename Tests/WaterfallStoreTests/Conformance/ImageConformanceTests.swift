import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, images: rows as written, reads by id, key and offset, neighbouring keys,
/// indexes inside a section, scans, updates, deletions and re-keying, each scoped to one feed.
@Suite(.onOwnThreads(lane: .database)) struct ImageConformanceTests {
    /// Feed "f": the unnamed section holds a…e (keys 1…5), section "s" holds x, y, z (keys 6…8).
    /// Feed "g" holds images of the same ids at keys between f's (k + spacing/2): a query that
    /// forgot its feed would see them.
    private static func twoFeeds(_ store: any CatalogStore) async throws -> SmallFeed {
        try await store.write { tx throws in
            let f = try tx.makeFeed(
                "f", [(section: nil, images: ["a", "b", "c", "d", "e"]), (section: "s", images: ["x", "y", "z"])])
            let g = try tx.createFeed(named: "g")
            let section = try tx.insertSection(feedID: g.id, name: nil, title: nil, position: 0, isDeclared: false)
            try tx.insertImages(
                feedID: g.id,
                f.images.map {
                    imageRow($0.externalID, key: $0.key + OrderKeys.spacing / 2, section: section, width: 1, height: 1)
                })
            return f
        }
    }

    /// What following the change log reads in one statement each: rows by a list of ids, and
    /// the keys beside a list of keys, each scoped to its feed.
    @Test(arguments: TestEngine.all)
    func imagesByIdsAndNeighbourKeysAreReadForManyAtOnce(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            try await store.read { tx throws in
                let rows = try tx.images(feedID: f.id, externalIDs: ["z", "a", "missing", "x"])
                #expect(Set(rows.map(\.externalID)) == ["z", "a", "x"])
                for row in rows { #expect(try tx.image(feedID: f.id, externalID: row.externalID) == row) }
                #expect(try tx.images(feedID: f.id, externalIDs: []).isEmpty)
                let keys = f.images.map(\.key)
                let neighbours = try tx.neighbourKeys(feedID: f.id, of: keys)
                #expect(neighbours.count == keys.count)
                for (index, key) in keys.enumerated() {
                    #expect(
                        neighbours[key]
                            == NeighbourKeys(
                                before: index > 0 ? keys[index - 1] : nil,
                                after: index + 1 < keys.count ? keys[index + 1] : nil))
                }
                #expect(try tx.neighbourKeys(feedID: f.id, of: []).isEmpty)
            }
        }
    }

    /// What an append into date sections reads instead of the whole feed: the keys and dates
    /// of some sections (dated only, or with undated images among them) in catalog order, the
    /// first and last key of others, and rows by a list of keys, each scoped to its feed.
    @Test(arguments: TestEngine.all)
    func keysAndDatesOfSectionsKeyRangesAndImagesByKeysAreReadForManyAtOnce(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let f = try await Self.twoFeeds(store)
            // Given dates out of catalog order, c undated, and an empty section
            let dates: [String: Int64?] = ["a": 50, "b": 40, "c": nil, "d": 40, "e": -10, "x": 5, "y": 7, "z": 6]
            let empty = try await store.write { tx throws in
                try tx.updateImages(
                    feedID: f.id,
                    f.images.map { image in
                        var dated = image
                        dated.takenAt = dates[image.externalID]!
                        return dated
                    })
                return try tx.insertSection(feedID: f.id, name: "empty", title: nil, position: 100, isDeclared: true)
            }
            try await store.read { tx throws in
                // When the keys and dates of the sections are read
                let listed = try tx.keysAndDates(sectionIDs: f.sections + [empty])
                // Then each section's come in catalog order, the empty one's not at all
                #expect(listed.count == 2)
                #expect(
                    listed[f.sections[0]]
                        == f.images.prefix(5).map { KeyAndDate(key: $0.key, takenAt: dates[$0.externalID]!) })
                #expect(
                    listed[f.sections[1]]
                        == f.images.suffix(3).map { KeyAndDate(key: $0.key, takenAt: dates[$0.externalID]!) })
                #expect(try tx.keysAndDates(sectionIDs: []).isEmpty)
                #expect(
                    try tx.keyRanges(sectionIDs: f.sections + [empty]) == [
                        f.sections[0]: orderKey(1)...orderKey(5), f.sections[1]: orderKey(6)...orderKey(8),
                    ])
                #expect(try tx.keyRanges(sectionIDs: []).isEmpty)
                // And rows by keys are the feed's (g's keys lie between f's)
                let rows = try tx.images(
                    feedID: f.id, keys: [orderKey(8), orderKey(1), orderKey(1) + OrderKeys.spacing / 2])
                #expect(Set(rows.map(\.externalID)) == ["z", "a"])
                for row in rows {
                    #expect(try tx.image(feedID: f.id, key: row.key) == row && row.takenAt == dates[row.externalID]!)
                }
                #expect(try tx.images(feedID: f.id, keys: []).isEmpty)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func imagesReadBackExactlyAsWritten(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in

            // Given images with the extremes of every field, inserted out of catalog order
            let (feedID, images) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let section = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                let images = [
                    imageRow("last", key: OrderKeys.maximum, section: section, width: 1_000_000, height: 1_000_000),
                    imageRow(
                        "first", key: 1, section: section, width: 1, height: 1, fullSpan: true, url: "", title: ""),
                    imageRow(
                        "middle", key: orderKey(7), section: section, width: 640, height: 480, fullSpan: false,
                        url: "https://example.com/é/%20?q='x'", title: "Lisbon « night » 🌙 \"quoted\""),
                ]
                var index = 0
                try tx.insertImages(feedID: feed.id, count: images.count) {
                    defer { index += 1 }
                    return images[index]
                }
                return (feed.id, images)
            }

            // Then each reads back field for field, by id and by key, and all of them in key order
            try await store.read { tx throws in
                for image in images {
                    #expect(try tx.image(feedID: feedID, externalID: image.externalID) == image)
                    #expect(try tx.image(feedID: feedID, key: image.key) == image)
                }
                #expect(try tx.allImages(feedID: feedID) == images.sorted { $0.key < $1.key })
                #expect(try tx.image(feedID: feedID, externalID: "missing") == nil)
                #expect(try tx.image(feedID: feedID, key: 2) == nil)
                #expect(try tx.image(feedID: feedID + 1_000, externalID: "first") == nil)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func theSameIDInTwoFeedsIsTwoImages(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            try await store.read { tx throws in
                let g = try #require(try tx.feed(named: "g"))
                #expect(try tx.image(feedID: f.id, externalID: "a") == f.image("a"))
                #expect(try tx.image(feedID: g.id, externalID: "a")?.key == orderKey(1) + OrderKeys.spacing / 2)
                #expect(try tx.image(feedID: f.id, key: orderKey(1) + OrderKeys.spacing / 2) == nil)
                #expect(try tx.order(f.id) == ["a", "b", "c", "d", "e", "x", "y", "z"])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func pagesByKeyAndByOffset(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let f = try await Self.twoFeeds(store)
            try await store.read { tx throws in
                // From a key, inclusive; from between two keys, the next; a limit cuts the page
                #expect(try tx.images(feedID: f.id, fromKey: orderKey(3), limit: 2).map(\.externalID) == ["c", "d"])
                #expect(
                    try tx.images(feedID: f.id, fromKey: orderKey(3) + 1, limit: 2).map(\.externalID) == ["d", "e"])
                #expect(try tx.images(feedID: f.id, fromKey: orderKey(7), limit: 100).map(\.externalID) == ["y", "z"])
                #expect(try tx.images(feedID: f.id, fromKey: orderKey(9), limit: 100).isEmpty)
                #expect(try tx.images(feedID: f.id, fromKey: 0, limit: 1) == [f.image("a")])
                #expect(try tx.images(feedID: f.id, fromKey: orderKey(1), limit: 0).isEmpty)
                // From an index of the catalog order
                #expect(try tx.images(feedID: f.id, offset: 0, limit: 3).map(\.externalID) == ["a", "b", "c"])
                #expect(try tx.images(feedID: f.id, offset: 4, limit: 2).map(\.externalID) == ["e", "x"])
                #expect(try tx.images(feedID: f.id, offset: 7, limit: 5).map(\.externalID) == ["z"])
                #expect(try tx.images(feedID: f.id, offset: 8, limit: 5).isEmpty)
                #expect(try tx.images(feedID: f.id, offset: 2, limit: 0).isEmpty)
                #expect(try tx.images(feedID: f.id, offset: 5, limit: 1) == [f.image("x")])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func neighbouringKeysStayInsideTheFeed(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            try await store.read { tx throws in
                #expect(try tx.key(feedID: f.id, before: orderKey(1)) == nil)
                #expect(try tx.key(feedID: f.id, before: orderKey(3)) == orderKey(2))
                #expect(try tx.key(feedID: f.id, before: orderKey(3) + 1) == orderKey(3))
                #expect(try tx.key(feedID: f.id, before: OrderKeys.end) == orderKey(8))
                #expect(try tx.key(feedID: f.id, after: orderKey(8)) == nil)
                #expect(try tx.key(feedID: f.id, after: orderKey(5)) == orderKey(6))
                #expect(try tx.key(feedID: f.id, after: orderKey(5) - 1) == orderKey(5))
                #expect(try tx.key(feedID: f.id, after: 0) == orderKey(1))

                #expect(try tx.keys(feedID: f.id, atOrBelow: orderKey(3), limit: 2) == [orderKey(3), orderKey(2)])
                #expect(try tx.keys(feedID: f.id, atOrBelow: orderKey(3) - 1, limit: 5) == [orderKey(2), orderKey(1)])
                #expect(try tx.keys(feedID: f.id, atOrBelow: orderKey(1) - 1, limit: 5).isEmpty)
                #expect(try tx.keys(feedID: f.id, atOrAbove: orderKey(6), limit: 2) == [orderKey(6), orderKey(7)])
                #expect(try tx.keys(feedID: f.id, atOrAbove: orderKey(6) + 1, limit: 5) == [orderKey(7), orderKey(8)])
                #expect(try tx.keys(feedID: f.id, atOrAbove: orderKey(8) + 1, limit: 5).isEmpty)
                #expect(try tx.keys(feedID: f.id, atOrAbove: 0, limit: 0).isEmpty)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func indexesCountInsideTheSection(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            let (unnamed, s) = (f.sections[0], f.sections[1])
            try await store.read { tx throws in
                #expect(try tx.key(sectionID: unnamed, index: 0) == orderKey(1))
                #expect(try tx.key(sectionID: unnamed, index: 4) == orderKey(5))
                #expect(try tx.key(sectionID: unnamed, index: 5) == nil)
                #expect(try tx.key(sectionID: s, index: 0) == orderKey(6))
                #expect(try tx.key(sectionID: s, index: 2) == orderKey(8))
                #expect(try tx.key(sectionID: s, index: 3) == nil)
                #expect(try tx.index(sectionID: unnamed, key: orderKey(1)) == 0)
                #expect(try tx.index(sectionID: unnamed, key: orderKey(4)) == 3)
                #expect(try tx.index(sectionID: s, key: orderKey(6)) == 0)
                #expect(try tx.index(sectionID: s, key: orderKey(8)) == 2)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aGeometryScanStartsAtItsKeyAndStopsWhenAsked(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            let seen = try await store.read { tx throws in
                var seen: [ImageGeometry] = []
                try tx.scanGeometry(feedID: f.id, fromKey: orderKey(4) - 1) { geometry in
                    seen.append(geometry)
                    return seen.count < 3
                }
                return seen
            }
            #expect(
                seen
                    == f.images[3..<6].map {
                        ImageGeometry(
                            key: $0.key, sectionID: $0.sectionID, width: $0.width, height: $0.height,
                            isFullSpan: $0.isFullSpan)
                    })
            // To the end when never stopped
            let count = try await store.read { tx in
                var count = 0
                try tx.scanGeometry(feedID: f.id, fromKey: 0) { _ in
                    count += 1
                    return true
                }
                return count
            }
            #expect(count == 8)
        }
    }

    @Test(arguments: TestEngine.all)
    func anIdentifiedScanGivesEveryImageOfTheFeedWithItsIDInCatalogOrder(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            let seen = try await store.read { tx in
                var seen: [(ImageGeometry, String)] = []
                try tx.scanIdentifiedGeometry(feedID: f.id) { seen.append(($0, $1)) }
                return seen
            }
            // Then every image of this feed (none of the other), in key order, with its id
            #expect(seen.map(\.1) == f.images.map(\.externalID))
            #expect(
                seen.map(\.0)
                    == f.images.map {
                        ImageGeometry(
                            key: $0.key, sectionID: $0.sectionID, width: $0.width, height: $0.height,
                            isFullSpan: $0.isFullSpan)
                    })
        }
    }

    @Test(arguments: TestEngine.all)
    func anUpdateRewritesSizesSpanURLAndTitleOnly(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx throws in
                let f = try tx.makeFeed("f", [(section: nil, images: ["a", "b"]), (section: "s", images: ["c"])])
                try tx.updateImages(
                    feedID: f.id, [imageRow("a", key: orderKey(1), section: f.sections[0], url: "u", title: "t")])
                return f
            }

            // When image a is updated with every field changed (its id and section too), and a key
            // that holds no image is "updated"
            try await store.write { tx throws in
                try tx.updateImages(
                    feedID: f.id,
                    [
                        ImageRecord(
                            key: orderKey(1), externalID: "renamed", sectionID: f.sections[1], width: 1_000_000,
                            height: 1,
                            isFullSpan: true, url: nil, title: nil),
                        imageRow("ghost", key: orderKey(9), section: f.sections[0]),
                    ])
            }

            // Then a has its new sizes, span, url and title, keeps its id and section, and no image
            // appeared
            try await store.read { tx throws in
                #expect(
                    try tx.image(feedID: f.id, key: orderKey(1))
                        == ImageRecord(
                            key: orderKey(1), externalID: "a", sectionID: f.sections[0], width: 1_000_000, height: 1,
                            isFullSpan: true, url: nil, title: nil))
                #expect(try tx.image(feedID: f.id, externalID: "b") == f.image("b"))
                #expect(try tx.order(f.id) == ["a", "b", "c"])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func deletingKeysRemovesThoseImagesOfThatFeedOnly(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await Self.twoFeeds(store)
            try await store.write { tx throws in
                // A key that holds nothing, and a key that only feed g uses, are skipped
                try tx.deleteImages(
                    feedID: f.id, keys: [orderKey(2), orderKey(6), orderKey(20), orderKey(1) + OrderKeys.spacing / 2])
            }
            try await store.read { tx throws in
                #expect(try tx.order(f.id) == ["a", "c", "d", "e", "y", "z"])
                let g = try #require(try tx.feed(named: "g"))
                #expect(try tx.allImages(feedID: g.id).count == 8)
                #expect(try tx.imageCounts(feedID: f.id) == [f.sections[0]: 4, f.sections[1]: 2])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func reKeyingIsAPermutationThatMayChangeSections(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let f = try await Self.twoFeeds(store)
            let (unnamed, s) = (f.sections[0], f.sections[1])

            // When a, b and c trade keys in a cycle (each new key is held by another image until
            // it moves), and x moves into the unnamed section between d and e
            try await store.write { tx throws in
                try tx.rekeyImages(
                    feedID: f.id,
                    [
                        (from: orderKey(1), to: orderKey(2), sectionID: nil),
                        (from: orderKey(2), to: orderKey(3), sectionID: nil),
                        (from: orderKey(3), to: orderKey(1), sectionID: nil),
                        (from: orderKey(6), to: orderKey(4) + 1, sectionID: unnamed),
                    ])
            }

            // Then the catalog order and the sections follow, and feed g did not move
            try await store.read { tx throws in
                #expect(try tx.order(f.id) == ["c", "a", "b", "d", "x", "e", "y", "z"])
                #expect(try tx.image(feedID: f.id, externalID: "x")?.sectionID == unnamed)
                #expect(try tx.image(feedID: f.id, externalID: "y")?.sectionID == s)
                #expect(try tx.imageCounts(feedID: f.id) == [unnamed: 6, s: 2])
                #expect(try tx.image(feedID: f.id, externalID: "a")?.width == 300)
                let g = try #require(try tx.feed(named: "g"))
                #expect(try tx.allImages(feedID: g.id).map(\.key) == f.images.map { $0.key + OrderKeys.spacing / 2 })
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func idsAndNamesAreStoredLiterally(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let ids = [
                "'; DROP TABLE image; --", "Robert'); DELETE FROM feed; --", "a%", "_", "%", "a\\b", "\"quoted\"",
                "фото-é", "😀🏳️‍🌈", "e\u{301}", "é", " padded ", "$1", "?", "NULL", "null",
            ]
            let weird = "feed'; DROP TABLE feed; --"

            // Given images, a feed and a section named like SQL, patterns and unicode
            let feed = try await store.write { tx in
                try tx.makeFeed(weird, [(section: "section' OR '1'='1", images: ids)])
            }

            // Then each is found by exactly its own name, and the catalog holds them all
            try await store.read { tx throws in
                #expect(try tx.feed(named: weird)?.id == feed.id)
                #expect(try tx.sections(feedID: feed.id).map(\.name) == ["section' OR '1'='1"])
                for (offset, id) in ids.enumerated() {
                    #expect(try tx.image(feedID: feed.id, externalID: id)?.key == orderKey(Int64(offset + 1)), "\(id)")
                }
                #expect(try tx.order(feed.id) == ids)
                // Patterns match nothing but themselves; canonically equal strings are different ids
                #expect(try tx.image(feedID: feed.id, externalID: "ab") == nil)
                #expect(try tx.image(feedID: feed.id, externalID: "A%") == nil)
                #expect(
                    try tx.image(feedID: feed.id, externalID: "e\u{301}")?.key
                        != tx.image(feedID: feed.id, externalID: "é")?.key)
                #expect(try tx.feeds().map(\.name) == [weird])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func theSchemaRefusesADuplicateIDAndSizesOutOfRange(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in try tx.makeFeed("f", [(section: nil, images: ["a"])]) }
            for bad in [
                imageRow("a", key: orderKey(2), section: f.sections[0]),
                imageRow("b", key: orderKey(2), section: f.sections[0], width: 0),
                imageRow("b", key: orderKey(2), section: f.sections[0], height: 1_000_001),
                imageRow("b", key: orderKey(1), section: f.sections[0]),
            ] {
                let error = await #expect(throws: StoreError.self, "\(bad)") {
                    try await store.write { tx in try tx.insertImages(feedID: f.id, [bad]) }
                }
                #expect(error?.kind == .invalidRequest)
            }
            #expect(try await store.read { tx in try tx.allImages(feedID: f.id) } == f.images)
        }
    }

    /// Limits count bytes of UTF-8 on both engines, not characters.
    @Test(arguments: TestEngine.all)
    func lengthLimitsCountBytes(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given a feed name of 128 bytes (64 "é"), a section name of 256 (128 "ж"), an id of
            // 256 (85 "€" and an "x"), a url of 4,096 and a title of 1,024: each at its limit
            let feedName = String(repeating: "é", count: 64)
            let sectionName = String(repeating: "ж", count: 128)
            let id = String(repeating: "€", count: 85) + "x"
            let url = String(repeating: "ü", count: 2_048)
            let title = String(repeating: "ß", count: 512)
            let f = try await store.write { tx in try tx.makeFeed(feedName, [(section: sectionName, images: [])]) }
            try await store.write { tx in
                try tx.insertImages(
                    feedID: f.id, [imageRow(id, key: orderKey(1), section: f.sections[0], url: url, title: title)])
            }
            let section = f.sections[0]

            // Then one byte more is refused, and so is an empty id
            for refused in [
                { (tx: any CatalogTransaction) in _ = try tx.createFeed(named: feedName + "x") },
                { tx in
                    _ = try tx.insertSection(
                        feedID: f.id, name: sectionName + "x", title: nil, position: 99, isDeclared: false)
                },
                { tx in try tx.insertImages(feedID: f.id, [imageRow(id + "y", key: orderKey(2), section: section)]) },
                { tx in
                    try tx.insertImages(
                        feedID: f.id, [imageRow("t", key: orderKey(2), section: section, title: title + "x")])
                },
                { tx in
                    try tx.insertImages(
                        feedID: f.id, [imageRow("u", key: orderKey(2), section: section, url: url + "x")])
                },
                { tx in try tx.insertImages(feedID: f.id, [imageRow("", key: orderKey(2), section: section)]) },
            ] as [@Sendable (any CatalogTransaction) throws -> Void] {
                let error = await #expect(throws: StoreError.self) { try await store.write(refused) }
                #expect(error?.kind == .invalidRequest)
            }
            try await store.read { tx throws in
                #expect(try tx.feeds().map(\.name) == [feedName])
                #expect(
                    try tx.allImages(feedID: f.id) == [
                        imageRow(id, key: orderKey(1), section: section, url: url, title: title)
                    ])
            }
        }
    }

    /// A first import's bulk load (SQLite drops and rebuilds the image indexes from 20,000 rows
    /// into an empty table; PostgreSQL sends rows in batches of 10,000): neither a rebuilt
    /// index nor a batch boundary may show in any later read or bulk write.
    @Test(arguments: TestEngine.all)
    func twentyThousandAndFiveImagesKeepTheirOrderThroughEveryBulkOperation(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let count = 20_005
            let (f, indexings) = try await store.write { tx in
                try tx.withBulkWriteMemory(pageCacheKiB: 1_024) {
                    let feed = try tx.createFeed(named: "f")
                    let sections = [
                        try tx.insertSection(feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false),
                        try tx.insertSection(feedID: feed.id, name: "s", title: nil, position: 1, isDeclared: false),
                    ]
                    let images = (0..<count).map {
                        imageRow("i\($0)", key: orderKey(Int64($0 + 1)), section: sections[$0 < 15_000 ? 0 : 1])
                    }
                    var next = 0
                    var indexings = 0
                    try tx.insertImages(feedID: feed.id, count: count, beforeIndexing: { indexings += 1 }) {
                        defer { next += 1 }
                        return images[next]
                    }
                    return (SmallFeed(feed: feed, sections: sections, images: images), indexings)
                }
            }
            // Called once by an engine that rebuilds indexes, never by one that drops none
            #expect(indexings <= 1)
            try await store.read { tx throws in
                #expect(try tx.image(feedID: f.id, externalID: "i19999") == f.images[19_999])
                #expect(try tx.imageCounts(feedID: f.id) == [f.sections[0]: 15_000, f.sections[1]: 5_005])
                #expect(try tx.key(sectionID: f.sections[1], index: 5_004) == orderKey(20_005))
                #expect(try tx.index(sectionID: f.sections[1], key: orderKey(15_002)) == 1)
                var scanned: [Int64] = []
                try tx.scanGeometry(feedID: f.id, fromKey: orderKey(2)) {
                    scanned.append($0.key)
                    return scanned.count < 12_345
                }
                #expect(scanned == (2...12_346).map { orderKey(Int64($0)) })
                var all = 0
                try tx.scanGeometry(feedID: f.id, fromKey: 0) { _ in
                    all += 1
                    return true
                }
                #expect(all == count)
            }

            try await store.write { tx throws in
                try tx.updateImages(
                    feedID: f.id,
                    f.images.map {
                        var image = $0
                        image.width = 7
                        return image
                    })
                // Every image one key later: a shift that collides with itself but for the last
                try tx.rekeyImages(feedID: f.id, f.images.map { (from: $0.key, to: $0.key + 1, sectionID: nil) })
            }
            let images = try await store.read { tx in try tx.allImages(feedID: f.id) }
            #expect(images.map(\.externalID) == f.images.map(\.externalID))
            #expect(images.map(\.key) == f.images.map { $0.key + 1 })
            #expect(images.allSatisfy { $0.width == 7 })

            try await store.write { tx in
                try tx.deleteImages(feedID: f.id, keys: images.dropFirst().dropLast().map(\.key))
            }
            #expect(try await store.read { tx in try tx.order(f.id) } == ["i0", "i\(count - 1)"])
        }
    }

    @Test(arguments: TestEngine.all)
    func aBulkLoadWithADuplicateIDIsRefusedWhole(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let error = await #expect(throws: StoreError.self) {
                try await store.write { tx in
                    let feed = try tx.createFeed(named: "f")
                    let section = try tx.insertSection(
                        feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                    try tx.insertImages(
                        feedID: feed.id,
                        (0..<20_001).map {
                            imageRow($0 == 17_000 ? "i3" : "i\($0)", key: orderKey(Int64($0 + 1)), section: section)
                        })
                }
            }
            #expect(error?.kind == .invalidRequest)
            #expect(try await store.read { tx in try tx.feeds() }.isEmpty)
        }
    }
}
