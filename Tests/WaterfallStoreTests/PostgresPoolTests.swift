import Foundation
import Testing
import WaterfallTestSupport
@testable import WaterfallStore

/// The PostgreSQL catalog's connections (``PostgresPool``, on PostgresNIO's `PostgresClient`):
/// a transaction waits for a connection while every one is in use, and fails as busy (a server
/// answers 503, a command exits 74) when none comes free in time, instead of hanging.
@Suite(.onOwnThreads) struct PostgresPoolTests {
    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aTransactionWaitsForABusyConnectionAndGivesUpAsBusyWhenNoneComesFree() throws {
        // Given a server's catalog with one connection for reads (and one for writes), held by
        // a read that waits for a signal
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(url: schema.url, connections: 2)
        defer { catalog.close() }
        let inside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread { _ = try? catalog.read { _ in inside.signal(); _ = release.wait(timeout: .now() + 60) } }
        holder.start()
        try #require(inside.wait(timeout: .now() + 30) == .success)

        // When another read asks for a connection that never comes free
        let error = #expect(throws: StoreError.self) { try catalog.read { tx in try tx.feeds().count } }

        // Then it fails as busy, saying why
        #expect(error?.kind == .busy)
        #expect(error?.message.contains("no connection to PostgreSQL came free within 10 seconds") == true)

        // And a read that asks while the connection is held gets it once it is given back
        let waiting = DispatchSemaphore(value: 0)
        let answer = LockedBox<Int?>(nil)
        Thread {
            answer.value = try? catalog.read { tx in try tx.feeds().count }
            waiting.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.3)
        release.signal()
        try #require(waiting.wait(timeout: .now() + 30) == .success)
        #expect(answer.value == 0)
    }

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aReadWithoutBlockingWaitsForAConnectionAndGivesUpAsBusyToo() async throws {
        // Given a server's catalog whose one connection for reads is held by a read without
        // blocking that waits for a signal
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(url: schema.url, connections: 2)
        defer { catalog.close() }
        let (inside, holding) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await catalog.readWithoutBlocking { _ in
                holding.yield()
                for await _ in released { break }
            }
        }
        for await _ in inside { break }

        // When another asks for a connection that never comes free, it fails as busy
        let error = await #expect(throws: StoreError.self) {
            try await catalog.readWithoutBlocking { reads in try await reads.feed(named: "f") == nil }
        }
        #expect(error?.kind == .busy)
        #expect(error?.message.contains("no connection to PostgreSQL came free within 10 seconds") == true)

        // And one that asks while the connection is held gets it once it is given back
        let waiting = Task { try await catalog.readWithoutBlocking { reads in try await reads.feed(named: "f") == nil } }
        try await Task.sleep(for: .milliseconds(300))
        release.yield()
        _ = try await holder.value
        #expect(try await waiting.value == true)
    }
}

/// A value shared with another thread.
private final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
