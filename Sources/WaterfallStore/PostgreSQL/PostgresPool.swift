import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The connections of one ``PostgresCatalog``.
///
/// A command's catalog has one connection of its own, which its transactions take in turn.
///
/// A server's connections are kept by PostgresNIO's pool (`PostgresClient`): it opens them,
/// replaces one the server closed (a restart, a broken network), keeps idle ones alive, and
/// lends each to one transaction at a time (`withConnection`); a caller waits for a free one.
/// Writes have a pool of their own with one connection, as SQLite has one writer beside its
/// readers, on an event loop of its own (``PostgresSession/writerLoop``): a write never queues
/// behind reads, and a read never waits behind a write.
///
/// The store's interface is synchronous (``CatalogStore``) but for the reads of answers from
/// feeds held in memory (``withSessionWithoutBlocking(_:)``), so a transaction leases its
/// connection from a task on the connection's event loop that holds the lease until the
/// transaction ends (never one of Swift's cooperative threads, which synchronous callers may be
/// occupying), and the calling thread waits for each statement's answer.
final class PostgresPool: Sendable {
    let settings: PostgresSettings
    /// A command's connection, or nil for a server's pool.
    private let own: NIOLockedValueBox<PostgresSession>?
    private let readers: PostgresClient?
    private let writer: PostgresClient?
    private let running: NIOLockedValueBox<Task<Void, Never>?>

    /// How long a transaction waits for a connection of a server's pool before it fails: the
    /// pool retries a server that does not answer without end, and a request must not.
    static let leaseTimeout: TimeAmount = .seconds(10)

    /// A command's pool: `session` alone.
    init(settings: PostgresSettings, own session: PostgresSession) {
        self.settings = settings
        own = NIOLockedValueBox(session)
        readers = nil
        writer = nil
        running = NIOLockedValueBox(nil)
    }

    /// A server's pool: `connections - 1` connections for reads and one for writes.
    init(settings: PostgresSettings, connections: Int) {
        self.settings = settings
        own = nil
        let readers = PostgresClient(
            configuration: settings.clientConfiguration(connections: max(1, connections - 1)),
            eventLoopGroup: PostgresSession.eventLoops, backgroundLogger: PostgresSession.quietLogger)
        let writer = PostgresClient(
            configuration: settings.clientConfiguration(connections: 1),
            eventLoopGroup: PostgresSession.writerLoop, backgroundLogger: PostgresSession.quietLogger)
        self.readers = readers
        self.writer = writer
        running = NIOLockedValueBox(Task(executorPreference: EventLoopTaskExecutor.next()) {
            await withDiscardingTaskGroup { group in
                group.addTask { await readers.run() }
                group.addTask { await writer.run() }
            }
        })
    }

    /// Runs `body` with a connection of its own.
    /// - Throws: what `body` throws; ``StoreError`` `busy` when no connection comes free within
    ///   ``leaseTimeout``.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let readers { return try lease(readers, on: PostgresSession.eventLoops, body) }
        return try withOwnSession(body)
    }

    /// Runs `body` with the writer's connection (one write at a time).
    func withWriterSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        if let writer { return try lease(writer, on: PostgresSession.writerLoop, body) }
        return try withOwnSession(body)
    }

    /// Runs `body` with a command's connection, replaced first if the server closed it.
    private func withOwnSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try own!.withLockedValue { session in
            if session.connection.isClosed { session = try PostgresSession.connect(settings) }
            return try body(session)
        }
    }

    /// Leases a connection of `client`, whose connections run on `loops`, from a task there.
    private func lease<T>(_ client: PostgresClient, on loops: any EventLoopGroup, _ body: (PostgresSession) throws -> T) throws -> T {
        let loop = loops.next()
        let leased = loop.makePromise(of: PostgresConnection.self)
        let returned = loop.makePromise(of: Void.self)
        // The task and the timeout both run on `loop`, so whichever settles `leased` first
        // does it alone.
        let settled = NIOLockedValueBox(false)
        @Sendable func settle(_ result: Result<PostgresConnection, any Error>) -> Bool {
            guard !settled.withLockedValue({ done in defer { done = true }; return done }) else { return false }
            leased.completeWith(result)
            return true
        }
        let task = Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
            do {
                try await client.withConnection { connection in
                    // A lease that came after the caller gave up goes straight back.
                    guard settle(.success(connection)) else { return }
                    try? await returned.futureResult.get()
                }
            } catch {
                _ = settle(.failure(error))
            }
        }
        let timeout = loop.scheduleTask(in: Self.leaseTimeout) {
            if settle(.failure(self.noConnectionCameFree)) { task.cancel() }
        }
        defer { returned.succeed(()) }
        let connection: PostgresConnection
        do {
            connection = try leased.futureResult.wait()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(postgresError: error, location: settings.displayName)
        }
        timeout.cancel()
        return try body(PostgresSession.leased(connection, settings))
    }

    /// Runs `body` with a connection of a server's pool for reads, waiting for the connection
    /// and for `body` without blocking a thread; `nil` for a command's catalog, whose one
    /// connection synchronous callers take in turn.
    /// - Throws: what `body` throws; ``StoreError`` `busy` when no connection comes free within
    ///   ``leaseTimeout``.
    func withSessionWithoutBlocking<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T) async throws -> T? {
        guard let readers else { return nil }
        let leased = NIOLockedValueBox(false)
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>.self) { [settings] group in
            group.addTask {
                try await readers.withConnection { connection in
                    leased.withLockedValue { $0 = true }
                    return .done(try await body(PostgresSession.leased(connection, settings)))
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(Self.leaseTimeout.nanoseconds))
                if !leased.withLockedValue({ $0 }) { throw self.noConnectionCameFree }
                return .leasedInTime
            }
            while let outcome = try await group.next() {
                if case .done(let value) = outcome {
                    group.cancelAll()
                    return value
                }
            }
            preconditionFailure("the lease ended without an outcome")
        }
    }

    /// The failure of a transaction that waited ``leaseTimeout`` for a connection.
    private var noConnectionCameFree: StoreError {
        let seconds = Self.leaseTimeout.nanoseconds / 1_000_000_000
        return StoreError(.busy, "\(settings.displayName): no connection to PostgreSQL came free within \(seconds) seconds (every one busy, or the server not answering); nothing was written.")
    }

    /// Closes every connection (waiting a moment for a server's pool to say goodbye).
    func close() {
        own?.withLockedValue { $0.close() }
        guard let task = running.withLockedValue({ task in defer { task = nil }; return task }) else { return }
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: EventLoopTaskExecutor.next()) {
            await task.value
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
    }

    deinit {
        running.withLockedValue { $0 }?.cancel()
    }
}

/// How a lease waited for without blocking ends: `body`'s result, or the timer finding the
/// connection leased in time.
private enum LeaseOutcome<T: Sendable>: Sendable {
    case done(T)
    case leasedInTime
}
