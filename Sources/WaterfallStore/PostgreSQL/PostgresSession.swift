import Foundation
import Logging
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
/// calling thread, except those of an answer read without blocking
/// (``CatalogStore/readWithoutBlocking(_:)``), which are awaited.
///
/// The statements a request runs (``PostgresRequestStatement``) are prepared once per
/// connection of a server's pool and executed by name afterwards: the server parses and plans
/// each of them once per connection, not once per request (as GRDB's `cachedStatement` on
/// SQLite).
///
/// The store's synchronous callers are never on an event loop: a command runs on the main
/// thread, the server runs the service on its own thread pool (never Swift's cooperative pool),
/// and the connections' I/O runs on PostgresNIO's event loops. A read without blocking awaits
/// its statements on the request's own task instead. One session is used by one transaction
/// at a time: a connection leased from the catalog's ``PostgresPool``, or (for the migrations)
/// one of its own.
final class PostgresSession: @unchecked Sendable {
    let connection: PostgresConnection
    let settings: PostgresSettings
    private let logger: Logger
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

    private init(connection: PostgresConnection, settings: PostgresSettings, logger: Logger, ownsConnection: Bool, preparesStatements: Bool) {
        self.connection = connection
        self.settings = settings
        self.logger = logger
        self.ownsConnection = ownsConnection
        self.preparesStatements = preparesStatements
    }

    /// A session on a connection leased from a pool, which the pool closes, not the session.
    static func leased(_ connection: PostgresConnection, _ settings: PostgresSettings) -> PostgresSession {
        PostgresSession(connection: connection, settings: settings, logger: quietLogger, ownsConnection: false, preparesStatements: true)
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
            return PostgresSession(connection: connection, settings: settings, logger: quietLogger, ownsConnection: true, preparesStatements: false)
        } catch let error as PSQLError where error.code == .connectionError {
            throw StoreError(.cannotOpen, "\(settings.displayName): no PostgreSQL server answers at \(settings.host):\(settings.port).")
        } catch {
            throw StoreError(.cannotOpen, "\(settings.displayName): cannot connect: \(Self.reason(error)).")
        }
    }

    /// Runs `sql` with `values` bound to `$1…` and returns its rows.
    func rows(_ sql: String, _ values: PostgresValue...) throws -> [PostgresRow] {
        try run(sql, values).rows
    }

    /// Runs `sql` with `values` bound to `$1…` and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ values: PostgresValue...) throws -> Int {
        try run(sql, values).metadata.rows ?? 0
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
    func rows<Statement: PostgresRequestStatement>(_ statement: Statement.Type, _ values: PostgresValue...) throws -> [PostgresRow] {
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
    func rowsWithoutBlocking<Statement: PostgresRequestStatement>(_ statement: Statement.Type, _ values: PostgresValue...) async throws -> [PostgresRow] {
        try await preparedWithoutBlocking(statement, values)
    }

    /// Runs `sql` (`BEGIN`, `COMMIT`), waiting for its answer without blocking a thread.
    func executeWithoutBlocking(_ sql: String) async throws {
        _ = try await query(sql, []).get()
    }

    private func prepared<Statement: PostgresRequestStatement>(_ statement: Statement.Type, _ values: [PostgresValue]) throws -> [PostgresRow] {
        guard preparesStatements else { return try run(Statement.sql, values).rows }
        let answer = connection.eventLoop.makePromise(of: [PostgresRow].self)
        // postgres-nio runs prepared statements from async code only. The task that does it
        // runs on the connection's event loop, never on Swift's cooperative threads, which a
        // synchronous caller (a test, a command) may be the one occupying.
        Task(executorPreference: EventLoopTaskExecutor.on(connection.eventLoop)) {
            do {
                answer.succeed(try await self.preparedWithoutBlocking(statement, values))
            } catch {
                answer.fail(error)
            }
        }
        return try answer.futureResult.wait()
    }

    private func preparedWithoutBlocking<Statement: PostgresRequestStatement>(
        _ statement: Statement.Type, _ values: [PostgresValue]
    ) async throws -> [PostgresRow] {
        guard preparesStatements else { return try await query(Statement.sql, values).get().rows }
        var rows: [PostgresRow] = []
        let prepared = PreparedRequestStatement<Statement>(bindings: Self.bindings(values))
        for try await row in try await connection.execute(prepared, logger: logger) { rows.append(row) }
        return rows
    }

    private func run(_ sql: String, _ values: [PostgresValue]) throws -> PostgresQueryResult {
        try query(sql, values).wait()
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
        case .serverClosedConnection, .connectionError, .uncleanShutdown, .poolClosed, .clientClosedConnection: return true
        default: return false
        }
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
                self.init(.cannotWrite, "\(location): the connection to PostgreSQL failed (\(reason)); nothing was written.")
            }
            return
        }
        switch state {
        case "57P01", "57P02", "57P03":
            // Shut down, crashed, or starting up: back in a moment.
            self.init(.unavailable, "\(location): PostgreSQL cannot be reached (\(reason)); try again in a moment.")
        case "55P03", "40001", "40P01", "57014":
            self.init(.busy, "\(location): another writer kept the catalog locked for more than \(Int(SQLiteCatalog.busyTimeout)) seconds; nothing was written.")
        case "53100":
            self.init(.diskFull, "\(location): the database server's disk is full; nothing was written.")
        case "25006", "42501":
            self.init(.cannotWrite, "\(location): the database cannot be written (\(reason)); nothing was written.")
        case let state where state.hasPrefix("23"):
            self.init(.invalidRequest, "\(location): the change breaks a rule of the catalog (\(reason)); nothing was written.")
        case let state where state.hasPrefix("08") || state.hasPrefix("57"):
            self.init(.cannotWrite, "\(location): the connection to PostgreSQL failed (\(reason)); nothing was written.")
        default:
            self.init(.cannotWrite, "\(location): PostgreSQL error \(state) (\(reason)); nothing was written.")
        }
    }
}
