import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The connections of one ``PostgresCatalog``.
///
/// A command's catalog has one connection of its own, which its transactions take in turn.
///
/// A server's connections are kept by PostgresNIO's pool (`PostgresClient`, two of them in a
/// ``PostgresClients``): it opens them, replaces one the server closed (a restart, a broken
/// network), keeps idle ones alive, and lends each to one transaction at a time
/// (`withConnection`). Writes have a pool of their own with one connection, as SQLite has one
/// writer beside its readers, on an event loop of its own (``PostgresSession/writerLoop``): a
/// write never queues behind reads, and a read never waits behind a write.
///
/// Every transaction of a server gets its connection one way (``lease(writer:_:)``): awaited on
/// the caller's task, holding no thread, for at most ``leaseTimeout``. A transaction whose
/// statements are awaited (the reads of an answer from a kept feed) then runs on that task. A
/// transaction of the one synchronous protocol (``CatalogTransaction``) runs on a thread of the
/// process's fixed pool for blocking work (``BlockingThreads``, sized by `serve
/// --blocking-threads`), taken only once its connection is had, and waits there for each
/// statement's answer up to the statement's deadline (``StatementDeadlines``). So no thread
/// waits for a connection, and every wait of a transaction ends.
final class PostgresPool: Sendable {
    let settings: PostgresSettings
    /// A command's connection, or nil for a server's pool.
    private let own: NIOLockedValueBox<PostgresSession>?
    /// A server's pools, replaced whole when the server comes back (``recoverIfDown()``).
    let clients: NIOLockedValueBox<PostgresClients?>
    /// Sets replaced while they still had connections lent out, until they stop.
    let retired = NIOLockedValueBox<[PostgresClients]>([])
    /// Connections of a server's pool for reads.
    let readerCount: Int
    /// What the pool knows of the server's reachability (``Health``).
    let health = NIOLockedValueBox(Health())

    /// How long a transaction waits for a connection of a server's pool before it fails: the
    /// pool retries a server that does not answer without end, and a request must not.
    static let leaseTimeout: Duration = .seconds(10)
    /// How long a lease may wait, while connections of its pool are idle or missing, before it
    /// looks at the server itself: a pool that has none to lend is reconnecting.
    static let stuckAfter: Duration = .seconds(1)

    /// A command's pool: `session` alone.
    init(settings: PostgresSettings, own session: PostgresSession) {
        self.settings = settings
        own = NIOLockedValueBox(session)
        clients = NIOLockedValueBox(nil)
        readerCount = 0
    }

    /// A server's pool: `connections - 1` connections for reads and one for writes.
    init(settings: PostgresSettings, connections: Int) {
        self.settings = settings
        own = nil
        readerCount = max(1, connections - 1)
        clients = NIOLockedValueBox(
            PostgresClients(settings: settings, readers: max(1, connections - 1), generation: 0, outages: 0))
    }

    /// Runs `body`, a transaction's synchronous body, with a connection for reads (or the
    /// writer's), on a thread of ``BlockingThreads`` once the connection is had.
    /// - Throws: what `body` throws; ``StoreError`` `busy` when no connection comes free within
    ///   ``leaseTimeout``, `unavailable` while the server cannot be reached;
    ///   `CancellationError` when the caller is cancelled before `body` starts.
    func withSession<T: Sendable>(writer: Bool = false, _ body: @escaping @Sendable (PostgresSession) throws -> T)
        async throws -> T
    {
        if let own { return try await BlockingThreads.run { [settings] in try Self.withOwn(own, settings, body) } }
        return try await lease(writer: writer) { session in try await BlockingThreads.run { try body(session) } }
    }

