import NIOConcurrencyHelpers
import Waterfall

/// Tells the listeners of each feed's events stream when their feed moved on, whoever wrote it:
/// this server, or any other process on the same database (a `waterfall move` beside it).
///
/// One watcher for the whole server: while anyone listens, a task looks at the database's
/// version every 100 ms (``ChangeWatcher``, a few microseconds); after a commit it reads every
/// feed's revision once and wakes the listeners of the feeds whose revision changed (a read
/// that fails is tried again at the next look, until one succeeds). An idle
/// listener costs a suspended stream, nothing more; every 15 s all of them are woken for a
/// heartbeat, which keeps proxies from closing quiet streams.
final class EventHub: Sendable {
    /// What wakes a listener.
    enum Signal: Sendable {
        /// The feed's revision changed (or may have): read the change log.
        case changed
        /// Nothing happened for a while: write a comment to keep the connection open.
        case heartbeat
    }

    static let pollInterval: Duration = .milliseconds(100)
    static let heartbeatInterval: Duration = .seconds(15)

    /// The database's version (``ChangeWatcher/version()``); `nil` without a watcher (an
    /// in-memory database), when every tick may hold a change.
    private let databaseVersion: @Sendable () throws -> Int64?
    /// Every feed's revision, by name, read from the database.
    private let feedRevisions: @Sendable () async throws -> [String: Int64]
    private let state = NIOLockedValueBox(State())

    private struct State {
        var listeners: [String: [Int: AsyncStream<Signal>.Continuation]] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        var stopped = false
    }

    /// A hub over `runner`'s database, looking at it through the server's `watcher` (nil for
    /// an in-memory database: every tick may hold a change).
    convenience init(runner: ServiceRunner, watcher: (any ChangeWatcher)?) {
        self.init(
            databaseVersion: { try watcher?.version() },
            feedRevisions: { try await runner.run { try await $0.feedRevisions() } })
    }

    /// A hub that looks at the database through `databaseVersion` and `feedRevisions`.
    init(
        databaseVersion: @escaping @Sendable () throws -> Int64?,
        feedRevisions: @escaping @Sendable () async throws -> [String: Int64]
    ) {
        self.databaseVersion = databaseVersion
        self.feedRevisions = feedRevisions
    }

    /// A stream of signals for the listeners of `feed`, until the caller stops iterating (or the
    /// server stops, which finishes it).
    func subscribe(feed: String) -> AsyncStream<Signal> {
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLockedValue { state in
            guard !state.stopped else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.listeners[feed, default: [:]][id] = continuation
            if state.poller == nil { state.poller = Task { await self.poll() } }
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                state.listeners[feed]?[id] = nil
                if state.listeners[feed]?.isEmpty == true { state.listeners[feed] = nil }
            }
        }
        return stream
    }

    /// Whether ``stop()`` was called: the server is shutting down.
    var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Ends every stream and the watcher's task: the server is shutting down.
    func stop() {
        let (continuations, poller) = state.withLockedValue { state in
            let all = state.listeners.values.flatMap(\.values)
            let poller = state.poller
            state.listeners = [:]
            state.poller = nil
            state.stopped = true
            return (all, poller)
        }
        for continuation in continuations { continuation.finish() }
        poller?.cancel()
    }

    /// Watches while anyone listens.
    private func poll() async {
        // Nothing seen yet: the first look wakes every listener once, so that a commit between
        // a listener's first read of the change log and this task's start is not missed.
        var version: Int64?
        var revisions: [String: Int64] = [:]
        var sinceHeartbeat: Duration = .zero
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.pollInterval)
            sinceHeartbeat += Self.pollInterval
            let listening = state.withLockedValue { state in
                if state.listeners.isEmpty { state.poller = nil }
                return !state.listeners.isEmpty
            }
            guard listening else { return }
            if sinceHeartbeat >= Self.heartbeatInterval {
                sinceHeartbeat = .zero
                signal(.heartbeat) { _ in true }
            }
            // Without a watcher (an in-memory database), every tick may hold a change.
            let current = try? databaseVersion()
            if let current, current == version { continue }
            // The version counts as seen once the revisions are read at it (or after it): a
            // read that fails is tried again at the next tick, not left for a later commit.
            guard let latest = try? await feedRevisions() else { continue }
            version = current
            var moved = Set(latest.filter { revisions[$0.key] != $0.value }.keys)
            moved.formUnion(revisions.keys.filter { latest[$0] == nil })
            revisions = latest
            if !moved.isEmpty { signal(.changed) { moved.contains($0) } }
        }
    }

    private func signal(_ signal: Signal, where wanted: (String) -> Bool) {
        let continuations = state.withLockedValue { state in
            state.listeners.filter { wanted($0.key) }.flatMap(\.value.values)
        }
        for continuation in continuations { continuation.yield(signal) }
    }
}
