import Foundation
import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// Fault 3 of issue 37: the PostgreSQL watcher's LISTEN connection, once dead without a word
/// (no reset, no error), was taken for listening for good: other instances' commits went
/// unseen, kept answers stale, revoked keys accepted. The watcher probes it, and counts it as
/// down (every version a new one) once a probe goes unanswered, until it listens again.
@Suite(.onOwnThreads) struct PostgresWatcherProbeTests {
    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aListenConnectionThatFallsSilentIsTakenForDownThenMadeAgain() async throws {
        // Given a watcher whose connection goes through a proxy that can fall silent
        let schema = try PostgresScratchSchema()
        let server = try #require(URLComponents(string: schema.url))
        let proxy = try SilenceableProxy(to: server.host ?? "127.0.0.1", port: server.port ?? 5432)
        defer { proxy.stop() }
        var proxied = server
        proxied.port = proxy.port
        let catalog = try PostgresCatalog.open(url: try #require(proxied.string), connections: 1)
        defer { catalog.closeWhenDone() }
        let watcher = try await catalog.makeChangeWatcher()
        /// Whether two looks in a row give the same version (it listens), within `seconds` (a
        /// last look after them, should this task itself wait that long for a thread).
        func holdsStill(within seconds: Double) async throws -> Bool {
            let deadline = Date.now.addingTimeInterval(seconds)
            while true {
                if try watcher.version() == (try watcher.version()) { return true }
                if Date.now >= deadline { return false }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        // (Deadlines are generous: beside the whole suite on two cores, whose synchronous tests
        // hold Swift's cooperative threads for seconds each, a task may wait long for a
        // thread; alone, each step takes a few seconds.)
        try #require(try await holdsStill(within: 120), "the watcher never listened")

        // When the connection falls silent
        proxy.isSilent = true

        // Then within a probe's interval and timeout (and a margin) the version is new at
        // every look: nothing kept can be vouched for
        let deadline = Date.now.addingTimeInterval(120)
        while try watcher.version() == (try watcher.version()), Date.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try watcher.version() != (try watcher.version()), "a silent connection was still taken for listening")

        // And once the network is back, it listens again
        proxy.isSilent = false
        #expect(try await holdsStill(within: 120), "the watcher did not listen again")
    }
}
