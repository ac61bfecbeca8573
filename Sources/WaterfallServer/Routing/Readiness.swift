import NIOConcurrencyHelpers
import Waterfall

/// `GET /readyz` (DESIGN section 19): whether the catalog answers and its migrations are
/// current, asked of the database at most once at a time and at most once a second, and
/// answered within ``patience`` whatever the database does.
///
/// A probe never holds a database connection of its own: the one check under way is shared by
/// every probe that comes meanwhile, and its outcome answers the probes of the next second (an
/// open route must not let anyone flood the database). A probe waits for the check at most
/// ``patience``; a check still running then goes on, unawaited, and its outcome answers later
/// probes.
final class Readiness: Sendable {
    /// How long a probe waits for the database.
    static let patience: Duration = .seconds(2)
    /// How long an outcome answers for.
    static let freshness: Duration = .seconds(1)

    /// Asks the database: `true` ready, `false` its schema behind, `nil` it cannot be read.
    private let ask: @Sendable () async -> Bool?
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// The last outcome and when it was known.
        var outcome: (ready: Bool?, at: ContinuousClock.Instant)?
        var checking = false
        /// Probes awaiting the check under way, by number.
        var waiting: [Int: CheckedContinuation<Bool?, Never>] = [:]
        /// Probes about to wait, and those of them whose patience ended before they began to.
        var announced: Set<Int> = []
        var gaveUp: Set<Int> = []
        var nextWaiter = 0
    }

    convenience init(runner: ServiceRunner) {
        self.init { try? await runner.run { try await $0.migrationsAreCurrent() } }
    }

    /// A probe that asks the database through `ask`.
    init(ask: @escaping @Sendable () async -> Bool?) {
        self.ask = ask
    }

    /// Returns when the catalog is ready.
    /// - Throws: ``Problem`` 503 with `Retry-After` when it did not answer within ``patience``,
    ///   could not be read, or its schema is older than this server's.
    func check() async throws {
        switch await outcome() {
        case true?: return
        case false?:
            throw Problem(
                .serviceUnavailable, "the catalog's schema is older than this server's; it is being migrated.",
                headers: [.retryAfter: "5"])
        case nil:
            throw Problem(
                .serviceUnavailable, "the database did not answer within \(Self.patience); try again shortly.",
                headers: [.retryAfter: "2"])
        }
    }

    /// The outcome: fresh, or the one under way's (started if none is), or `nil` past the patience.
    private func outcome() async -> Bool? {
        enum Next {
            case known(Bool?)
            case wait(Int, startsCheck: Bool)
        }
        let next: Next = state.withLockedValue { state in
            if let outcome = state.outcome, outcome.at + Self.freshness > .now { return .known(outcome.ready) }
            let id = state.nextWaiter
            state.nextWaiter += 1
            state.announced.insert(id)
            defer { state.checking = true }
            return .wait(id, startsCheck: !state.checking)
        }
        guard case .wait(let id, let startsCheck) = next else {
            if case .known(let ready) = next { return ready }
            return nil
        }
        if startsCheck {
            Task { [ask] in self.settle(await ask()) }
        }
        let timer = Task {
            guard (try? await Task.sleep(for: Self.patience)) != nil else { return }
            self.giveUp(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let settled: Bool?? = state.withLockedValue { state in
                state.announced.remove(id)
                if state.gaveUp.remove(id) != nil { return .some(nil) }
                // Settled already (the check was quick): its outcome.
                guard state.checking else { return .some(state.outcome?.ready ?? nil) }
                state.waiting[id] = continuation
                return .none
            }
            if let settled { continuation.resume(returning: settled) }
        }
    }

    /// Notes the check's outcome and answers every probe awaiting it.
    private func settle(_ ready: Bool?) {
        let waiting = state.withLockedValue { state in
            state.outcome = (ready, .now)
            state.checking = false
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume(returning: ready) }
    }

    /// Answers probe `id` with `nil` (not ready) if it still waits.
    private func giveUp(_ id: Int) {
        let continuation = state.withLockedValue { state in
            guard let continuation = state.waiting.removeValue(forKey: id) else {
                if state.announced.contains(id) { state.gaveUp.insert(id) }
                return nil as CheckedContinuation<Bool?, Never>?
            }
            return continuation
        }
        continuation?.resume(returning: nil)
    }
}
