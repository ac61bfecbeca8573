import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// A value bound to a statement's `$n` parameter.
enum PostgresValue {
    case int(Int64)
    /// An integer, or SQL NULL.
    case optionalInt(Int64?)
    case int32(Int32)
    case text(String?)
    case bool(Bool)
    case double(Double)
    case bytes([UInt8])
    case ints([Int64])
    case int32s([Int32])
    case texts([String])
    case bools([Bool])
    case doubles([Double])
    case byteas([ByteBuffer])

    /// Appends the value to an unnamed statement's bindings.
    func bind(to binds: inout PostgresBindings) {
        switch self {
        case .int(let int): binds.append(int)
        case .optionalInt(let int?): binds.append(int)
        case .optionalInt(nil): binds.appendNull()
        case .int32(let int): binds.append(int)
        case .text(let text): binds.append(text)
        case .bool(let bool): binds.append(bool)
        case .double(let double): binds.append(double)
        case .bytes(let bytes): binds.append(ByteBuffer(bytes: bytes))
        case .ints(let ints): binds.append(ints)
        case .int32s(let ints): binds.append(ints)
        case .texts(let texts): binds.append(texts)
        case .bools(let bools): binds.append(bools)
        case .doubles(let doubles): binds.append(doubles)
        case .byteas(let buffers): binds.append(buffers)
        }
    }
}

