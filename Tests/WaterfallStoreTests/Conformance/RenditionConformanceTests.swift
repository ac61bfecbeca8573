import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, an image's placeholder, colour and renditions (DESIGN section 16): kept
/// as written by every read, rewritten and cleared by updates, refused when malformed.
@Suite(.onOwnThreads(lane: .database)) struct RenditionConformanceTests {
    private static func dressed(_ row: ImageRecord, placeholder: String?, color: String?, renditions: String?)
        -> ImageRecord
    {
        var row = row
        row.placeholder = placeholder
        row.color = color
        row.renditions = renditions
        return row
    }

    @Test(arguments: TestEngine.all)
    func placeholderColourAndRenditionsReadBackAndUpdate(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given three images, two of them dressed (a list of renditions, a template)
            let (feedID, images) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let section = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                let images = [
                    Self.dressed(
                        imageRow("a", key: 1, section: section), placeholder: String(repeating: "~", count: 64),
                        color: "#a0b1c2", renditions: "320 https://x/a-320.jpg\n640 https://x/a 640.jpg"),
                    Self.dressed(
                        imageRow("b", key: 2, section: section), placeholder: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
                        color: nil, renditions: "* https://x/b/{width}.jpg"),
                    imageRow("c", key: 3, section: section),
                ]
                try tx.insertImages(feedID: feed.id, images)
                return (feed.id, images)
            }

            // Then every read gives them back
            try await store.read { tx throws in
                #expect(try tx.allImages(feedID: feedID) == images)
                #expect(try tx.images(feedID: feedID, fromKey: 0, limit: 10) == images)
                #expect(try tx.images(feedID: feedID, offset: 1, limit: 1) == [images[1]])
                #expect(try tx.image(feedID: feedID, externalID: "a") == images[0])
                #expect(try tx.image(feedID: feedID, key: 2) == images[1])
            }

            // When a's are changed, b's cleared and c dressed
            let updated = [
                Self.dressed(images[0], placeholder: "x", color: "#000000", renditions: "100 u"),
                Self.dressed(images[1], placeholder: nil, color: nil, renditions: nil),
                Self.dressed(images[2], placeholder: "y", color: "#ffffff", renditions: "* t/{width}"),
            ]
            try await store.write { tx throws in try tx.updateImages(feedID: feedID, updated) }

            // Then the rows hold the new values
            try await store.read { tx throws in
                #expect(try tx.allImages(feedID: feedID) == updated)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func theSchemaRefusesAMalformedColourOrPlaceholder(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (feedID, section) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                return (
                    feed.id,
                    try tx.insertSection(feedID: feed.id, name: nil, title: nil, position: 0, isDeclared: false)
                )
            }
            for bad in [
                Self.dressed(
                    imageRow("a", key: 1, section: section), placeholder: nil, color: "#A0B1C2", renditions: nil),
                Self.dressed(imageRow("a", key: 1, section: section), placeholder: nil, color: "red", renditions: nil),
                Self.dressed(
                    imageRow("a", key: 1, section: section), placeholder: String(repeating: "A", count: 65), color: nil,
                    renditions: nil),
                Self.dressed(imageRow("a", key: 1, section: section), placeholder: nil, color: nil, renditions: ""),
            ] {
                await #expect(throws: (any Error).self) {
                    try await store.write { tx throws in try tx.insertImages(feedID: feedID, [bad]) }
                }
            }
        }
    }
}
