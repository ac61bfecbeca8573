import NIOCore
import PostgresNIO

/// What a server's pool does when PostgreSQL cannot be reached (DESIGN section 18).
///
/// PostgresNIO's pool retries a server that does not answer with a growing back-off (up to a
/// minute) and holds requests meanwhile; so while the server is known to be down, a transaction
/// does not ask that pool: it tries one connection of its own (at most one try at a time, and
/// one per ``probeInterval``) and fails at once as `unavailable` (503) if the server still does
/// not answer; once one does, the pools are replaced by new ones, which connect at once instead
/// of at the end of their back-off.
extension PostgresPool {
    /// What the pool knows of the server's reachability.
    struct Health {
        var down = false
        /// The last failure to reach it, which the transactions that do not try it fail with.
        var failure: StoreError?
        var probing = false
        var lastProbe: ContinuousClock.Instant?
        /// Whether a check after the watcher's loss is under way (``checkAfterWatcherLoss()``).
        var checkingAfterLoss = false
        /// How many times the server was reported unreachable: a statement that began before a
        /// report is not waited for long (``StatementDeadlines``).
        var outages = 0
    }

    /// How often a transaction may try the server while it is down.
    static let probeInterval: Duration = .milliseconds(250)
    /// How long a try to reach the server may take.
    static let probeTimeout: TimeAmount = .seconds(3)

    /// While the server is known to be down: tries it (one try at a time, one per
    /// ``probeInterval``), replacing the pools once it answers; else fails as `unavailable`.
    func recoverIfDown() async throws {
        let (down, tries, last) = health.withLockedValue { health -> (Bool, Bool, StoreError?) in
            guard health.down else { return (false, false, nil) }
            let due = health.lastProbe.map { $0 + Self.probeInterval <= .now } ?? true
            guard !health.probing, due else { return (true, false, health.failure) }
            health.probing = true
            return (true, true, health.failure)
        }
        guard down else { return }
        guard tries else { throw last ?? unavailable("it did not answer") }
        let failure = await probe()
        health.withLockedValue { health in
            health.probing = false
            health.lastProbe = .now
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

    /// Puts new pools in place of `stale` (unless someone did already) and retires the old ones,
    /// which stop once the connections they lent come back (``PostgresClients``).
    func replace(_ stale: PostgresClients) -> PostgresClients {
        let reported = outages()
        let (current, old) = clients.withLockedValue { clients -> (PostgresClients, PostgresClients?) in
            guard let set = clients, set.generation == stale.generation else { return (clients!, nil) }
            let fresh = PostgresClients(
                settings: settings, readers: readerCount, generation: set.generation + 1, outages: reported)
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

    /// How many replaced sets of pools still run, waiting for the connections they lent.
    var retiredPoolsRunning: Int {
        retired.withLockedValue { sets in sets.filter { !$0.isStopped }.count }
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
    var outages: @Sendable () -> Int {
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
            let failure = await probe()
            health.withLockedValue { $0.checkingAfterLoss = false }
            if let failure { markDown(failure) }
        }
    }

    /// How one new connection to the server (made within ``probeTimeout``, then closed) fails,
    /// or nil when it is made.
    func probe() async -> StoreError? {
        do {
            var configuration = try settings.configuration()
            configuration.options.connectTimeout = Self.probeTimeout
            let connection = try await PostgresConnection.connect(
                on: PostgresSession.eventLoops.next(), configuration: configuration, id: 3,
                logger: PostgresSession.quietLogger
            ).get()
            try? await connection.close().get()
            return nil
        } catch let error as StoreError {
            return StoreError(.unavailable, error.message)
        } catch {
            return unavailable(PostgresSession.reason(error))
        }
    }

    /// The failure of a lease that got no connection (noting the server down when it cannot be
    /// reached). Nothing was sent, so whatever PostgresNIO's pool says without the server's word
    /// (its circuit breaker, tripped after a while of connections refused) means the server
    /// cannot be reached: `unavailable`, as a lost connection is, not the server's fault.
    func leaseFailure(_ error: any Error) -> StoreError {
        let failure =
            PostgresSession.sqlState(error) == nil
            ? unavailable(PostgresSession.reason(error))
            : StoreError(postgresError: error, location: settings.displayName)
        if failure.kind == .unavailable { markDown(failure) }
        return failure
    }

    /// The failure of a transaction while the server cannot be reached.
    func unavailable(_ reason: String) -> StoreError {
        StoreError(
            .unavailable, "\(settings.displayName): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
    }
}
