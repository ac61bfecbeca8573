import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// Issue 38: after PostgreSQL crashed, a statement on a connection of the pool could go
/// unanswered for good, holding an instance's writer or its event hub. Every statement now has
/// a deadline (``StatementDeadlines``): past it, the connection is closed, the statement fails
/// as `unavailable` (503 with `Retry-After`), and the pool serves the next one on a new
/// connection. These tests shorten the brief deadline to one second.
///
/// (Each outcome is awaited for five minutes at most, so that a statement that never ends fails
/// the test rather than hanging the suite; that bound is not what is tested. It is generous:
/// beside the whole suite, on a busy host, a task may wait long for a thread.)
@Suite(.onOwnThreads) struct PostgresStatementDeadlineTests {
    /// Which way of reaching the database a test takes.
    enum Path: String, CaseIterable, CustomTestStringConvertible {
        case read, write, readAwaitingStatements
        var testDescription: String { rawValue }
    }

    @Test(
        .enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"), arguments: Path.allCases)
    func aStatementOnAConnectionThatFallsSilentFailsAsUnavailableAndThePoolServesTheNext(path: Path) async throws {
        // Given a server's catalog whose connections go through a proxy that can fall silent
        // (as a server that crashed or a peer gone from the network: no answer, no error)
        let schema = try PostgresScratchSchema()
        let server = try #require(URLComponents(string: schema.url))
        let proxy = try SilenceableProxy(to: server.host ?? "127.0.0.1", port: server.port ?? 5432)
        defer { proxy.stop() }
        var proxied = server
        proxied.port = proxy.port
        let catalog = try PostgresCatalog.open(
            settings: try Self.settings(try #require(proxied.string)), connections: 2)
        defer { catalog.closeWhenDone() }
        try #require(try await Self.answer(path, catalog) == "answered")

        // When the connection falls silent and a statement is sent on it
        proxy.isSilent = true
        let silent = try #require(await Self.run(path, catalog), "the statement never ended")

        // Then it fails as unavailable, saying why
        let error = #expect(throws: StoreError.self) { try silent.get() }
        #expect(error?.kind == .unavailable)
        #expect(
            error?.message.contains("PostgreSQL cannot be reached (no answer to a statement within 1 s)") == true,
            "\(error?.message ?? "")")

        // And once the network answers again, the pool serves the next one on a new connection
        proxy.isSilent = false
        #expect(try await Self.answer(.read, catalog) == "answered")
        #expect(try await Self.answer(path, catalog) == "answered")
    }

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"), arguments: [1, 2])
    func aStatementPastItsDeadlineIsCutUnlessItIsBulkWork(connections: Int) async throws {
        // Given a command's catalog (one connection) or a server's (a pool), on a live server
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(settings: try Self.settings(schema.url), connections: connections)
        defer { catalog.closeWhenDone() }

        // When a brief statement takes longer than its deadline
        let cut = try #require(
            await Self.awaited { try await catalog.pool.withSession { try $0.execute("SELECT pg_sleep(2.5)") } },
            "the statement never ended")

        // Then it fails as unavailable, and the next transaction gets a connection that works
        let error = #expect(throws: StoreError.self) { try cut.get() }
        #expect(error?.kind == .unavailable)
        #expect(try await Self.answer(.read, catalog) == "answered")

        // And bulk work of the same length is waited for
        let bulk = try #require(
            await Self.awaited {
                try await catalog.pool.withSession { try $0.execute("SELECT pg_sleep(1.5)", length: .bulk) }
            })
        #expect(try bulk.get() == 1)
    }

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func bulkWorkIsGivenUpOnceThePoolHearsTheServerCannotBeReached() async throws {
        // Given a server's catalog whose writer runs a bulk statement longer than the test
        // waits (named by the schema's name, so that the test finds its own)
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(settings: try Self.settings(schema.url), connections: 2)
        defer { catalog.closeWhenDone() }
        let sleep = "SELECT pg_sleep(600) -- \(schema.name)"
        let server = try #require(PostgresScratchSchema.serverURL)
        // (The server goes on sleeping after the client gave up, until told to stop.)
        defer {
            _ = try? PostgresScratchSchema.psql(
                server, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query = '\(sleep)'")
        }
        let running = Task {
            await Self.awaited {
                try await catalog.pool.withSession(writer: true) { try $0.execute(sleep, length: .bulk) }
            }
        }
        let started = Date.now
        while try PostgresScratchSchema.psql(
            server, "SELECT count(*) FROM pg_stat_activity WHERE query = '\(sleep)' AND state = 'active'") == "0"
        {
            try #require(Date.now.timeIntervalSince(started) < 300, "the statement never started")
            try await Task.sleep(for: .milliseconds(100))
        }

        // When the pool hears that the server cannot be reached (as from its change watcher)
        catalog.pool.markDown(StoreError(.unavailable, "PostgreSQL cannot be reached (the test says so)."))

        // Then the statement, whose connection predates the outage, is given up, and the next
        // transaction is served
        let outcome = try #require(await running.value, "the statement was not given up")
        let error = #expect(throws: StoreError.self) { try outcome.get() }
        #expect(error?.kind == .unavailable)
        #expect(try await Self.answer(.write, catalog) == "answered")
    }

    /// The test server's settings at `url`, with a brief deadline of one second.
    static func settings(_ url: String) throws -> PostgresSettings {
        var settings = try PostgresSettings(url: url)
        settings.deadlines.brief = .seconds(1)
        return settings
    }

    /// The answer of a transaction along `path`: "answered", or what it throws.
    static func answer(_ path: Path, _ catalog: PostgresCatalog) async throws -> String {
        try #require(await run(path, catalog), "a \(path.rawValue) never ended").get()
    }

    /// A transaction along `path` that answers "answered"; nil when it has not ended within
    /// five minutes.
    static func run(_ path: Path, _ catalog: PostgresCatalog) async -> Result<String, any Error>? {
        switch path {
        case .read:
            return await awaited {
                try await catalog.read { tx in
                    _ = try tx.feed(named: "travel")
                    return "answered"
                }
            }
        case .write:
            return await awaited {
                try await catalog.write(.feed("travel")) { tx in
                    _ = try tx.feed(named: "travel")
                    return "answered"
                }
            }
        case .readAwaitingStatements:
            return await awaited {
                try await catalog.readAwaitingStatements { reads in
                    _ = try await reads.feed(named: "travel")
                    return "answered"
                }
            }
        }
    }

    /// Awaits `body` in a task of its own; its outcome, or nil when it has not ended within
    /// five minutes.
    static func awaited<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async -> Result<T, any Error>? {
        await firstOf { settle in
            Task {
                do { settle(.success(try await body())) } catch { settle(.failure(error)) }
            }
        }
    }

    /// The outcome `start` reports first, or nil after five minutes.
    private static func firstOf<T: Sendable>(
        _ start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Void
    ) async -> Result<T, any Error>? {
        await withCheckedContinuation { continuation in
            let settled = NIOLockedValueBox(false)
            let settle: @Sendable (Result<T, any Error>?) -> Void = { outcome in
                guard
                    !settled.withLockedValue({ done in
                        defer { done = true }
                        return done
                    })
                else { return }
                continuation.resume(returning: outcome)
            }
            start { settle($0) }
            DispatchQueue.global().asyncAfter(deadline: .now() + 300) { settle(nil) }
        }
    }
}

/// How long a write waits for its locks before its connection is taken for dead.
@Suite struct LockWaitDeadlineTests {
    /// Issue 50, fault 6: a scope's write waits for two locks (the catalog's, shared, then the
    /// scope's), each ended by the 10-s lock timeout, but its deadline was one lock's timeout
    /// plus a brief statement's (15 s): a write that waited its turn at both was cut as a dead
    /// connection. The deadline now covers every lock the statement waits for.
    @Test func aWriteWaitingForTwoLocksIsNotCutBeforeBothTimeOut() {
        let deadlines = StatementDeadlines()
        let lockTimeout = TimeAmount.milliseconds(Int64(PostgresCatalog.lockTimeout * 1000))
        #expect(deadlines.limit(PostgresStatement.LockScope.length) > lockTimeout * 2)
        #expect(deadlines.limit(PostgresStatement.LockCatalog.length) > lockTimeout)
        #expect(deadlines.limit(PostgresStatement.LockScope.length) < lockTimeout * 3)
    }
}
