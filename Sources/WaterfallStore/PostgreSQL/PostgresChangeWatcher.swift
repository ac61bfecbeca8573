import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// ``ChangeWatcher`` on PostgreSQL: counts the `waterfall_commit` notifications that every
/// write transaction of every instance sends (see ``PostgresCatalog``) naming the catalog's
/// schema, on a connection of its own that LISTENs from a task of its own. ``version()`` only
/// reads the count: it never waits for the server, so a caller on Swift's cooperative threads
/// never blocks.
///
/// A notification reaches another instance a moment after the commit, so ``seesCommitsAtOnce``
/// is false: a server that keeps answers over PostgreSQL serves, for that moment, the answer
/// from before another instance's commit (DESIGN section 12; its own commits it counts itself
/// when each write returns, and its watcher passes over their notifications, which its
/// ``CommitTag`` announces).
/// While the connection is down every ``version()`` is a new one, so that nothing is kept or
/// served from what was kept until it is back; each time it is made again the count moves on
/// (commits may have been missed), and the task reconnects every second.
///
/// A connection can die without a word (a peer gone from the network, a firewall that forgets
/// the flow): no error ever comes, and no notification either. So the task asks the server a
/// `SELECT 1` on it every ``probeInterval``; one not answered within ``probeTimeout`` closes the
/// connection, which then counts as down as above (DESIGN section 15).
final class PostgresChangeWatcher: ChangeWatcher, Sendable {
    /// The channel every write transaction notifies.
    static let channel = "waterfall_commit"
    /// What a write transaction runs to notify it: the catalog's schema is the payload, so that
    /// catalogs in other schemas of the database (other deployments, tests side by side) do not
    /// count each other's commits.
    static let notify = "SELECT pg_notify('\(channel)', coalesce(current_schema(), ''))"
    /// What a write with a ``CommitTag`` (`$1`) runs just before ``notify``: the schema, a space
    /// and the tag. A transaction's notifications reach every listener together, in order, so
    /// the plain one follows its tag at once. Watchers count the plain one (watchers from
    /// before tags too, which know no other payload); the watcher ignoring that tag passes
    /// over the plain one that follows it (``Counting``).
    static let notifyTag = "SELECT pg_notify('\(channel)', coalesce(current_schema(), '') || ' ' || $1)"
    /// The listening connection's `application_name`, as `pg_stat_activity` shows it: this,
    /// a space and the catalog's schema (cut at PostgreSQL's 63 bytes).
    static let applicationName = "waterfall watcher"
    /// Names the listening connection (``applicationName``) and answers the catalog's schema.
    private static let nameConnection = PostgresQuery(
        unsafeSQL: """
            SELECT coalesce(current_schema(), ''), \
            set_config('application_name', left('\(applicationName) ' || coalesce(current_schema(), ''), 63), false)
            """)
    /// How often the listening connection is probed.
    static let probeInterval: Duration = .seconds(3)
    /// How long a probe may take before the connection is taken for dead.
    static let probeTimeout: Duration = .seconds(5)

    private let count = NIOLockedValueBox<Int64>(0)
    /// Whether the LISTEN is in place now.
    private let listening = NIOLockedValueBox(false)
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    var seesCommitsAtOnce: Bool { false }

