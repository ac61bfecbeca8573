import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

/// The store contract, API keys: a name is taken once, keys list by name with their feeds.
@Suite(.onOwnThreads(lane: .database)) struct APIKeyConformanceTests {
    /// A 32-byte hash with the bytes a text column would mangle (0x00, 0xFF).
    private static func hash(_ seed: UInt8) -> [UInt8] {
        [0, 255, seed] + (3..<32).map { UInt8(truncatingIfNeeded: Int($0) * 37 + Int(seed)) }
    }

    @Test(arguments: TestEngine.all)
    func keysAreStoredOncePerNameAndListedByName(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            #expect(try await store.read { tx in try tx.hasAPIKeys() } == false)
            #expect(try await store.read { tx in try tx.apiKeys() }.isEmpty)

            // Given a reader of two feeds (one named twice) and a writer of every feed
            let reader = APIKeyRecord(
                name: "reader", secretSHA256: Self.hash(1), canWrite: false, feeds: ["travel", "été", "travel", "Zoo"])
            let writer = APIKeyRecord(name: "Writer", secretSHA256: Self.hash(2), canWrite: true, feeds: [])
            #expect(try await store.write { tx in try tx.insertAPIKey(reader) })
            #expect(try await store.write { tx in try tx.insertAPIKey(writer) })

            // When another key of a taken name is inserted
            let impostor = APIKeyRecord(name: "reader", secretSHA256: Self.hash(3), canWrite: true, feeds: ["other"])
            #expect(try await store.write { tx in try tx.insertAPIKey(impostor) } == false)

            // Then the keys list by name in byte order, each feed once and by name, as first stored
            try await store.read { tx throws in
                #expect(try tx.hasAPIKeys())
                #expect(
                    try tx.apiKeys() == [
                        writer,
                        APIKeyRecord(
                            name: "reader", secretSHA256: Self.hash(1), canWrite: false,
                            feeds: ["Zoo", "travel", "été"]),
                    ])
            }
        }
    }

    @Test(arguments: TestEngine.all)
    func aDeletedKeyTakesItsFeedsWithIt(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { _, store throws in
            try await store.write { tx throws in
                #expect(
                    try tx.insertAPIKey(
                        APIKeyRecord(name: "k", secretSHA256: Self.hash(1), canWrite: false, feeds: ["a", "b"])))
            }

            #expect(try await store.write { tx in try tx.deleteAPIKey(named: "K") } == false)
            #expect(try await store.write { tx in try tx.deleteAPIKey(named: "k") } == true)
            #expect(try await store.write { tx in try tx.deleteAPIKey(named: "k") } == false)
            #expect(try await store.read { tx in try tx.hasAPIKeys() } == false)

            // A new key of the same name has only its own feeds
            let again = APIKeyRecord(name: "k", secretSHA256: Self.hash(1), canWrite: true, feeds: ["c"])
            #expect(try await store.write { tx in try tx.insertAPIKey(again) })
            #expect(try await store.read { tx in try tx.apiKeys() } == [again])
        }
    }

    @Test(arguments: TestEngine.all)
    func aSecretIsStoredForOneKeyOnly(engine: TestEngine) async throws {
        try await ScratchCatalog.withStore(engine) { catalog, store throws in
            let first = APIKeyRecord(name: "first", secretSHA256: Self.hash(1), canWrite: false, feeds: [])
            #expect(try await store.write { tx in try tx.insertAPIKey(first) })

            // A second name with the same secret hash is refused by the catalog
            let error = await #expect(throws: StoreError.self) {
                try await store.write { tx in
                    try tx.insertAPIKey(
                        APIKeyRecord(name: "second", secretSHA256: Self.hash(1), canWrite: true, feeds: ["f"]))
                }
            }
            #expect(error?.kind == .invalidRequest)
            #expect(try await store.read { tx in try tx.apiKeys() } == [first])
        }
    }
}
