import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, order keys (`allocateKeys`, written once over the engines' key reads and
/// `rekeyImages`): a wide gap is split without writing; a used-up gap renumbers a local window
/// of neighbours, keeps the order and says where renumbering began.
@Suite(.onOwnThreads(lane: .database)) struct OrderKeyConformanceTests {
    @Test(arguments: TestEngine.all)
    func aWideGapIsSplitEvenlyAndNothingIsRenumbered(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let f = try await store.write { tx in try tx.makeFeed("f", [(section: nil, images: ["a", "b", "c"])]) }
            let spacing = OrderKeys.spacing

            let (middle, start, end, none) = try await store.write { tx throws in
                (
                    try tx.allocateKeys(feedID: f.id, count: 3, after: orderKey(1), before: orderKey(2)),
                    try tx.allocateKeys(feedID: f.id, count: 1, after: nil, before: orderKey(1)),
                    try tx.allocateKeys(feedID: f.id, count: 2, after: orderKey(3), before: nil),
                    try tx.allocateKeys(feedID: f.id, count: 0, after: orderKey(1), before: orderKey(2))
                )
            }

            // The gap (2^32, 2^33) split in four; the start gap (0, 2^32) in two; the end spaced on
            #expect(middle.keys == [spacing + spacing / 4, spacing + spacing / 2, spacing + 3 * spacing / 4])
            #expect(start.keys == [spacing / 2])
            #expect(end.keys == [orderKey(4), orderKey(5)])
            #expect(none.keys == [])
            #expect([middle, start, end, none].allSatisfy { $0.renumberedFrom == nil })
            await #expect(try store.read { tx in try tx.allImages(feedID: f.id) } == f.images)
        }
    }

    @Test(arguments: TestEngine.all)
    func aUsedUpGapRenumbersOnlyALocalWindowInOrder(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given 300 images, of which images 150 and 151 hold adjacent keys: no room between
            let ids = (0..<300).map { "i\($0)" }
            let f = try await store.write { tx throws in
                let f = try tx.makeFeed(
                    "f", [(section: nil, images: Array(ids[..<150])), (section: "s", images: Array(ids[150...]))])
                try tx.rekeyImages(feedID: f.id, [(from: orderKey(152), to: orderKey(151) + 1, sectionID: nil)])
                return f
            }
            let before = try await store.read { tx in try tx.allImages(feedID: f.id) }
            let (lower, upper) = (orderKey(151), orderKey(151) + 1)

            // When two keys are asked for in that gap
            let allocation = try await store.write { tx in
                try tx.allocateKeys(feedID: f.id, count: 2, after: lower, before: upper)
            }
            let after = try await store.read { tx in try tx.allImages(feedID: f.id) }

            // Then the images keep their order, sections and fields, and only keys near the gap moved
            #expect(after.map(\.externalID) == ids)
            #expect(after.map(\.sectionID) == before.map(\.sectionID))
            let changed = zip(before, after).filter { $0.key != $1.key }
            #expect(!changed.isEmpty && changed.count <= 64, "renumbered \(changed.count) rows")
            #expect(before.prefix(100) == after.prefix(100))
            #expect(before.suffix(100) == after.suffix(100))
            // And the new keys lie, in order, between the gap's images, free and distinct
            let (left, right) = (after[150].key, after[151].key)
            #expect(allocation.keys.count == 2)
            #expect(allocation.keys.sorted() == allocation.keys && Set(allocation.keys).count == 2)
            #expect(allocation.keys.allSatisfy { left < $0 && $0 < right })
            #expect(Set(allocation.keys).isDisjoint(with: after.map(\.key)))
            // And renumbering is reported from the smallest key that moved
            #expect(allocation.renumberedFrom == changed.map { $0.0.key }.min())
        }
    }

    @Test(arguments: TestEngine.all)
    func keysPackedAtTheStartAreRespaced(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given images at keys 1, 2 and 3
            let f = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let section = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                try tx.insertImages(
                    feedID: feed.id,
                    [
                        imageRow("a", key: 1, section: section), imageRow("b", key: 2, section: section),
                        imageRow("c", key: 3, section: section),
                    ])
                return feed
            }

            // When a key is asked for between the first two, and one before the first
            let (between, first) = try await store.write { tx throws in
                let between = try tx.allocateKeys(feedID: f.id, count: 1, after: 1, before: 2)
                let a = try #require(try tx.image(feedID: f.id, externalID: "a"))
                return (between, try tx.allocateKeys(feedID: f.id, count: 1, after: nil, before: a.key))
            }

            // Then the images were respaced from key 1 on, in order, and both keys fit
            let keys = try await store.read { tx in try tx.allImages(feedID: f.id).map(\.key) }
            await #expect(try store.read { tx in try tx.order(f.id) } == ["a", "b", "c"])
            #expect(between.renumberedFrom == 1)
            #expect(keys[0] < between.keys[0] && between.keys[0] < keys[1])
            #expect(first.keys.count == 1 && 0 < first.keys[0] && first.keys[0] < keys[0])
        }
    }
}
