import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// ``ChangeWatcher`` on PostgreSQL: counts the `waterfall_commit` notifications that every
/// write transaction of every instance sends (see ``PostgresCatalog``), on a connection of its
/// own that LISTENs from a task of its own. ``version()`` only reads the count: it never waits
/// for the server, so a caller on Swift's cooperative threads never blocks.
///
/// A notification reaches another instance a moment after the commit, so ``seesCommitsAtOnce``
/// is false: a server that keeps answers over PostgreSQL serves, for that moment, the answer
/// from before another instance's commit (DESIGN section 12; its own commits it counts itself).
/// While the connection is down every ``version()`` is a new one, so that nothing is kept or
/// served from what was kept until it is back; each time it is made again the count moves on
/// (commits may have been missed), and the task reconnects every second.
final class PostgresChangeWatcher: ChangeWatcher, Sendable {
    /// The channel every write transaction notifies.
    static let channel = "waterfall_commit"

    private let count = NIOLockedValueBox<Int64>(0)
    /// Whether the LISTEN is in place now.
    private let listening = NIOLockedValueBox(false)
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    var seesCommitsAtOnce: Bool { false }

    /// Starts listening, and returns once the first LISTEN is in place (or after 5 seconds,
    /// when the server cannot be reached; the task goes on trying).
    init(settings: PostgresSettings) throws(StoreError) {
        let configuration = try settings.configuration()
        let listening = DispatchSemaphore(value: 0)
        let count = self.count
        let listeningNow = self.listening
        let task = Task.detached {
            var logger = Logger(label: "waterfall.postgres.watcher")
            logger.logLevel = .critical
            var first = true
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        on: PostgresSession.eventLoops.next(), configuration: configuration, id: 2, logger: logger)
                    defer { Task { try? await connection.close() } }
                    try await connection.listen(on: Self.channel) { notifications in
                        count.withLockedValue { $0 += 1 }
                        listeningNow.withLockedValue { $0 = true }
                        if first {
                            first = false
                            listening.signal()
                        }
                        for try await _ in notifications { count.withLockedValue { $0 += 1 } }
                    }
                    listeningNow.withLockedValue { $0 = false }
                } catch {
                    listeningNow.withLockedValue { $0 = false }
                    count.withLockedValue { $0 += 1 }
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        self.task.withLockedValue { $0 = task }
        _ = listening.wait(timeout: .now() + 5)
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
