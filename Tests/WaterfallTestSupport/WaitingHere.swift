import Dispatch
import Synchronization

/// Runs `body` to its end from synchronous code on a thread that may wait: a store
/// transaction's body (GRDB's queue, a PostgreSQL catalog's thread), never one of Swift's
/// cooperative threads. For tests that commit through a second store in the middle of a read.
public func waitingHere<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    Task {
        let outcome = await Result(awaiting: body)
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}

extension Result where Failure == any Error {
    /// The result of awaiting `body`.
    public init(awaiting body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
