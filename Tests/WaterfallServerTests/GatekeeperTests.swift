import Foundation
import Testing
import Waterfall
import WaterfallStore
import WaterfallTestSupport

@testable import WaterfallServer

/// The keys a server on PostgreSQL checks requests against are read once per version of the
/// database, however many requests come while they are read (issue 37: under a writer the
/// version moves 20 times a second, and each of 64 readers read the keys again, 700 key reads a
/// second that took most of PostgreSQL's statements and its readers' connections).
@Suite struct GatekeeperTests {
    /// A watcher whose version the test moves, as commits would.
    final class SteppedWatcher: ChangeWatcher {
        let current = Locked<Int64>(1)
        func version() throws -> Int64 { current.withLockedValue { $0 } }
        var seesCommitsAtOnce: Bool { true }
    }

    /// The time limit ends a wait without an end; it is not a speed check: a test's time
    /// counts from its start while the whole suite runs at once on two cores, where a test of
    /// milliseconds alone has passed after 327 s.
    @Test(.timeLimit(.minutes(10))) func requestsThatComeWhileTheKeysAreReadWaitForThatOneRead() async throws {
        // Given a database with a key, and a gatekeeper whose reads of the keys are counted and
        // slow
        let folder = try TemporaryDirectory()
        let service = try WaterfallService.openForServing(path: folder.path("keys.sqlite"))
        let secret = try await service.addKey(name: "reader", feeds: [], canWrite: false)
        let watcher = SteppedWatcher()
        let reads = Locked(0)
        let failNext = Locked(false)
        let runner = ServiceRunner(service: service, watcher: watcher, metrics: ServerMetrics())
        let gatekeeper = Gatekeeper(
            runner: runner, watcher: watcher, publicRead: false,
            readKeys: {
                reads.withLockedValue { $0 += 1 }
                try await Task.sleep(for: .milliseconds(100))
                if failNext.withLockedValue({ $0 }) {
                    failNext.withLockedValue { $0 = false }
                    throw WaterfallError.unavailable("the test's database went away.")
                }
                return try await service.keyring()
            }, sharesReads: true)
        func names(_ count: Int) async throws -> [String?] {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<count {
                    group.addTask { try await gatekeeper.caller(authorization: "Bearer \(secret)").keyName }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }

        // When 50 requests come at one version
        // Then the keys are read once, and every request is the key's
        #expect(try await names(50) == Array(repeating: "reader", count: 50))
        #expect(reads.withLockedValue { $0 } == 1)
        // And once more at that version, not at all
        _ = try await names(10)
        #expect(reads.withLockedValue { $0 } == 1)

        // When a commit moves the version (the key removed), the next requests read them once
        // more, and see the removal
        try await service.removeKey(named: "reader")
        watcher.current.withLockedValue { $0 += 1 }
        let after = try await names(20)
        #expect(reads.withLockedValue { $0 } == 2)
        #expect(after.allSatisfy { $0 == nil })

        // And a read that fails fails the requests that waited for it, and the next request
        // reads again
        watcher.current.withLockedValue { $0 += 1 }
        failNext.withLockedValue { $0 = true }
        await #expect(throws: WaterfallError.self) { _ = try await names(5) }
        #expect(reads.withLockedValue { $0 } == 3)
        #expect(try await names(1) == [nil])
        #expect(reads.withLockedValue { $0 } == 4)

        // And requests of a version whose read began before a newer version's are answered by
        // their own read, each version's once
        watcher.current.withLockedValue { $0 += 1 }
        let older = Task { try await names(10) }
        while reads.withLockedValue({ $0 }) < 5 { try await Task.sleep(for: .milliseconds(5)) }
        watcher.current.withLockedValue { $0 += 1 }
        let newer = try await names(10)
        #expect(try await older.value.count == 10)
        #expect(newer.count == 10)
        #expect(reads.withLockedValue { $0 } == 6)
    }
}
