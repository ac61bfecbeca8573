import Foundation
import Synchronization
import Testing

/// A suite trait for tests that park the thread they run on: they wait for a `waterfall`
/// process or `psql` to exit, call the store's synchronous door, sleep, or wait on a
/// semaphore; and for tests with real-time bounds, which must not wait for a thread that
/// others have parked.
///
/// Swift's cooperative pool has one thread per core, two on the CI machine. A test that parks
/// one of them for seconds leaves every other test in the process (servers, PostgreSQL
/// clients, awaited reads with real-time bounds) one thread, or none; a loaded full run then
/// failed tests that pass alone. Under this trait each test runs on ``OwnThreadsExecutor``
/// (its child tasks too: a task executor preference is inherited by structured tasks), so
/// parking costs only the test's own thread.
///
/// Suites that start processes or open PostgreSQL catalogs take turns in a ``Lane``, so that a
/// hundred such tests do not start a hundred processes, or open hundreds of connections, at
/// once (the cooperative pool used to bound them, by being parked). A test awaits its turn; it
/// never parks for it.
public struct OnOwnThreads: SuiteTrait, TestTrait, TestScoping {
    /// Tests that take turns with each other.
    public enum Lane: Sendable {
        /// Tests that start `waterfall` processes: two at a time.
        case processes
        /// Tests of both engines that open PostgreSQL catalogs: four at a time.
        case database

        var turns: Turns {
            switch self {
            case .processes: OnOwnThreads.processTurns
            case .database: OnOwnThreads.databaseTurns
            }
        }
    }

    /// The lane the suite's tests take turns in, or `nil` when they run as they come.
    let lane: Lane?

    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await lane?.turns.take()
        defer { lane?.turns.giveBack() }
        try await withTaskExecutorPreference(OwnThreadsExecutor.shared) { try await function() }
    }

    fileprivate static let processTurns = Turns(count: 2)
    fileprivate static let databaseTurns = Turns(count: 4)
}

extension Trait where Self == OnOwnThreads {
    /// Runs each test of the suite on threads of its own as it comes (``OnOwnThreads``).
    public static var onOwnThreads: Self { OnOwnThreads(lane: nil) }

    /// Runs each test of the suite on threads of its own, taking turns in `lane` with the
    /// other suites of the lane (``OnOwnThreads``).
    public static func onOwnThreads(lane: OnOwnThreads.Lane) -> Self { OnOwnThreads(lane: lane) }
}

/// A task executor that runs each job on a thread of its own pool, starting a new thread
/// whenever every thread it has is busy or parked, so a job never waits behind a parked one.
/// Threads it no longer needs wait for the next job.
public final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = OwnThreadsExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var first = 0
    private var waiting = 0

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // A waiting thread is woken for each job that a waiting thread can take; past that,
        // a new thread takes it.
        let queued = jobs.count - first
        if waiting >= queued {
            condition.signal()
        } else {
            let thread = Thread { [self] in work() }
            thread.name = "waterfall-tests-own-thread"
            thread.start()
        }
        condition.unlock()
    }

    private func work() {
        condition.lock()
        while true {
            if first < jobs.count {
                let job = jobs[first]
                first += 1
                if first == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    first = 0
                }
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
            } else {
                waiting += 1
                condition.wait()
                waiting -= 1
            }
        }
    }
}

/// A count of turns awaited in order of asking: `take()` suspends the task (never the thread)
/// until a turn is free, and `giveBack()` hands the turn to the longest waiter.
final class Turns: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(count: Int) { state = Mutex(State(free: count)) }

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func giveBack() {
        let next = state.withLock { state in
            if state.waiters.isEmpty {
                state.free += 1
                return nil as CheckedContinuation<Void, Never>?
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
