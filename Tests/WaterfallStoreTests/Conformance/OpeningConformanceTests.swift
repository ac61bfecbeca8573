import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, opening a catalog by the name a user gives (`CatalogLocation.open`): a
/// new place is created and migrated, an existing catalog reopens with its data, and a catalog
/// of a newer Waterfall or a place holding something else is refused and left untouched.
///
/// What only one engine can express is tested beside it, not here: a file that is not an
/// SQLite database at all, a directory, a missing folder (`DatabaseOpeningTests`); a PostgreSQL
/// server has no such cases (the server speaks for its data), and SQLite has no server to miss.
@Suite(.onOwnThreads(lane: .database)) struct OpeningConformanceTests {
    /// The table in which each engine records the migrations a catalog has (GRDB's on SQLite,
    /// Waterfall's own on PostgreSQL): how a newer Waterfall's catalog is recognised.
    private static func migrationsTable(_ engine: TestEngine) -> String {
        switch engine {
        case .sqlite: "grdb_migrations"
        case .postgres: "waterfall_migrations"
        }
    }

    @Test(arguments: TestEngine.all)
    func aNewCatalogIsCreatedEmptyAndReopensWithWhatWasWritten(engine: TestEngine) async throws {
        let catalog = try ScratchCatalog(engine)

        // Given a new catalog, written to and closed
        let store = try catalog.open()
        try await store.read { tx throws in
            #expect(try tx.feeds().isEmpty)
            #expect(try tx.hasAPIKeys() == false)
            #expect(try tx.cacheCoverage().isEmpty)
        }
        _ = try await store.write { tx in try tx.makeFeed("f", [(section: "s", images: ["a", "b"])]) }
        // Named for messages, without a password
        let location = try #require(store.location)
        #expect(!location.isEmpty && !location.contains(":waterfall@"))
        await #expect(store.storageSize() > 0)
        await store.close()

        // When it is opened again, twice (the second open finds nothing left to migrate)
        for _ in 0..<2 {
            let reopened = try catalog.open()
            defer { reopened.closeWhenDone() }

            // Then it holds what was written
            try await reopened.read { tx throws in
                let feed = try #require(try tx.feed(named: "f"))
                #expect(try tx.order(feed.id) == ["a", "b"])
                #expect(try tx.sections(feedID: feed.id).map(\.name) == ["s"])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aCatalogOfANewerWaterfallIsRefusedUntouched(engine: TestEngine) async throws {
        // Given a catalog that a newer Waterfall migrated further
        let catalog = try ScratchCatalog(engine)
        try await catalog.write { tx in _ = try tx.createFeed(named: "f") }
        try catalog.execute("INSERT INTO \(Self.migrationsTable(engine)) (identifier) VALUES ('9999_from_the_future')")
        let before = try catalog.snapshot()

        // When this Waterfall opens it
        let error = #expect(throws: StoreError.self) { try catalog.open() }

        // Then it refuses, saying why, and the catalog is byte for byte (row for row) as it was
        #expect(error?.kind == .cannotOpen)
        #expect(error?.message.contains("newer version of Waterfall") == true, "\(error?.message ?? "")")
        #expect(try catalog.snapshot() == before)
    }

    @Test(arguments: TestEngine.all)
    func aPlaceHoldingAnotherApplicationsTablesIsRefusedUntouched(engine: TestEngine) throws {
        // Given another application's table where the catalog would go (an SQLite file of
        // another application; a schema holding another application's tables)
        let catalog = try ScratchCatalog(engine)
        try catalog.execute("CREATE TABLE notes (text TEXT NOT NULL)")
        try catalog.execute("INSERT INTO notes (text) VALUES ('keep me')")
        let before = try catalog.snapshot()

        // When Waterfall opens it
        let error = #expect(throws: StoreError.self) { try catalog.open() }

        // Then it refuses, saying it is not a Waterfall catalog, and changes nothing
        #expect(error?.kind == .cannotOpen)
        #expect(error?.message.contains("not a Waterfall database") == true, "\(error?.message ?? "")")
        #expect(try catalog.snapshot() == before)
    }
}
