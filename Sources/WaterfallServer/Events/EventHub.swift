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
    /// Every feed's incarnation and revision, by name, read from the database.
    private let feedVersions: @Sendable () async throws -> [String: FeedVersion]
    private let state = NIOLockedValueBox(State())

    private struct State {
        var listeners: [String: [Int: Listener]] = [:]
        var nextID = 0
        var poller: Task<Void, Never>?
        var stopped = false
    }

    /// One listener: a doorbell (a buffer of one ring, so a listener busy writing is rung once
    /// however much happens) and what it is rung for. A change is a flag beside the bell, not a
    /// value in its buffer, so a heartbeat rung after it cannot take its place.
    private struct Listener {
        let bell: AsyncStream<Void>.Continuation
        var changed = false
    }

    /// A hub over `runner`'s database, looking at it through the server's `watcher` (nil for
    /// an in-memory database: every tick may hold a change).
    convenience init(runner: ServiceRunner, watcher: (any ChangeWatcher)?) {
        self.init(
            databaseVersion: { try watcher?.version() },
            feedVersions: { try await runner.run { try await $0.feedVersions() } })
    }

    /// A hub that looks at the database through `databaseVersion` and `feedVersions`.
    init(
        databaseVersion: @escaping @Sendable () throws -> Int64?,
        feedVersions: @escaping @Sendable () async throws -> [String: FeedVersion]
    ) {
        self.databaseVersion = databaseVersion
        self.feedVersions = feedVersions
    }

    /// The signals for one listener of `feed`, until it stops iterating (or the server stops,
    /// which ends them).
    func subscribe(feed: String) -> Subscription {
        let (stream, bell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLockedValue { state in
            guard !state.stopped else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.listeners[feed, default: [:]][id] = Listener(bell: bell)
            if state.poller == nil { state.poller = Task { await self.poll() } }
            return id
        }
        guard let id else {
            bell.finish()
            return Subscription(hub: self, feed: feed, id: -1, rings: stream)
        }
        bell.onTermination = { [weak self] _ in
            self?.state.withLockedValue { state in
                state.listeners[feed]?[id] = nil
                if state.listeners[feed]?.isEmpty == true { state.listeners[feed] = nil }
            }
        }
        return Subscription(hub: self, feed: feed, id: id, rings: stream)
    }

    /// One listener's signals (``subscribe(feed:)``): iterate them from one task.
    struct Subscription: AsyncSequence, Sendable {
        typealias Element = Signal
        fileprivate let hub: EventHub
        fileprivate let feed: String
        fileprivate let id: Int
        fileprivate let rings: AsyncStream<Void>

        func makeAsyncIterator() -> Iterator {
            Iterator(subscription: self, rings: rings.makeAsyncIterator())
        }

        /// Ends these signals from any task: the iterating one sees the end after the signal
        /// it is handling (a share link's stream whose link was removed, DESIGN section 20).
        func end() {
            hub.end(feed: feed, id: id)
        }

        struct Iterator: AsyncIteratorProtocol {
            fileprivate let subscription: Subscription
            fileprivate var rings: AsyncStream<Void>.Iterator

            /// The next signal: ``Signal/changed`` when the feed changed since the last one,
            /// whatever else rang meanwhile; `nil` once the server stops.
            mutating func next() async -> Signal? {
                guard await rings.next() != nil else { return nil }
                return subscription.hub.takeSignal(feed: subscription.feed, id: subscription.id)
            }
        }
    }

    /// What listener `id` was rung for, and the change flag cleared.
    private func takeSignal(feed: String, id: Int) -> Signal {
        state.withLockedValue { state in
            guard state.listeners[feed]?[id]?.changed == true else { return .heartbeat }
            state.listeners[feed]?[id]?.changed = false
            return .changed
        }
    }

    /// Ends listener `id`'s signals.
    private func end(feed: String, id: Int) {
        let bell = state.withLockedValue { $0.listeners[feed]?[id]?.bell }
        bell?.finish()
    }

    /// Whether ``stop()`` was called: the server is shutting down.
    var isStopped: Bool { state.withLockedValue { $0.stopped } }

    /// Ends every stream and the watcher's task: the server is shutting down.
    func stop() {
        let (continuations, poller) = state.withLockedValue { state in
            let all = state.listeners.values.flatMap(\.values).map(\.bell)
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
        var versions: [String: FeedVersion] = [:]
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
            guard let latest = try? await feedVersions() else { continue }
            version = current
            // A feed moved on, removed, or removed and made anew (another incarnation, even at
            // the same revision).
            var moved = Set(latest.filter { versions[$0.key] != $0.value }.keys)
            moved.formUnion(versions.keys.filter { latest[$0] == nil })
            versions = latest
            if !moved.isEmpty { signal(.changed) { moved.contains($0) } }
        }
    }

    /// Rings every listener of the feeds `wanted` picks, for `signal`.
    func signal(_ signal: Signal, where wanted: (String) -> Bool) {
        let bells = state.withLockedValue { state in
            var bells: [AsyncStream<Void>.Continuation] = []
            for feed in state.listeners.keys where wanted(feed) {
                for id in state.listeners[feed]!.keys {
                    if signal == .changed { state.listeners[feed]![id]!.changed = true }
                    bells.append(state.listeners[feed]![id]!.bell)
                }
            }
            return bells
        }
        for bell in bells { bell.yield() }
    }
}
