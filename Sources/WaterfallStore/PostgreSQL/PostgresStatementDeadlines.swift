import NIOCore

/// What a statement may take on a healthy server, which sets how long its answer is waited for
/// (``StatementDeadlines``).
enum StatementLength: Sendable {
    /// A request's statement, or any statement that reads or writes a bounded handful of rows
    /// (`BEGIN`, `COMMIT`, a page's reads, a move's writes): milliseconds.
    case brief
    /// A wait for `locks` write locks one after the other, each of which the transaction's
    /// `lock_timeout` ends (``PostgresCatalog/lockTimeout``), then a brief statement.
    case lockWait(locks: Int)
    /// Work that grows with the catalog: the batched statements of an import, a reorder, a
    /// removal or a layout's cache (arrays of up to 10,000 rows each), the statements over a
    /// whole feed (its change log at a first import, its deletion), and the migrations (which
    /// build indexes over tables that may hold millions of rows, and wait for another instance
    /// that migrates).
    case bulk
}

/// How long a statement's answer is waited for before its connection is taken for broken
/// (DESIGN section 18, issue 38).
///
/// A connection whose server crashed or whose peer vanished from the network may never answer:
/// no error comes, and PostgresNIO's future for the statement may never complete. So every
/// statement has a deadline, after which the session closes its connection (a pool replaces
/// it), fails the statement as ``StoreError/Kind/unavailable`` (HTTP 503 with `Retry-After`,
/// exit 74) and fails every later statement of the session at once.
///
/// The deadline is chosen by the statement's ``StatementLength``:
/// - **brief**, 5 s: a request's statements answer in milliseconds on a healthy server, a
///   thousand times less; and a request that meets a dead connection must answer 503 within the
///   10 s DESIGN section 18 allows, lease and retry included.
/// - **lockWait**, the lock timeout (10 s) for each lock the statement waits for, plus `brief`:
///   the server itself ends each wait at the lock timeout (as busy), and answers within `brief`
///   after that. A scope's write waits for two (the catalog's, shared, then the scope's): cut at
///   one lock's timeout, a write that waited its turn at both was taken for a dead connection.
/// - **bulk**, 10 minutes: a statement of an import of a million images takes up to seconds
///   (10,000-row batches, a whole feed's change log, a migration's index), and cutting a
///   legitimate one would throw away the whole import; the deadline only bounds the wait for a
///   connection that died without a word while nobody noticed.
///
/// A statement that is not brief is also given up once it has waited `brief` after the pool
/// heard that the server cannot be reached (a lost connection, the change watcher's LISTEN
/// dropped; ``PostgresPool/markDown(_:)``): its connection predates an outage and is dead, so
/// a write waiting for its lock or an import during a crash answers within `brief` as well.
///
/// These are client-side on purpose. A server-side `statement_timeout` would need to differ by
/// statement (a round trip each to set it) and does nothing for a connection whose server or
/// peer is gone, which is the case to catch; PostgresNIO offers no TCP keep-alive or user
/// timeout on its sockets. An operator may complement them on the server with
/// `tcp_keepalives_idle` and `client_connection_check_interval` (PostgreSQL 14), which end a
/// backend whose client closed its connection mid-statement (docs/reliability.md).
struct StatementDeadlines: Sendable {
    /// The deadline of a brief statement, and how often a longer one looks for an outage.
    var brief: TimeAmount = .seconds(5)
    /// The deadline of a bulk statement.
    var bulk: TimeAmount = .minutes(10)

    /// The deadline of a statement of `length`.
    func limit(_ length: StatementLength) -> TimeAmount {
        switch length {
        case .brief: brief
        case .lockWait(let locks): .milliseconds(Int64(PostgresCatalog.lockTimeout * 1000) * Int64(locks)) + brief
        case .bulk: bulk
        }
    }
}
