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
/// The store's door is asynchronous (``CatalogStore``), a transaction's body synchronous: a
/// transaction runs on a thread of its own (``onThread(_:)``) while its caller
/// awaits it without a thread, as GRDB runs SQLite's on its queues. There it leases its
/// connection from a task on the connection's event loop that holds the lease until the
/// transaction ends, and waits for each statement's answer, up to the statement's deadline
/// (``StatementDeadlines``): a connection that outlives one is closed, and PostgresNIO's pool
/// replaces it. So every wait of a transaction ends: the lease's at ``leaseTimeout``, each
/// statement's at its deadline. The reads of answers from kept feeds await each
/// statement instead (``withSessionAwaitingStatements(_:)``): they are a few short ones.
final class PostgresPool: Sendable {
    let settings: PostgresSettings
    /// A command's connection, or nil for a server's pool.
    private let own: NIOLockedValueBox<PostgresSession>?
    /// A server's pools, replaced whole when the server comes back (``recoverIfDown()``).
    private let clients: NIOLockedValueBox<Clients?>
    /// Sets replaced while they still had connections lent out, until they stop.
    private let retired = NIOLockedValueBox<[Clients]>([])
    /// Connections of a server's pool for reads.
    private let readerCount: Int
    /// Whether PostgreSQL is known to be unreachable.
    private let health = NIOLockedValueBox(Health())