/// One PostgreSQL connection: every statement is sent through PostgresNIO and waited for on the
/// calling thread (one of ``BlockingThreads``), except those of an answer from a kept feed
/// (``CatalogStore/readAwaitingStatements(_:)``), which are awaited.
///
/// The statements a request runs (``PostgresRequestStatement``) are prepared once per
/// connection of a server's pool and executed by name afterwards: the server parses and plans
/// each of them once per connection, not once per request (as GRDB's `cachedStatement` on
/// SQLite).
///
/// The threads that wait are never an event loop nor one of Swift's cooperative threads: a
/// transaction's body runs on a thread of ``BlockingThreads``
/// (``PostgresPool/withSession(writer:_:)``), the migrations on the thread that opens the
/// catalog, and the connections' I/O on PostgresNIO's event loops. A read of a kept feed awaits
/// its statements on the request's own task instead. One session is used by one transaction at
/// a time: a connection leased from the catalog's ``PostgresPool``, or (for the migrations) one
/// of its own.
///
/// Every statement's answer is waited for until its deadline (``StatementDeadlines``), never
/// longer: then the connection is closed and taken for broken, and the statement and every
/// later one of the session fail as `unavailable`.
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    let settings: PostgresSettings
    private let logger: Logger
    /// How many times the session's pool has heard that the server cannot be reached
    /// (``PostgresPool/markDown(_:)``): a long statement that began before a new report is given
    /// up sooner. Always 0 for a connection of its own.
    private let outages: @Sendable () -> Int
    /// Why the connection was given up, once a statement outlived its deadline.
    private let broken = NIOLockedValueBox<StoreError?>(nil)
    /// Whether the session opened its connection (and so closes it), rather than leasing it
    /// from a server's pool, which closes its own.
    private let ownsConnection: Bool
    /// Whether request statements are prepared: on a server's connections, which run them
    /// again and again; not on a command's one connection, which runs each once or a few
    /// times, since preparing one costs a round trip of its own.
    private let preparesStatements: Bool

    /// The event loops every connection of the process runs on (created on first use), but for
    /// a server's write connection.
    static let eventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    /// The event loop of a server's write connection, a thread of its own: the loops above also
    /// run the HTTP server and every read, and a write's statements, each a hop to its
    /// connection's loop, would queue behind all of that (moves slowed to 14 a second under
    /// 64 readers of a deep page).
    static let writerLoop: any EventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    private init(
        connection: PostgresConnection, settings: PostgresSettings, logger: Logger, ownsConnection: Bool,
        preparesStatements: Bool,
        outages: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.connection = connection
        self.settings = settings
        self.logger = logger
        self.ownsConnection = ownsConnection
        self.preparesStatements = preparesStatements
        self.outages = outages
    }

    /// A session on a connection leased from a pool, which the pool closes, not the session
    /// (but for a connection given up at a statement's deadline, which the pool then replaces).
    /// - Parameter outages: the pool's count of reports that the server cannot be reached.
    static func leased(
        _ connection: PostgresConnection, _ settings: PostgresSettings, outages: @escaping @Sendable () -> Int
    ) -> PostgresSession {
        PostgresSession(
            connection: connection, settings: settings, logger: quietLogger, ownsConnection: false,
            preparesStatements: true, outages: outages)
    }

    /// Whether a statement outlived its deadline: the connection is closed, and takes no more.
    var isBroken: Bool {
        broken.withLockedValue { $0 != nil }
    }

    /// The logger of the store's connections: PostgresNIO's own messages are not the user's.
    static let quietLogger: Logger = {
        var logger = Logger(label: "waterfall.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Connects with `settings`.
    /// - Throws: ``StoreError`` `cannotOpen` with the server's reason.
    static func connect(_ settings: PostgresSettings) throws(StoreError) -> PostgresSession {
        let configuration = try settings.configuration()
        do {
            let connection = try PostgresConnection.connect(
                on: eventLoops.next(), configuration: configuration, id: 1, logger: quietLogger
            ).wait()
            return PostgresSession(
                connection: connection, settings: settings, logger: quietLogger, ownsConnection: true,
                preparesStatements: false)
        } catch let error as PSQLError where error.code == .connectionError {
            throw StoreError(
                .cannotOpen,
                "\(settings.displayName): no PostgreSQL server answers at \(settings.host):\(settings.port).")
        } catch {
            throw StoreError(.cannotOpen, "\(settings.displayName): cannot connect: \(Self.reason(error)).")
        }
    }

    /// Runs `sql` with `values` bound to `$1…` and returns its rows.
    func rows(_ sql: String, _ values: PostgresValue...) throws -> [PostgresRow] {
        try run(sql, values).rows
    }

    /// Runs `sql` with `values` bound to `$1…` and returns how many rows it changed; its answer is
    /// waited for as long as `length` allows (``StatementDeadlines``).
    @discardableResult
    func execute(_ sql: String, _ values: PostgresValue..., length: StatementLength = .brief) throws -> Int {
        try run(sql, values, length).metadata.rows ?? 0
    }

    /// Runs `sql` with `values`; the first column of its first row, if any.
    func scalar<T: PostgresDecodable>(_ type: T.Type, _ sql: String, _ values: PostgresValue...) throws -> T? {
        guard let row = try run(sql, values).rows.first else { return nil }
        return try row.decode(T.self)
    }

    /// Runs the statement a request runs (``PostgresRequestStatement``) with `values` bound to
    /// `$1…`, prepared on this connection the first time and executed by name afterwards, and
    /// returns its rows.
    /// On a connection of the session's own (a command's), it runs as a one-off statement.
    func rows<Statement: PostgresRequestStatement>(_ statement: Statement.Type, _ values: PostgresValue...) throws
        -> [PostgresRow]
    {
        try prepared(statement, values)
    }

    /// Runs a request's statement like ``rows(_:_:)-(Statement.Type,_)``; the first column of its
    /// first row, if any.
    func scalar<T: PostgresDecodable, Statement: PostgresRequestStatement>(
        _ type: T.Type, _ statement: Statement.Type, _ values: PostgresValue...
    ) throws -> T? {
        guard let row = try prepared(statement, values).first else { return nil }
        return try row.decode(T.self)
    }

    /// Runs a request's statement like ``rows(_:_:)-(Statement.Type,_)``, waiting for its answer
    /// without blocking a thread.
    func rowsAwaitingAnswer<Statement: PostgresRequestStatement>(
        _ statement: Statement.Type, _ values: PostgresValue...
    ) async throws -> [PostgresRow] {
        try await preparedAwaitingAnswer(statement, values)
    }

    /// Runs `sql` (`BEGIN`, `COMMIT`), waiting for its answer without blocking a thread.
    func executeAwaitingAnswer(_ sql: String) async throws {
        _ = try await send(sql).get()
    }

    /// Sends `sql` (`BEGIN`, `COMMIT`) and returns at once with its answer to come (within its
    /// deadline, as every statement's). The connection answers its statements in the order
    /// they were sent, so one sent after it runs after it, with no wait for its answer between.
    func send(_ sql: String) -> EventLoopFuture<PostgresQueryResult> {
        answer(.brief) { query(sql, []) }
    }

    private func prepared<Statement: PostgresRequestStatement>(_ statement: Statement.Type, _ values: [PostgresValue])
        throws -> [PostgresRow]
    {
        try preparedAnswer(statement, values).wait()
    }

    private func preparedAwaitingAnswer<Statement: PostgresRequestStatement>(
        _ statement: Statement.Type, _ values: [PostgresValue]
    ) async throws -> [PostgresRow] {
        try await preparedAnswer(statement, values).get()
    }

    /// The rows of a request's statement, prepared on this connection the first time (on a
    /// server's connections), within the statement's deadline.
    private func preparedAnswer<Statement: PostgresRequestStatement>(
        _ statement: Statement.Type, _ values: [PostgresValue]
    ) -> EventLoopFuture<[PostgresRow]> {
        guard preparesStatements else { return answer(Statement.length) { query(Statement.sql, values) }.map(\.rows) }
        return answer(Statement.length) { [self] in
            let rows = connection.eventLoop.makePromise(of: [PostgresRow].self)
            // postgres-nio runs prepared statements from async code only. The task that does it
            // runs on the connection's event loop, never on Swift's cooperative threads, which a
            // synchronous caller (a test, a command) may be the one occupying; and it is not the
            // caller's task, so that the deadline ends the caller's wait even if postgres-nio
            // never ends this one.
            Task(executorPreference: EventLoopTaskExecutor.on(connection.eventLoop)) {
                do {
                    var received: [PostgresRow] = []
                    let prepared = PreparedRequestStatement<Statement>(bindings: Self.bindings(values))
                    for try await row in try await self.connection.execute(prepared, logger: self.logger) {
                        received.append(row)
                    }
                    rows.succeed(received)
                } catch {
                    rows.fail(error)
                }
            }
            return rows.futureResult
        }
    }

    private func run(_ sql: String, _ values: [PostgresValue], _ length: StatementLength = .brief) throws
        -> PostgresQueryResult
    {
        try answer(length) { query(sql, values) }.wait()
    }

    /// The answer of the statement `send` sends, or, once the statement has waited past its
    /// deadline (``StatementDeadlines``), the failure `unavailable`, the connection closed and
    /// the session broken. Fails at once, sending nothing, on a broken session.
    ///
    /// The deadline is kept on the connection's event loop, so the answer settles in time
    /// whatever becomes of the statement's own future (a connection that died without a word
    /// may never complete it, even once closed).
    private func answer<T: Sendable>(_ length: StatementLength, _ send: () -> EventLoopFuture<T>) -> EventLoopFuture<T>
    {
        let loop = connection.eventLoop
        if let failure = broken.withLockedValue({ $0 }) { return loop.makeFailedFuture(failure) }
        let deadlines = settings.deadlines
        let limit = deadlines.limit(length)
        let end = NIODeadline.now() + limit
        let outagesBefore = outages()
        let answer = loop.makePromise(of: T.self)
        let settled = NIOLockedValueBox(false)
        /// Whether the caller is the first to settle the answer (it then settles it alone).
        @Sendable func claim() -> Bool {
            settled.withLockedValue { done in
                defer { done = true }
                return !done
            }
        }
        let sent = send()
        let watch = loop.scheduleRepeatedTask(initialDelay: deadlines.brief, delay: deadlines.brief) { [self] watch in
            guard !settled.withLockedValue({ $0 }) else { return watch.cancel() }
            let expired = NIODeadline.now() >= end
            guard expired || outages() != outagesBefore else { return }
            watch.cancel()
            guard claim() else { return }
            let reason =
                expired
                ? "no answer to a statement within \(Self.seconds(limit)) s"
                : "no answer to a statement begun before the server was reported unreachable"
            let failure = StoreError(
                .unavailable,
                "\(settings.displayName): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
            broken.withLockedValue { $0 = failure }
            // PostgresNIO fails what is pending on the connection, and a pool replaces it.
            let _: EventLoopFuture<Void> = connection.close()
            answer.fail(failure)
        }
        sent.whenComplete { result in
            guard claim() else { return }
            watch.cancel()
            answer.completeWith(result)
        }
        return answer.futureResult
    }

    /// `time` in seconds, as a message says it: "5", "0.5".
    private static func seconds(_ time: TimeAmount) -> String {
        let milliseconds = time.nanoseconds / 1_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    private func query(_ sql: String, _ values: [PostgresValue]) -> EventLoopFuture<PostgresQueryResult> {
        connection.query(PostgresQuery(unsafeSQL: sql, binds: Self.bindings(values)), logger: logger)
    }

    private static func bindings(_ values: [PostgresValue]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values { value.bind(to: &binds) }
        return binds
    }

    /// Closes a connection of its own (best effort); nothing may be sent on it afterwards.
    func close() {
        if ownsConnection && !connection.isClosed { try? connection.close().wait() }
    }

    /// A connection is closed before it goes (PostgresNIO requires it).
    deinit {
        close()
    }

    /// What went wrong, in the server's words where it said any.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }

    /// Whether `error` is the loss of the connection, or a failure to make one: nothing the
    /// request did, and gone once the server answers again.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .connectionError, .uncleanShutdown, .poolClosed, .clientClosedConnection:
            return true
        default: return false
        }
    }

    /// Whether `error` is PostgresNIO's pool refusing a lease because it was shut down.
    static func isPoolClosed(_ error: any Error) -> Bool {
        (error as? PSQLError)?.code == .poolClosed
    }

    /// The SQLSTATE of a server error, or nil.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

extension StoreError {
    /// Turns a PostgreSQL failure into one sentence and a kind a front end can map to an exit
    /// status (the SQLSTATE classes of https://www.postgresql.org/docs/current/errcodes-appendix.html).
    init(postgresError error: any Error, location: String) {
        let reason = PostgresSession.reason(error)
        guard let state = PostgresSession.sqlState(error) else {
            if PostgresSession.isConnectionLoss(error) {
                self.init(.unavailable, "\(location): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
            } else {
                self.init(
                    .cannotWrite, "\(location): the connection to PostgreSQL failed (\(reason)); nothing was written.")
            }
            return
        }
        switch state {
        case "57P01", "57P02", "57P03":
            // Shut down, crashed, or starting up: back in a moment.
            self.init(.unavailable, "\(location): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
        case "55P03", "40001", "40P01", "57014":
            self.init(
                .busy,
                "\(location): another writer kept the catalog locked for more than \(Int(SQLiteCatalog.busyTimeout)) seconds; nothing was written."
            )
        case "53100":
            self.init(.diskFull, "\(location): the database server's disk is full; nothing was written.")
        case "25006", "42501":
            self.init(.cannotWrite, "\(location): the database cannot be written (\(reason)); nothing was written.")
        case let state where state.hasPrefix("23"):
            self.init(
                .invalidRequest,
                "\(location): the change breaks a rule of the catalog (\(reason)); nothing was written.")
        case let state where state.hasPrefix("08") || state.hasPrefix("57"):
            self.init(
                .cannotWrite, "\(location): the connection to PostgreSQL failed (\(reason)); nothing was written.")
        default:
            self.init(.cannotWrite, "\(location): PostgreSQL error \(state) (\(reason)); nothing was written.")
        }
    }
}
