import Dispatch
import NIOConcurrencyHelpers
import NIOCore

/// Hands encoded batches from a thread that reads the database (a read transaction runs on a
/// thread of its own, ``ServiceRunner/run(_:)``) to the task that writes them to a client, at
/// most `capacity` at a time, so that a stream of a million images holds a few batches in
/// memory whatever the client's speed.
///
/// Every wait ends: the reader waits for room on its own thread (never a cooperative one) for at
/// most ``patience``, and fails as soon as the writer goes away (``close()``); the writer waits
/// for the next batch, which the reader sends, or for its end.
final class BatchChannel: Sendable {
    /// How long the reader waits for a client that reads nothing before it gives up.
    static let patience: DispatchTimeInterval = .seconds(30)

    /// Why the reader stopped sending.
    enum Stop: Error {
        /// The writer went away (the client disconnected or the answer failed).
        case closed
        /// The client read nothing for ``patience``.
        case stalled
    }

    private struct State {
        var buffered: [ByteBuffer] = []
        /// Set once the reader is done: `nil` inside for a whole stream, else its failure.
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<ByteBuffer?, any Error>?
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    private let room: DispatchSemaphore
    private let patience: DispatchTimeInterval

    /// - Parameter patience: how long the reader waits for room (``patience`` by default).
    init(capacity: Int, patience: DispatchTimeInterval = BatchChannel.patience) {
        self.patience = patience
        // Made at 0 and raised: libdispatch traps when a semaphore made with a count is freed
        // below it, which a channel closed with its room taken would be.
        room = DispatchSemaphore(value: 0)
        for _ in 0..<capacity { room.signal() }
    }

    /// Sends one batch, waiting for room (on the reader's thread).
    /// - Throws: ``Stop`` when the writer is gone or the client stalled.
    func send(_ batch: ByteBuffer) throws {
        if room.wait(timeout: .now() + patience) == .timedOut { throw Stop.stalled }
        let waiter: CheckedContinuation<ByteBuffer?, any Error>? = try state.withLockedValue { state in
            if state.closed { throw Stop.closed }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffered.append(batch)
            return nil
        }
        if let waiter {
            room.signal()
            waiter.resume(returning: batch)
        }
    }

    /// Says the reader is done: `error` is `nil` when it sent everything.
    func finish(_ error: (any Error)?) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<ByteBuffer?, any Error>? in
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// The next batch, or `nil` at the end of a whole stream.
    /// - Throws: the reader's failure.
    func next() async throws -> ByteBuffer? {
        try await withCheckedThrowingContinuation { continuation in
            let answer = state.withLockedValue { state -> Result<ByteBuffer?, any Error>? in
                if !state.buffered.isEmpty { return .success(state.buffered.removeFirst()) }
                switch state.end {
                case .success: return .success(nil)
                case .failure(let error): return .failure(error)
                case nil:
                    state.waiter = continuation
                    return nil
                }
            }
            guard let answer else { return }
            if case .success(.some) = answer { room.signal() }
            continuation.resume(with: answer)
        }
    }

    /// Says the writer is gone: the reader's next ``send(_:)`` fails at once.
    func close() {
        state.withLockedValue { $0.closed = true }
        room.signal()
    }
}
