import NIOCore
import PostgresNIO

/// A statement the store runs for requests (a page, a move): prepared on each connection of a
/// server's pool the first time that connection runs it, then executed by name, so that the
/// server parses and plans it once per connection rather than once per request. A command's
/// own connection runs it as a one-off statement (``PostgresSession``).
///
/// Each is a caseless enum in ``PostgresStatement`` holding its SQL; postgres-nio keeps track
/// of which connection has prepared which, by the statement's name (the enum's). A prepared
/// statement's parameter types are the server's inference from the SQL (a column compared with
/// `$1` gives `$1` its type), so the SQL must leave none to guessing.
protocol PostgresRequestStatement: Sendable {
    static var sql: String { get }
    /// What the statement may take, which sets its deadline (``StatementDeadlines``).
    static var length: StatementLength { get }
}

extension PostgresRequestStatement {
    /// A request's statement reads or writes a handful of rows.
    static var length: StatementLength { .brief }
}

/// A request statement with its values, as postgres-nio runs it; rows are decoded by the caller.
struct PreparedRequestStatement<Statement: PostgresRequestStatement>: PostgresPreparedStatement {
    typealias Row = PostgresRow
    /// Unique per statement: the enums of ``PostgresStatement`` have distinct names.
    static var name: String { "waterfall." + String(describing: Statement.self) }
    static var sql: String { Statement.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// Runs a task's jobs on one event loop: a task that only waits for a connection's answers
/// needs no other thread, and must not need one of Swift's cooperative threads, which
/// synchronous callers blocked on its answer may all be occupying.
///
/// One executor per event loop of ``PostgresSession/eventLoops`` and
/// ``PostgresSession/writerLoop``, made once (``on(_:)``): a statement or a lease asks for its
/// loop's, and allocates none.
final class EventLoopTaskExecutor: TaskExecutor {
    private let loop: any EventLoop

    private init(_ loop: any EventLoop) {
        self.loop = loop
    }

    /// The executors of the loops every connection runs on, one each.
    private static let executors = [PostgresSession.eventLoops, PostgresSession.writerLoop].flatMap { group in
        group.makeIterator().map(EventLoopTaskExecutor.init)
    }

    /// The executor of `loop`, one of ``PostgresSession/eventLoops`` or ``PostgresSession/writerLoop``.
    static func on(_ loop: any EventLoop) -> EventLoopTaskExecutor {
        executors.first { $0.loop === loop } ?? EventLoopTaskExecutor(loop)
    }

    /// The executor of a loop of ``PostgresSession/eventLoops``, each in turn.
    static func next() -> EventLoopTaskExecutor {
        on(PostgresSession.eventLoops.next())
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }
}