    /// A watcher that has started listening, returned once the first LISTEN is in place, or
    /// after ``firstListenWait`` when the server cannot be reached (its task goes on trying,
    /// and until it listens every ``version()`` is a new one), or when the caller is cancelled.
    /// - Parameter lost: told why, each time the listening connection is lost or cannot be
    ///   made (the catalog's pool then tries a new connection of its own, and takes the server
    ///   for down only when that fails: ``PostgresPool/checkAfterWatcherLoss()``).
    /// - Parameter tag: the ``CommitTag`` of the writes whose commits it does not count (their
    ///   writer counts them).
    static func start(
        settings: PostgresSettings, ignoring tag: String? = nil, lost: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(StoreError) -> PostgresChangeWatcher {
        let (listened, listening) = AsyncStream.makeStream(of: Void.self)
        let watcher = try PostgresChangeWatcher(settings: settings, ignoring: tag, listening: listening, lost: lost)
        // The wait ends at the first LISTEN, at the bound (which finishes the stream) or when
        // the caller is cancelled (which ends the iteration).
        let bound = Task {
            try? await Task.sleep(for: firstListenWait)
            listening.finish()
        }
        defer { bound.cancel() }
        for await _ in listened { break }
        return watcher
    }

    /// Which notifications count as commits, read in order by a watcher of the catalog in
    /// `schema` that ignores the writes tagged `tag`: the schema alone (or an empty payload, a
    /// writer from before payloads named the schema), unless it comes right after that tag
    /// (``notifyTag``). Another writer's tag, or another schema's commit, counts for nothing.
    struct Counting {
        let schema: String
        let tag: String?
        private var afterOwnTag = false

        init(schema: String, ignoring tag: String?) {
            self.schema = schema
            self.tag = tag
        }

        mutating func counts(_ payload: String) -> Bool {
            let ownCommit = afterOwnTag
            afterOwnTag = tag.map { payload == schema + " " + $0 } ?? false
            return (payload == schema || payload.isEmpty) && !ownCommit
        }
    }

    /// How long ``start(settings:ignoring:lost:)`` waits for the first LISTEN.
    static let firstListenWait: Duration = .seconds(5)

    /// Starts the listening task; `listening` hears of the first LISTEN in place.
    private init(
        settings: PostgresSettings, ignoring tag: String?, listening: AsyncStream<Void>.Continuation,
        lost: @escaping @Sendable (String) -> Void
    ) throws(StoreError) {
        let configuration = try settings.configuration()
        let count = self.count
        let listeningNow = self.listening
        // Ahead of ordinary work: a commit is heard late only while the machine is too busy
        // to run this task at all.
        let task = Task.detached(priority: .high) {
            let logger = {
                var logger = Logger(label: "waterfall.postgres.watcher")
                logger.logLevel = .critical
                return logger
            }()
            var first = true
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        on: PostgresSession.eventLoops.next(), configuration: configuration, id: 2, logger: logger)
                    defer { Task { try? await connection.close() } }
                    // The catalog's schema, as the writers' notifications name it; and the
                    // connection named for it (``applicationName``), for whoever looks.
                    var schema = ""
                    for try await row in try await connection.query(Self.nameConnection, logger: logger) {
                        schema = try row.decode((String, String).self).0
                    }
                    try await connection.listen(on: Self.channel) { [schema] notifications in
                        count.withLockedValue { $0 += 1 }
                        listeningNow.withLockedValue { $0 = true }
                        if first {
                            first = false
                            listening.yield()
                            listening.finish()
                        }
                        // Until the notifications end or a probe fails, whichever comes first.
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                var counting = Counting(schema: schema, ignoring: tag)
                                for try await notification in notifications where counting.counts(notification.payload)
                                {
                                    count.withLockedValue { $0 += 1 }
                                }
                            }
                            group.addTask { try await Self.probe(connection, logger: logger) }
                            defer { group.cancelAll() }
                            try await group.next()
                        }
                    }
                    listeningNow.withLockedValue { $0 = false }
                    if !Task.isCancelled { lost("the connection was closed") }
                } catch {
                    listeningNow.withLockedValue { $0 = false }
                    count.withLockedValue { $0 += 1 }
                    if !Task.isCancelled { lost(PostgresSession.reason(error)) }
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        self.task.withLockedValue { $0 = task }
    }

    /// Asks `connection` a `SELECT 1` every ``probeInterval`` until one fails (throws) or is
    /// not answered within ``probeTimeout`` (closes the connection, which fails the probe and
    /// ends its notifications); returns when cancelled.
    private static func probe(_ connection: PostgresConnection, logger: Logger) async throws {
        while true {
            try await Task.sleep(for: probeInterval)
            let deadline = Task {
                try await Task.sleep(for: probeTimeout)
                try await connection.close()
            }
            defer { deadline.cancel() }
            do {
                try await connection.query("SELECT 1", logger: logger)
            } catch {
                // Whatever failed it, the notifications are not to be trusted either.
                try? await connection.close()
                throw error
            }
        }
    }

    deinit {
        task.withLockedValue { $0?.cancel() }
    }

    func version() throws -> Int64 {
        // While no LISTEN is in place nothing can be vouched for: every call is a new version,
        // so nothing kept on an earlier one is served (and nothing waits for the connection).
        let isListening = listening.withLockedValue { $0 }
        return count.withLockedValue { count in
            if !isListening { count += 1 }
            return count
        }
    }
}
