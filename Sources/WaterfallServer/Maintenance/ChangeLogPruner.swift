import Foundation
import Logging
import Waterfall

/// Keeps every feed's change log within `serve --keep-changes` (DESIGN section 16): once when
/// the server starts, then every minute, it prunes what the retention no longer keeps, as a
/// best-effort write on the server's writer thread that no request waits for (a batch that
/// finds the database held by another writer for more than 0.1 s is left for the next round).
/// A round that prunes nothing writes nothing; one that prunes retires the kept answers, as
/// any write of this server does, since a `changes` answer may now be a 410.
struct ChangeLogPruner: Sendable {
    /// The time between two rounds.
    static let interval: Duration = .seconds(60)

    let runner: ServiceRunner
    let retention: ChangeRetention
    let logger: Logger

    /// Prunes until the task is cancelled.
    func run() async {
        while !Task.isCancelled {
            do {
                let retention = retention
                try await runner.maintain { try await $0.pruneChanges(keeping: retention) > 0 }
            } catch {
                logger.warning("pruning the change log failed, to be tried again in a minute: \(error)")
            }
            try? await Task.sleep(for: Self.interval)
        }
    }
}