    /// How long a transaction waits for a connection of a server's pool before it fails: the
    /// pool retries a server that does not answer without end, and a request must not.
    static let leaseTimeout: TimeAmount = .seconds(10)

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
        clients = NIOLockedValueBox(Clients(settings: settings, readers: max(1, connections - 1), generation: 0))
    }

    /// Whether this is a command's pool (its one connection), not a server's.
    var isCommands: Bool { own != nil }

    /// Runs `body`, a transaction that waits for its connection and its statements, on a
    /// thread of the process's fixed pool for blocking work (``BlockingThreads``), while the
    /// caller awaits it without a thread. Every wait of `body` ends (the lease's at
    /// ``leaseTimeout``, each statement's at its deadline), and no body waits for work queued
    /// behind it (a write queues for the writer's connection, a read for one of the readers',
    /// which bodies already on threads give back), so transactions beyond the pool's threads
    /// wait their turn and never hold it up.
    func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingThreads.run(body)
    }

    /// PostgresNIO's two pools of a server, the task that runs them, and the connections they
    /// have lent out now.
    ///
    /// A set that is replaced (``replace(_:)``) is retired, not stopped at once: stopping a
    /// PostgresNIO pool closes its lent connections too, under the transactions that use them,
    /// and a set is also replaced when it was only slow to lend one (a machine so busy that a
    /// new connection takes over ``stuckAfter``). A retired set lends on to whoever already
    /// waits in it, and stops once the last connection it lent comes back; a lease it then
    /// refuses (`poolClosed`) is tried again on the new set.
    private final class Clients: Sendable {
        let readers: PostgresClient
        let writer: PostgresClient
        private let running: Task<Void, Never>
        /// Which set this is: a set is replaced once, by whoever finds it stuck first.
        let generation: Int
        private let lending = NIOLockedValueBox(Lending())

        private struct Lending {
            var readers = 0
            var writer = 0
            var retired = false
            var stopped = false
        }

        init(settings: PostgresSettings, readers count: Int, generation: Int) {
            let readers = PostgresClient(
                configuration: settings.clientConfiguration(connections: count),
                eventLoopGroup: PostgresSession.eventLoops, backgroundLogger: PostgresSession.quietLogger)
            let writer = PostgresClient(
                configuration: settings.clientConfiguration(connections: 1),
                eventLoopGroup: PostgresSession.writerLoop, backgroundLogger: PostgresSession.quietLogger)
            self.readers = readers
            self.writer = writer
            self.generation = generation
            running = Task(executorPreference: EventLoopTaskExecutor.next()) {
                await withDiscardingTaskGroup { group in
                    group.addTask { await readers.run() }
                    group.addTask { await writer.run() }
                }
            }
        }

        /// The connections lent out now, for reads or for the write.
        func lent(writer: Bool) -> Int {
            lending.withLockedValue { writer ? $0.writer : $0.readers }
        }

        /// Whether the set was replaced: a lease it refuses is tried on the new one.
        var isRetired: Bool { lending.withLockedValue(\.retired) }

        /// Whether its pools were stopped.
        var isStopped: Bool { lending.withLockedValue(\.stopped) }

        /// Runs `body` while one of its connections is lent, for reads or for the write.
        func lending<T>(writer: Bool, _ body: () async throws -> T) async rethrows -> T {
            lending.withLockedValue { lending in
                if writer { lending.writer += 1 } else { lending.readers += 1 }
            }
            defer {
                let stops = lending.withLockedValue { lending -> Bool in
                    if writer { lending.writer -= 1 } else { lending.readers -= 1 }
                    return lending.retired && lending.readers + lending.writer == 0 && !lending.stopped
                }
                if stops { stop() }
            }
            return try await body()
        }

        /// Retires the set: it stops now if nothing is lent, else once the last lease ends.
        func retire() {
            let stops = lending.withLockedValue { lending -> Bool in
                lending.retired = true
                return lending.readers + lending.writer == 0 && !lending.stopped
            }
            if stops { stop() }
        }

        /// Stops both pools (PostgresNIO's pool closes every connection, lent or not), and
        /// returns the task that runs them, which ends once they have.
        @discardableResult
        func stop() -> Task<Void, Never> {
            lending.withLockedValue { $0.stopped = true }
            running.cancel()
            return running
        }
    }

    /// What the pool knows of the server's reachability (DESIGN section 18).
    ///
    /// PostgresNIO's pool retries a server that does not answer with a growing back-off (up to a
    /// minute) and holds requests meanwhile; so while the server is known to be down, a
    /// transaction does not ask that pool: it tries one connection of its own (at most one try
    /// at a time, and one per ``probeInterval``) and fails at once as `unavailable` (503) if the
    /// server still does not answer; once one does, the pools are replaced by new ones, which
    /// connect at once instead of at the end of their back-off.
    private struct Health {
        var down = false
        /// The last failure to reach it, which the transactions that do not try it fail with.
        var failure: StoreError?
        var probing = false
        var lastProbe: NIODeadline?
        /// Whether a check after the watcher's loss is under way (``checkAfterWatcherLoss()``).
        var checkingAfterLoss = false
        /// How many times the server was reported unreachable: a statement that began before a
        /// report is not waited for long (``StatementDeadlines``).
        var outages = 0
    }

    /// How often a transaction may try the server while it is down.
    static let probeInterval: TimeAmount = .milliseconds(250)
    /// How long a lease may wait, while connections of its pool are idle or missing, before it
    /// looks at the server itself: a pool that has none to lend is reconnecting.
    static let stuckAfter: TimeAmount = .seconds(1)
    /// How long a try to reach the server may take.
    static let probeTimeout: Int64 = 3

    /// Runs `body` with a connection of its own, on this thread (``onThread(_:)``'s).
    /// - Throws: what `body` throws; ``StoreError`` `busy` when no connection comes free within
    ///   ``leaseTimeout``.
    func withSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        guard clients.withLockedValue({ $0 }) != nil else { return try withOwnSession(body) }
        return try lease(writer: false, body)
    }

    /// Runs `body` with the writer's connection (one write at a time), on this thread (``onThread(_:)``'s).
    func withWriterSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        guard clients.withLockedValue({ $0 }) != nil else { return try withOwnSession(body) }
        return try lease(writer: true, body)
    }

    /// Leases a connection of a server's pool for reads or for the write, and runs `body` with
    /// it; fails as `unavailable` at once while the server is known to be down, and notes it
    /// down when `body` loses its connection.
    private func lease<T>(writer: Bool, _ body: (PostgresSession) throws -> T) throws -> T {
        try recoverIfDown()
        var set = clients.withLockedValue { $0! }
        let capacity = writer ? 1 : readerCount
        var lookedAtServer = false
        // One wait for a connection, however often a replaced set refuses the lease; a set put
        // in place of one found stuck gets a wait of its own (it connects anew).
        var end = NIODeadline.now() + Self.leaseTimeout
        // A set replaced meanwhile may refuse the lease: tried again on the new one, a few times
        // at most (each replacement is one that a lease found stuck, or the server's return).
        for _ in 0..<4 {
            let mayBeStuck = !lookedAtServer
            switch try lease(
                from: set, writer: writer, until: end,
                stuck: {
                    // Only when a connection could be lent (the pool is not merely busy).
                    mayBeStuck && set.lent(writer: writer) < capacity
                }, body)
            {
            case .done(let value):
                return value
            case .stuck:
                // The pool has no connection to lend though one is free: either the server is
                // gone, or it came back while the pool waits out its back-off.
                lookedAtServer = true
                if let failure = probe() {
                    markDown(failure)
                    throw failure
                }
                set = replace(set)
                end = .now() + Self.leaseTimeout
            case .retired:
                set = clients.withLockedValue { $0! }
            }
        }
        throw noConnectionCameFree
    }

    private enum LeaseResult<T> {
        case done(T)
        case stuck
        /// The set was replaced while the lease waited in it, and refused it.
        case retired
    }

    /// Runs `body` with a command's connection, replaced first if the server closed it or a
    /// statement's deadline gave it up.
    private func withOwnSession<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        try own!.withLockedValue { session in
            if session.connection.isClosed || session.isBroken { session = try PostgresSession.connect(settings) }
            return try body(session)
        }
    }

    /// Leases a connection of `set` for reads or for the write, from a task on the event loop
    /// of its connections, failing as busy at `end`; `.stuck` when none came within
    /// ``stuckAfter`` and `stuck()` says to look at the server.
    private func lease<T>(
        from set: Clients, writer: Bool, until end: NIODeadline, stuck: () -> Bool,
        _ body: (PostgresSession) throws -> T
    ) throws -> LeaseResult<T> {
        let client = writer ? set.writer : set.readers
        let loops: any EventLoopGroup = writer ? PostgresSession.writerLoop : PostgresSession.eventLoops
        let loop = loops.next()
        let leased = loop.makePromise(of: PostgresConnection.self)
        let returned = loop.makePromise(of: Void.self)
        // The task and the timeout both run on `loop`, so whichever settles `leased` first
        // does it alone.
        let settled = NIOLockedValueBox(false)
        @Sendable func settle(_ result: Result<PostgresConnection, any Error>) -> Bool {
            guard
                !settled.withLockedValue({ done in
                    defer { done = true }
                    return done
                })
            else { return false }
            leased.completeWith(result)
            return true
        }
        let task = Task(executorPreference: EventLoopTaskExecutor.on(loop)) {
            do {
                try await client.withConnection { connection in
                    // A lease that came after the caller gave up goes straight back.
                    guard settle(.success(connection)) else { return }
                    await set.lending(writer: writer) { try? await returned.futureResult.get() }
                }
            } catch {
                _ = settle(.failure(error))
            }
        }
        let timeout = loop.scheduleTask(deadline: end) {
            if settle(.failure(self.noConnectionCameFree)) { task.cancel() }
        }
        defer { returned.succeed(()) }
        let arrived = DispatchSemaphore(value: 0)
        leased.futureResult.whenComplete { _ in arrived.signal() }
        if arrived.wait(timeout: .now() + .milliseconds(Int(Self.stuckAfter.nanoseconds / 1_000_000))) == .timedOut,
            stuck(),
            settle(.failure(CancellationError()))
        {
            timeout.cancel()
            task.cancel()
            return .stuck
        }
        let connection: PostgresConnection
        do {
            connection = try leased.futureResult.wait()
        } catch let error as StoreError {
            throw error
        } catch {
            if set.isRetired && PostgresSession.isPoolClosed(error) { return .retired }
            throw leaseFailure(error)
        }
        timeout.cancel()
        do {
            return .done(try body(PostgresSession.leased(connection, settings, outages: outages)))
        } catch let error as StoreError where error.kind == .unavailable {
            markDown(error)
            throw error
        }
    }

    /// While the server is known to be down: tries it (one try at a time, one per
    /// ``probeInterval``), replacing the pools once it answers; else fails as `unavailable`.
    private func recoverIfDown() throws {
        let (down, tries, last) = health.withLockedValue { health -> (Bool, Bool, StoreError?) in
            guard health.down else { return (false, false, nil) }
            let due = health.lastProbe.map { $0 + Self.probeInterval <= .now() } ?? true
            guard !health.probing, due else { return (true, false, health.failure) }
            health.probing = true
            return (true, true, health.failure)
        }
        guard down else { return }
        guard tries else { throw last ?? unavailable("it did not answer") }
        let failure = probe()
        health.withLockedValue { health in
            health.probing = false
            health.lastProbe = .now()
            if let failure { health.failure = failure } else { health.down = false }
        }
        if let failure { throw failure }
        replacePools()
    }

    /// Puts new pools in place of the server's pools, as when it comes back
    /// (``recoverIfDown()``): transactions under way on the old ones go on there.
    func replacePools() {
        guard let set = clients.withLockedValue({ $0 }) else { return }
        _ = replace(set)
    }

    /// Notes the server down (a connection lost, a lease refused): the next transactions try
    /// it themselves (``recoverIfDown()``).
    func markDown(_ failure: StoreError) {
        health.withLockedValue { health in
            health.down = true
            health.failure = failure
            health.outages += 1
        }
    }

    /// The count of reports that the server cannot be reached, for the sessions' deadlines.
    private var outages: @Sendable () -> Int {
        { [health] in health.withLockedValue(\.outages) }
    }

    /// The watcher's listening connection ended (``PostgresChangeWatcher``): the server may be
    /// gone, or only that connection (an administrator's `pg_terminate_backend`, a reaper of
    /// idle connections). One new connection, tried off every request's way, tells which: the
    /// server is noted down (``markDown(_:)``) only when it cannot be made, so the loss of the
    /// listener alone fails no transaction and leaves the pools as they are.
    func checkAfterWatcherLoss() {
        let starts = health.withLockedValue { health -> Bool in
            guard !health.down, !health.checkingAfterLoss else { return false }
            health.checkingAfterLoss = true
            return true
        }
        guard starts else { return }
        Task.detached { [weak self] in
            guard let self else { return }
            let failure: StoreError?
            do {
                try await connectOnce().get()
                failure = nil
            } catch {
                failure = self.failure(error)
            }
            health.withLockedValue { $0.checkingAfterLoss = false }
            if let failure { markDown(failure) }
        }
    }

    /// How one new connection to the server fails, or nil when it is made (and closed).
    private func probe() -> StoreError? {
        do {
            try connectOnce().wait()
            return nil
        } catch {
            return failure(error)
        }
    }

    /// One new connection to the server, made within ``probeTimeout`` and closed.
    private func connectOnce() throws -> EventLoopFuture<Void> {
        var configuration = try settings.configuration()
        configuration.options.connectTimeout = .seconds(Self.probeTimeout)
        return PostgresConnection.connect(
            on: PostgresSession.eventLoops.next(), configuration: configuration, id: 3,
            logger: PostgresSession.quietLogger
        ).flatMap { connection in connection.close().recover { _ in } }
    }

    /// The failure of a try to reach the server: `unavailable`, with PostgresNIO's reason.
    private func failure(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return StoreError(.unavailable, error.message) }
        return unavailable(PostgresSession.reason(error))
    }

    /// How many replaced sets of pools still run, waiting for the connections they lent.
    var retiredPoolsRunning: Int {
        retired.withLockedValue { sets in sets.filter { !$0.isStopped }.count }
    }

    /// Puts new pools in place of `stale` (unless someone did already) and retires the old ones,
    /// which stop once the connections they lent come back (``Clients``).
    private func replace(_ stale: Clients) -> Clients {
        let (current, old) = clients.withLockedValue { clients -> (Clients, Clients?) in
            guard let set = clients, set.generation == stale.generation else { return (clients!, nil) }
            let fresh = Clients(settings: settings, readers: readerCount, generation: set.generation + 1)
            clients = fresh
            return (fresh, set)
        }
        if let old {
            old.retire()
            retired.withLockedValue { sets in
                sets.removeAll(where: \.isStopped)
                if !old.isStopped { sets.append(old) }
            }
        }
        return current
    }

    /// The failure of a lease that got no connection (noting the server down when it cannot be
    /// reached). Nothing was sent, so whatever PostgresNIO's pool says without the server's word
    /// (its circuit breaker, tripped after a while of connections refused) means the server
    /// cannot be reached: `unavailable`, as a lost connection is, not the server's fault.
    private func leaseFailure(_ error: any Error) -> StoreError {
        let failure =
            PostgresSession.sqlState(error) == nil
            ? unavailable(PostgresSession.reason(error))
            : StoreError(postgresError: error, location: settings.displayName)
        if failure.kind == .unavailable { markDown(failure) }
        return failure
    }

    /// The failure of a transaction while the server cannot be reached.
    private func unavailable(_ reason: String) -> StoreError {
        StoreError(
            .unavailable, "\(settings.displayName): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
    }

    /// Runs `body` with a connection of a server's pool for reads, waiting for the connection
    /// and for `body` without blocking a thread; `nil` for a command's catalog, whose one
    /// connection its transactions take in turn on the pool's thread; `nil` too while the server
    /// is known to be down, or when the pools were replaced while the lease waited (the
    /// blocking path then tries the server, or the new pools). Notes the server down when
    /// `body` loses its connection, or none can be had, as the blocking path does.
    /// - Throws: what `body` throws; ``StoreError`` `busy` when no connection comes free within
    ///   ``leaseTimeout``.
    func withSessionAwaitingStatements<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) async throws -> T)
        async throws -> T?
    {
        guard let set = clients.withLockedValue({ $0 }), !health.withLockedValue({ $0.down }) else {
            return nil
        }
        let leased = NIOLockedValueBox(false)
        return try await withThrowingTaskGroup(of: LeaseOutcome<T>.self) { [settings, outages] group in
            group.addTask {
                do {
                    return try await set.readers.withConnection { connection in
                        leased.withLockedValue { $0 = true }
                        return try await set.lending(writer: false) {
                            do {
                                return .done(
                                    try await body(PostgresSession.leased(connection, settings, outages: outages)))
                            } catch let error as StoreError where error.kind == .unavailable {
                                self.markDown(error)
                                throw error
                            }
                        }
                    }
                } catch  where !leased.withLockedValue({ $0 }) {
                    // No connection was lent: the lease given up (its timer won), refused by a
                    // set replaced meanwhile, or none could be made.
                    if Task.isCancelled { throw CancellationError() }
                    if set.isRetired && PostgresSession.isPoolClosed(error) { return .refused }
                    throw self.leaseFailure(error)
                }
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(Self.leaseTimeout.nanoseconds))
                if !leased.withLockedValue({ $0 }) { throw self.noConnectionCameFree }
                return .leasedInTime
            }
            while let outcome = try await group.next() {
                switch outcome {
                case .done(let value):
                    group.cancelAll()
                    return value
                case .refused:
                    group.cancelAll()
                    return nil
                case .leasedInTime:
                    continue
                }
            }
            preconditionFailure("the lease ended without an outcome")
        }
    }

    /// The failure of a transaction that waited ``leaseTimeout`` for a connection.
    private var noConnectionCameFree: StoreError {
        let seconds = Self.leaseTimeout.nanoseconds / 1_000_000_000
        return StoreError(
            .busy,
            "\(settings.displayName): no connection to PostgreSQL came free within \(seconds) seconds (every one busy, or the server not answering); nothing was written."
        )
    }

    /// Closes every connection, waiting up to five seconds for a server's pool to say goodbye.
    func close() async {
        if let own {
            _ = try? await onThread { own.withLockedValue { $0.close() } }
        }
        guard let current = clients.withLockedValue({ $0 }) else { return }
        // Retired sets still lending (a transaction under way as the server closes) stop too.
        for set in retired.withLockedValue({ $0 }) where !set.isStopped { set.stop() }
        let task = current.stop()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await task.value }
            group.addTask { try? await Task.sleep(nanoseconds: 5_000_000_000) }
            await group.next()
            group.cancelAll()
        }
    }

    deinit {
        clients.withLockedValue { $0 }?.stop()
        for set in retired.withLockedValue({ $0 }) where !set.isStopped { set.stop() }
    }
}

/// How a lease waited for without blocking ends: `body`'s result, the lease refused by a set
/// of pools replaced meanwhile, or the timer finding the connection leased in time.
private enum LeaseOutcome<T: Sendable>: Sendable {
    case done(T)
    case refused
    case leasedInTime
}
