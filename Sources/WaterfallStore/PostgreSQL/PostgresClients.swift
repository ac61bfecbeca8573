import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO

/// PostgresNIO's two pools of a server (``PostgresPool``), the task that runs them, and the
/// connections they have lent out now.
///
/// A set that is replaced (``PostgresPool/replace(_:)``) is retired, not stopped at once:
/// stopping a PostgresNIO pool closes its lent connections too, under the transactions that use
/// them, and a set may be replaced when it was only slow to lend one (the server back, and its
/// pools still connecting). A retired set lends on to whoever
/// already waits in it, and stops once the last connection it lent comes back; a lease it then
/// refuses (`poolClosed`) is tried again on the new set. A set is never taken for stuck while
/// the server has not been reported unreachable since it was made: its pools are then merely
/// slow to connect (a machine so busy that a new connection takes seconds), and new ones would
/// only connect anew.
final class PostgresClients: Sendable {
    let readers: PostgresClient
    let writer: PostgresClient
    private let running: Task<Void, Never>
    /// Which set this is: a set is replaced once, by whoever finds it stuck first.
    let generation: Int
    /// How many times the server had been reported unreachable when the set was made
    /// (``PostgresPool/Health/outages``): a set slow to lend is looked at only after a report
    /// since, for only then may its pools be waiting out a back-off.
    let outagesWhenMade: Int
    private let lending = NIOLockedValueBox(Lending())

    private struct Lending {
        var readers = 0
        var writer = 0
        var retired = false
        var stopped = false
    }

    /// A set with `count` connections for reads and one for writes, on an event loop of its
    /// own (``PostgresSession/writerLoop``).
    init(settings: PostgresSettings, readers count: Int, generation: Int, outages: Int) {
        let readers = PostgresClient(
            configuration: settings.clientConfiguration(connections: count),
            eventLoopGroup: PostgresSession.eventLoops, backgroundLogger: PostgresSession.quietLogger)
        let writer = PostgresClient(
            configuration: settings.clientConfiguration(connections: 1),
            eventLoopGroup: PostgresSession.writerLoop, backgroundLogger: PostgresSession.quietLogger)
        self.readers = readers
        self.writer = writer
        self.generation = generation
        outagesWhenMade = outages
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

    /// Stops both pools (PostgresNIO's pool closes every connection, lent or not), and returns
    /// the task that runs them, which ends once they have.
    @discardableResult
    func stop() -> Task<Void, Never> {
        lending.withLockedValue { $0.stopped = true }
        running.cancel()
        return running
    }
}
