import Foundation
import NIOConcurrencyHelpers
import Testing
import Waterfall

@testable import WaterfallServer

/// The server's one watcher of feeds' revisions for event streams (``EventHub``).
@Suite struct EventHubTests {
    /// Fault 10 of issue 37: the hub took a new database version as seen before it had read the
    /// revisions at it; when that read failed (the database away for a moment), the feed's
    /// listeners heard nothing of the commit until another one came. The read is tried again.
    @Test func aCommitWhoseRevisionsCouldNotBeReadIsSignalledOnceTheyCanBe() async throws {
        let database = NIOLockedValueBox((version: Int64(1), revisions: ["f": Int64(1)], failing: false))
        let hub = EventHub(
            databaseVersion: { database.withLockedValue { $0.version } },
            feedVersions: {
                try database.withLockedValue { state in
                    if state.failing { throw CancellationError() }
                    return state.revisions.mapValues { FeedVersion(incarnation: 1, revision: $0) }
                }
            })
        defer { hub.stop() }
        let listener = ChangeCounter(hub.subscribe(feed: "f"))
        defer { listener.stop() }
        func heard(_ count: Int) async throws -> Bool { try await listener.heard(count) }
        // The first look wakes every listener once
        #expect(try await heard(1))

        // A commit, whose revisions cannot be read for a while
        database.withLockedValue { $0 = (2, ["f": 2], true) }
        try await Task.sleep(for: .milliseconds(500))
        #expect(listener.count == 1)
        database.withLockedValue { $0.failing = false }

        // Heard once they can be, with no other commit
        #expect(try await heard(2), "the listener never heard of the commit")
    }

    /// Issue 50, fault 6: a listener's pending change was a value in a buffer of one, which the
    /// heartbeat rung after it replaced: the last commit of a burst was never delivered to a
    /// listener busy writing. The change is now a flag beside the bell.
    @Test func aHeartbeatDoesNotTakeThePlaceOfAPendingChange() async throws {
        let hub = EventHub(databaseVersion: { 1 }, feedVersions: { [:] })
        defer { hub.stop() }
        var signals = hub.subscribe(feed: "f").makeAsyncIterator()
        // The listener is busy (not iterating) while a change and then a heartbeat ring.
        hub.signal(.changed) { $0 == "f" }
        hub.signal(.heartbeat) { _ in true }
        #expect(await signals.next() == .changed)
        // And a heartbeat alone is a heartbeat.
        hub.signal(.heartbeat) { _ in true }
        #expect(await signals.next() == .heartbeat)
    }

    /// Issue 50, fault 6: the hub compared revisions alone, so a feed removed and made anew
    /// within one look, at the same revision, woke no listener. It compares incarnations too.
    @Test func aFeedMadeAnewAtTheSameRevisionWakesItsListeners() async throws {
        let incarnation = NIOLockedValueBox(Int64(1))
        let version = NIOLockedValueBox(Int64(1))
        let hub = EventHub(
            databaseVersion: { version.withLockedValue { $0 } },
            feedVersions: { ["f": FeedVersion(incarnation: incarnation.withLockedValue { $0 }, revision: 1)] })
        defer { hub.stop() }
        let listener = ChangeCounter(hub.subscribe(feed: "f"))
        defer { listener.stop() }
        func heard(_ count: Int) async throws -> Bool { try await listener.heard(count) }
        #expect(try await heard(1))
        incarnation.withLockedValue { $0 = 2 }
        version.withLockedValue { $0 = 2 }
        #expect(try await heard(2), "a feed made anew at the same revision woke no listener")
    }
}

/// Counts the `changed` signals of one subscription, as a stream's listener hears them.
private final class ChangeCounter: Sendable {
    private let changes = NIOLockedValueBox(0)
    private let listening: Task<Void, Never>

    init(_ signals: EventHub.Subscription) {
        let changes = changes
        listening = Task {
            for await signal in signals where signal == .changed { changes.withLockedValue { $0 += 1 } }
        }
    }

    var count: Int { changes.withLockedValue { $0 } }

    /// Whether `count` changes were heard within 5 s.
    func heard(_ count: Int) async throws -> Bool {
        for _ in 0..<100 where self.count < count {
            try await Task.sleep(for: .milliseconds(50))
        }
        return self.count >= count
    }

    func stop() { listening.cancel() }
}
