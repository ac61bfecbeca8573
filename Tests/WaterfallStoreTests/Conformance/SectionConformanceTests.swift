import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, sections: order by position, updates, repositioning, the existence rule
/// (a section stays while it has images or is declared), counts and reads by id.
@Suite(.onOwnThreads(lane: .database)) struct SectionConformanceTests {
    @Test(arguments: TestEngine.all)
    func sectionsAreOrderedByPositionAndReadBackAsWritten(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given sections inserted out of order, one of them the unnamed section
            let (feedID, ids) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let c = try tx.insertSection(
                    feedID: feed.id, name: "c", title: "Title « C »", position: 30, isDeclared: true)
                let unnamed = try tx.insertSection(
                    feedID: feed.id, name: nil, title: nil, position: -5, isDeclared: false)
                let b = try tx.insertSection(feedID: feed.id, name: "b", title: nil, position: 20, isDeclared: true)
                return (feed.id, [unnamed, b, c])
            }

            // Then they read back by position, with every field as written
            let expected = [
                SectionRecord(id: ids[0], name: nil, title: nil, position: -5, isDeclared: false),
                SectionRecord(id: ids[1], name: "b", title: nil, position: 20, isDeclared: true),
                SectionRecord(id: ids[2], name: "c", title: "Title « C »", position: 30, isDeclared: true),
            ]
            try await store.read { tx throws in
                #expect(try tx.sections(feedID: feedID) == expected)
                #expect(try tx.sectionIDs(feedID: feedID) == ids)
                for section in expected { #expect(try tx.section(id: section.id) == section) }
                #expect(try tx.section(id: ids.max()! + 1_000) == nil)
                #expect(try tx.sections(feedID: feedID + 1_000).isEmpty)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func anUpdateChangesTitlePositionAndDeclaredFlagButNotTheName(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let id = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                return try tx.insertSection(feedID: feed.id, name: "s", title: "old", position: 10, isDeclared: true)
            }

            // When a section is updated with another name, title, position and flag
            try await store.write { tx throws in
                try tx.updateSection(
                    SectionRecord(id: id, name: "renamed", title: nil, position: 99, isDeclared: false))
            }

            // Then the title, position and flag change, the name stays
            #expect(
                try await store.read { tx in try tx.section(id: id) }
                    == SectionRecord(id: id, name: "s", title: nil, position: 99, isDeclared: false))
        }
    }

    @Test(arguments: TestEngine.all)
    func repositioningMayPassThroughPositionsOtherSectionsHold(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (feedID, ids) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                let ids = try ["a", "b", "c"].enumerated().map { offset, name in
                    try tx.insertSection(
                        feedID: feed.id, name: name, title: nil, position: Int64(offset + 1) * 10, isDeclared: false)
                }
                return (feed.id, ids)
            }

            // When the order is reversed (each new position is held by another section before)
            try await store.write { tx throws in
                try tx.repositionSections([
                    (id: ids[0], position: 30), (id: ids[1], position: 20), (id: ids[2], position: 10),
                ])
                try tx.repositionSections([])
            }

            // Then the sections read back in the new order
            try await store.read { tx throws in
                #expect(try tx.sections(feedID: feedID).map(\.name) == ["c", "b", "a"])
                #expect(try tx.sections(feedID: feedID).map(\.position) == [10, 20, 30])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func emptyUndeclaredSectionsGoDeclaredOrNonEmptyOnesStay(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in

            // Given four sections: declared or not, with images or without, and an empty undeclared
            // section in another feed
            let (feedID, other, ids) = try await store.write { tx throws in
                let feed = try tx.createFeed(named: "f")
                var ids: [String: Int64] = [:]
                for (offset, name) in ["declared-empty", "declared-full", "undeclared-empty", "undeclared-full"]
                    .enumerated()
                {
                    ids[name] = try tx.insertSection(
                        feedID: feed.id, name: name, title: nil, position: Int64(offset),
                        isDeclared: name.hasPrefix("declared"))
                }
                try tx.insertImages(
                    feedID: feed.id,
                    [
                        imageRow("x", key: orderKey(1), section: ids["declared-full"]!),
                        imageRow("y", key: orderKey(2), section: ids["undeclared-full"]!),
                    ])
                let other = try tx.createFeed(named: "other")
                _ = try tx.insertSection(feedID: other.id, name: "alone", title: nil, position: 0, isDeclared: false)
                return (feed.id, other.id, ids)
            }

            // When the empty undeclared sections of the feed are deleted
            let deleted = try await store.write { tx in try tx.deleteEmptyUndeclaredSections(feedID: feedID) }

            // Then exactly the one empty undeclared section went, and nothing of the other feed
            #expect(deleted == [ids["undeclared-empty"]!])
            try await store.read { tx throws in
                #expect(
                    try tx.sections(feedID: feedID).map(\.name) == [
                        "declared-empty", "declared-full", "undeclared-full",
                    ])
                #expect(try tx.sections(feedID: other).map(\.name) == ["alone"])
            }
            // And a second pass finds nothing more
            #expect(try await store.write { tx in try tx.deleteEmptyUndeclaredSections(feedID: feedID) } == [])
        }
    }

    @Test(arguments: TestEngine.all)
    func imageCountsLeaveEmptySectionsOut(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let feed = try await store.write { tx throws in
                let feed = try tx.makeFeed(
                    "f",
                    [
                        (section: nil, images: ["a", "b", "c"]), (section: "empty", images: []),
                        (section: "s", images: ["d"]),
                    ])
                _ = try tx.makeFeed("g", [(section: nil, images: ["a", "b"])])
                return feed
            }
            try await store.read { tx throws in
                #expect(try tx.imageCounts(feedID: feed.id) == [feed.sections[0]: 3, feed.sections[2]: 1])
                #expect(try tx.imageCount(sectionID: feed.sections[0]) == 3)
                #expect(try tx.imageCount(sectionID: feed.sections[1]) == 0)
                #expect(try tx.imageCount(sectionID: feed.sections[2]) == 1)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func sectionsByIDComeOnceEachAndSkipUnknownIDs(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let feed = try await store.write { tx in
                try tx.makeFeed(
                    "f", [(section: "a", images: []), (section: "b", images: []), (section: "c", images: [])])
            }
            let (a, b) = (feed.sections[0], feed.sections[1])
            let unknown = feed.sections.max()! + 1_000
            try await store.read { tx throws in
                // In any order, so compared as a set; each once
                let found = try tx.sections(ids: [b, a, b, unknown, a])
                #expect(found.count == 2)
                #expect(Set(found.map(\.name)) == ["a", "b"])
                #expect(try tx.sections(ids: []).isEmpty)
                #expect(try tx.sections(ids: [unknown]).isEmpty)
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aDeletedSectionIsGoneAndItsNeighboursStay(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let feed = try await store.write { tx in
                try tx.makeFeed("f", [(section: "a", images: ["1"]), (section: "b", images: [])])
            }
            try await store.write { tx in try tx.deleteSection(id: feed.sections[1]) }
            try await store.read { tx throws in
                #expect(try tx.sectionIDs(feedID: feed.id) == [feed.sections[0]])
                #expect(try tx.section(id: feed.sections[1]) == nil)
                #expect(try tx.order(feed.id) == ["1"])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aSectionNameIsTakenOncePerFeed(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            let (f, g) = try await store.write { tx throws in
                let f = try tx.makeFeed("f", [(section: nil, images: []), (section: "s", images: [])])
                // The same names in another feed are another feed's sections
                let g = try tx.makeFeed("g", [(section: nil, images: []), (section: "s", images: [])])
                return (f, g)
            }
            #expect(f.sections.count == 2 && g.sections.count == 2)

            // A second "s", or a second unnamed section, in one feed is refused
            for name in ["s", nil] as [String?] {
                let error = await #expect(throws: StoreError.self) {
                    try await store.write { tx in
                        _ = try tx.insertSection(feedID: f.id, name: name, title: nil, position: 99, isDeclared: false)
                    }
                }
                #expect(error?.kind == .invalidRequest)
            }
            // So is a second section at a position another holds
            let error = await #expect(throws: StoreError.self) {
                try await store.write { tx in
                    _ = try tx.insertSection(feedID: f.id, name: "t", title: nil, position: 10, isDeclared: false)
                }
            }
            #expect(error?.kind == .invalidRequest)
            #expect(try await store.read { tx in try tx.sections(feedID: f.id).count } == 2)
        }
    }
}
