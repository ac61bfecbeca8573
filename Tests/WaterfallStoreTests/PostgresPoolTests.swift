import Foundation
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// The PostgreSQL catalog's connections (``PostgresPool``, on PostgresNIO's `PostgresClient`):
/// a transaction waits for a connection while every one is in use, and fails as busy (a server
/// answers 503, a command exits 74) when none comes free in time, instead of hanging.
@Suite(.onOwnThreads) struct PostgresPoolTests {
    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aTransactionWaitsForABusyConnectionAndGivesUpAsBusyWhenNoneComesFree() async throws {
        // Given a server's catalog with one connection for reads (and one for writes), held by
        // a read that waits for a signal
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(url: schema.url, connections: 2)
        defer { catalog.closeWhenDone() }
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            _ = try? await catalog.read { _ in
                inside.signal()
                _ = release.wait(timeout: .now() + 60)
            }
        }
        try #require(inside.wait(timeout: .now() + 30) == .success)

        // When another read asks for a connection that never comes free
        let error = await #expect(throws: StoreError.self) { try await catalog.read { tx in try tx.feeds().count } }

        // Then it fails as busy, saying why
        #expect(error?.kind == .busy)
        #expect(error?.message.contains("no connection to PostgreSQL came free within 10 seconds") == true)

        // And a read that asks while the connection is held gets it once it is given back
        let waiting = Task { try await catalog.read { tx in try tx.feeds().count } }
        try await Task.sleep(for: .milliseconds(300))
        release.signal()
        #expect(try await waiting.value == 0)
        await holder.value
    }

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aReadAwaitingItsStatementsWaitsForAConnectionAndGivesUpAsBusyToo() async throws {
        // Given a server's catalog whose one connection for reads is held by a read awaiting
        // its statements that waits for a signal
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(url: schema.url, connections: 2)
        defer { catalog.closeWhenDone() }
        let (inside, holding) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await catalog.readAwaitingStatements { _ in
                holding.yield()
                for await _ in released { break }
            }
        }
        for await _ in inside { break }

        // When another asks for a connection that never comes free, it fails as busy
        let error = await #expect(throws: StoreError.self) {
            try await catalog.readAwaitingStatements { reads in try await reads.feed(named: "f") == nil }
        }
        #expect(error?.kind == .busy)
        #expect(error?.message.contains("no connection to PostgreSQL came free within 10 seconds") == true)

        // And one that asks while the connection is held gets it once it is given back
        let waiting = Task {
            try await catalog.readAwaitingStatements { reads in try await reads.feed(named: "f") == nil }
        }
        try await Task.sleep(for: .milliseconds(300))
        release.yield()
        _ = try await holder.value
        #expect(try await waiting.value == true)
    }
}