    /// Runs `body` with a connection for reads, each of its statements awaited: on a server's
    /// pool on the caller's task, holding no thread; on a command's connection on a thread of
    /// ``BlockingThreads``, where ``TransactionPump`` runs every part of `body`.
    /// - Throws: as ``withSession(writer:_:)``.
    func withSessionAwaitingStatements<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T)
        async throws -> T
    {
        guard let own else { return try await lease(writer: false, body) }
        return try await BlockingThreads.run { [settings] in
            try Self.withOwn(own, settings) { session in try TransactionPump.run { try await body(session) } }
        }
    }

    /// Runs `body` with a command's connection, replaced first if the server closed it or a
    /// statement's deadline gave it up.
    private static func withOwn<T>(
        _ own: NIOLockedValueBox<PostgresSession>, _ settings: PostgresSettings, _ body: (PostgresSession) throws -> T
    ) throws -> T {
        try own.withLockedValue { session in
            if session.connection.isClosed || session.isBroken { session = try PostgresSession.connect(settings) }
            return try body(session)
        }
    }

    /// Leases a connection of a server's pool for reads or for the write and runs `body` with
    /// it: the one lease of the pool. Fails as `unavailable` at once while the server is known
    /// to be down (``recoverIfDown()``), and notes it down when `body` loses its connection.
    /// A lease that finds the pool lending nothing though it has a connection to lend, after the
    /// server was reported unreachable, looks at the server, and puts new pools in place of the
    /// old ones when it answers; one refused by pools replaced meanwhile is tried on the new ones.
    private func lease<T: Sendable>(writer: Bool, _ body: @escaping @Sendable (PostgresSession) async throws -> T)
        async throws -> T
    {
        try await recoverIfDown()
        var set = clients.withLockedValue { $0! }
        var lookedAtServer = false
        // One wait for a connection, however often a replaced set refuses the lease; a set put
        // in place of one found stuck gets a wait of its own (it connects anew).
        var end = ContinuousClock.now + Self.leaseTimeout
        for _ in 0..<4 {
            // Once at most, and only at pools that may be waiting out a back-off: the server
            // reported unreachable since they were made (else they are only slow to connect, and
            // new ones would start over).
            let looksAtServer = !lookedAtServer && outages() > set.outagesWhenMade
            switch try await lease(from: set, writer: writer, until: end, looksAtServer: looksAtServer, body) {
            case .done(let value):
                return value
            case .stuck:
                lookedAtServer = true
                if let failure = await probe() {
                    markDown(failure)
                    throw failure
                }
                set = replace(set)
                end = .now + Self.leaseTimeout
            case .refused:
                set = clients.withLockedValue { $0! }
            }
        }
        throw noConnectionCameFree
    }

    /// One wait for a connection of `set`, failing as busy at `end`: `.stuck` when none came
    /// within ``stuckAfter`` while one was free and `looksAtServer`. The lease and its timer
    /// settle it once (``LeaseClaim``): a connection lent after the timer gave up goes straight
    /// back, and a lease had is never given up, whatever becomes of its caller.
    private func lease<T: Sendable>(
        from set: PostgresClients, writer: Bool, until end: ContinuousClock.Instant, looksAtServer: Bool,
        _ body: @escaping @Sendable (PostgresSession) async throws -> T
    ) async throws -> LeaseOutcome<T> {
        let claim = NIOLockedValueBox(LeaseClaim.waiting)
        let client = writer ? set.writer : set.readers
        let capacity = writer ? 1 : readerCount
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>?.self) { [settings, outages] group in
            group.addTask {
                do {
                    return try await client.withConnection { connection -> LeaseOutcome<T>? in
                        guard claim.withLockedValue({ $0.settle(as: .leased) }) else { return nil }
                        return try await set.lending(writer: writer) {
                            do {
                                return .done(try await body(.leased(connection, settings, outages: outages)))
                            } catch let error as StoreError where error.kind == .unavailable {
                                self.markDown(error)
                                throw error
                            }
                        }
                    }
                } catch  where claim.withLockedValue({ $0 }) != .leased {
                    // No connection was lent: the caller cancelled, the set replaced meanwhile
                    // (it refuses), or none could be made.
                    if Task.isCancelled { throw CancellationError() }
                    if set.isRetired && PostgresSession.isPoolClosed(error) { return .refused }
                    throw self.leaseFailure(error)
                }
            }
            group.addTask {
                // A connection is free between two leases for an instant only: a pool stuck is
                // one seen lending less than it has twice, a moment apart.
                if looksAtServer {
                    try? await Task.sleep(for: Self.stuckAfter)
                    if set.lent(writer: writer) < capacity { try? await Task.sleep(for: .milliseconds(50)) }
                    if !Task.isCancelled, set.lent(writer: writer) < capacity,
                        claim.withLockedValue({ $0.settle(as: .gaveUp) })
                    {
                        return .stuck
                    }
                }
                try? await Task.sleep(until: end)
                if !Task.isCancelled, claim.withLockedValue({ $0.settle(as: .gaveUp) }) {
                    throw self.noConnectionCameFree
                }
                return nil
            }
            while let outcome = try await group.next() {
                if let outcome {
                    group.cancelAll()
                    return outcome
                }
            }
            throw CancellationError()
        }
    }

    /// The failure of a transaction that waited ``leaseTimeout`` for a connection.
    private var noConnectionCameFree: StoreError {
        StoreError(
            .busy,
            "\(settings.displayName): no connection to PostgreSQL came free within \(Self.leaseTimeout.components.seconds) seconds (every one busy, or the server not answering); nothing was written."
        )
    }

    /// Closes every connection, waiting up to five seconds for a server's pool to say goodbye.
    func close() async {
        if let own {
            _ = try? await BlockingThreads.run { own.withLockedValue { $0.close() } }
        }
        guard let current = clients.withLockedValue({ $0 }) else { return }
        // Retired sets still lending (a transaction under way as the server closes) stop too.
        for set in retired.withLockedValue({ $0 }) where !set.isStopped { set.stop() }
        let task = current.stop()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await task.value }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }

    deinit {
        clients.withLockedValue { $0 }?.stop()
        for set in retired.withLockedValue({ $0 }) where !set.isStopped { set.stop() }
    }
}

/// Who settled a lease first: the connection lent, or the timer giving up on it.
private enum LeaseClaim {
    case waiting
    case leased
    case gaveUp

    /// Settles the lease as `outcome` unless it is settled; whether it was this call.
    mutating func settle(as outcome: LeaseClaim) -> Bool {
        guard self == .waiting else { return false }
        self = outcome
        return true
    }
}

/// How one wait for a connection ends: `body`'s result, the pools found stuck, or the lease
/// refused by a set of pools replaced meanwhile.
private enum LeaseOutcome<T: Sendable>: Sendable {
    case done(T)
    case stuck
    case refused
}
