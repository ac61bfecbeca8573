import Dispatch
import Synchronization

/// Runs an asynchronous body to its end on the calling thread: a connection's own thread
/// inside its read transaction (GRDB's queue, or a thread of ``BlockingThreads`` holding a
/// command's PostgreSQL connection), never one of Swift's cooperative threads. The body's task
/// prefers this executor, so every part of it runs here, between the transaction's `BEGIN` and
/// `COMMIT`; the calling thread runs each part as it is enqueued (a part resumed by an answer
/// from PostgreSQL's event loop too) and returns when the body has ended.
///
/// This is how the engines supply ``CatalogPageReads`` where a transaction is a thread's
/// (``CatalogStore/readAwaitingStatements(_:)``): SQLite's statements answer at once, so its
/// bodies never wait; a command's PostgreSQL connection waits here for each answer, as its
/// synchronous transactions do. A body that awaited anything but its statements would hold the
/// thread meanwhile: the readers of a kept feed await its tasks outside their transactions.
final class TransactionPump: TaskExecutor {
    /// The parts enqueued and not run yet, and whether the body has ended.
    private let state = Mutex((jobs: [UnownedJob](), ended: false))
    /// Signalled once for each part enqueued, and once when the body ends.
    private let signals = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        state.withLock { $0.jobs.append(job) }
        signals.signal()
    }

    /// `body`'s result, every part of it run on the calling thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let pump = TransactionPump()
        let result = Mutex<Result<T, any Error>?>(nil)
        Task(executorPreference: pump) {
            let outcome: Result<T, any Error>
            do {
                outcome = .success(try await body())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            pump.end()
        }
        pump.runUntilEnded()
        // Set before the body's end is signalled.
        return try result.withLock { $0! }.get()
    }

    private func end() {
        state.withLock { $0.ended = true }
        signals.signal()
    }

    /// Runs each part as it comes, until the body has ended.
    private func runUntilEnded() {
        while true {
            signals.wait()
            let (job, ended) = state.withLock { state in
                (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.ended)
            }
            if let job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if ended {
                return
            }
        }
    }
}
