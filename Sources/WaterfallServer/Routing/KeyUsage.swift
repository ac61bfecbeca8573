import Foundation
import NIOConcurrencyHelpers
import Waterfall

/// Writes when each API key was last used, cheaply: at most once a minute a key, as a
/// best-effort write on the server's writer thread that no request waits for (a request only
/// takes a lock to look at one date). A write that finds the database busy is dropped; the
/// next use a minute later tries again. It changes no answer, so it is not counted as the
/// server's own write (``ServiceRunner/write(_:)`` retires every kept answer; on PostgreSQL,
/// whose watcher hears other instances' commits only, that was every minute per key in use).
final class KeyUsage: Sendable {
    /// The least time between two writes of one key's last use.
    static let interval: TimeInterval = 60

    private let runner: ServiceRunner
    /// When each key's last use was last written (or tried), by name.
    private let written = NIOLockedValueBox<[String: Date]>([:])

    init(runner: ServiceRunner) {
        self.runner = runner
    }

    /// Notes that the key `name` was used at `now`.
    func note(_ name: String, at now: Date) {
        let due = written.withLockedValue { written in
            if let last = written[name], now.timeIntervalSince(last) < Self.interval { return false }
            written[name] = now
            return true
        }
        guard due else { return }
        Task { [runner] in
            _ = try? await runner.run { try await $0.recordKeyUse(named: name, at: now) }
        }
    }
}
