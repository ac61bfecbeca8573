import Foundation
import Testing
import WaterfallTestSupport

/// Two `waterfall serve` instances on a PostgreSQL server of the test's own, which it crashes
/// (`pg_ctl restart -m immediate`) and stops for a while (DESIGN section 18), while a client
/// writes and reads through both and listens to both instances' event streams.
///
/// The outage lasts 20 s, as an operator's restart in DESIGN section 18 does: long enough for
/// PostgresNIO's pool to reach a back-off of several seconds, which the pool's recovery must
/// cut short.
@Suite(.serialized, .onOwnThreads) struct PostgresFaultTests {
    static var unavailable: String? {
        if let reason = PrivatePostgres.unavailableReason { return reason }
        if !ServeEndToEndTests.curlIsInstalled { return "curl is not installed" }
        return nil
    }

    /// As `EngineCoverageTests` for the shared server: CI must not pass with this suite skipped.
    @Test func continuousIntegrationRunsTheFaultSuite() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(
            Self.unavailable == nil, "CI=true, but the PostgreSQL fault suite cannot run: \(Self.unavailable ?? "")")
    }

    /// One request's outcome, as the client saw it.
    struct Outcome {
        let instance: Int
        let write: Bool
        let started: Date
        let seconds: Double
        let status: Int
        let problem: Bool
        let retryAfter: Bool
        /// A write's revision (2xx), or a read's (from its entity tag).
        let revision: Int?
        let detail: String
    }

    /// The client: moves through either instance in turn, each followed by a read of a page
    /// through the same one, until told to stop (or 200 s have passed).
    final class Client: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Outcome] = []
        private var stopping = false
        private let done = DispatchSemaphore(value: 0)
        let ports: [Int]

        init(ports: [Int]) {
            self.ports = ports
            Thread.detachNewThread { [self] in
                let deadline = Date().addingTimeInterval(200)
                var step = 0
                while !lock.withLock({ stopping }) && Date() < deadline {
                    let instance = step % 2
                    let id = ["tram-28", "belem", "gion", "arashiyama"][step % 4]
                    record(
                        instance, write: true, "POST", "/v1/feeds/travel/reorder",
                        body: #"{"moves": [{"id": "\#(id)", "to": 0}]}"#)
                    record(instance, write: false, "GET", "/v1/feeds/travel/page?columns=2&width=375&page=0", body: nil)
                    step += 1
                    usleep(100_000)
                }
                done.signal()
            }
        }

        private func record(_ instance: Int, write: Bool, _ method: String, _ target: String, body: String?) {
            let started = Date()
            let answer = try? ServeHTTPClient.request(
                method, target, port: ports[instance],
                headers: body == nil ? [:] : ["Content-Type": "application/json"], body: body.map { Data($0.utf8) })
            let seconds = Date().timeIntervalSince(started)
            var revision: Int?
            if let answer, (200..<300).contains(answer.status) {
                if write {
                    // A move whose image was first already (the move before it answered 503 and
                    // was not made) changes nothing and keeps the revision: not counted.
                    let summary = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
                    revision = (summary?["moved"] as? Int ?? 0) > 0 ? summary?["revision"] as? Int : nil
                } else {
                    revision = answer.header("ETag").flatMap { Int($0.dropFirst().prefix { $0 != "-" }) }
                }
            }
            let outcome = Outcome(
                instance: instance, write: write, started: started, seconds: seconds, status: answer?.status ?? 0,
                problem: answer?.header("Content-Type") == "application/problem+json",
                retryAfter: answer?.header("Retry-After") != nil,
                revision: revision, detail: answer.map { String($0.text.prefix(200)) } ?? "no answer")
            lock.withLock { outcomes.append(outcome) }
        }

        /// Stops the client and returns every outcome.
        func stop() -> [Outcome] {
            lock.withLock { stopping = true }
            _ = done.wait(timeout: .now() + 60)
            return lock.withLock { outcomes }
        }

        var all: [Outcome] { lock.withLock { outcomes } }
    }

    /// An event stream that reconnects with `Last-Event-ID` whenever it ends; the ids it got.
    final class ResumingStream {
        private var listeners: [ServeEndToEndTests.EventListener] = []
        let port: Int

        init(port: Int) throws {
            self.port = port
            listeners = [
                try ServeEndToEndTests.EventListener(port: port, path: "/v1/feeds/travel/events?since=1", maxTime: 180)
            ]
        }

        /// The revisions received, in order, over every connection.
        var ids: [Int] {
            listeners.flatMap { listener in
                listener.text.split(separator: "\n").compactMap { $0.hasPrefix("id: ") ? Int($0.dropFirst(4)) : nil }
            }
        }

        /// Reconnects if the current connection has ended.
        func keepOpen() throws {
            guard let last = listeners.last, !last.process.isRunning else { return }
            let since = ids.last ?? 1
            listeners.append(
                try ServeEndToEndTests.EventListener(
                    port: port, path: "/v1/feeds/travel/events", headers: ["Last-Event-ID: \(since)"], maxTime: 180))
        }

        var reconnections: Int { listeners.count - 1 }
        var text: String { listeners.map(\.text).joined(separator: "\n--- reconnected ---\n") }

        func stop() {
            for listener in listeners where listener.process.isRunning { listener.process.terminate() }
            for listener in listeners { listener.stop() }
        }
    }

    /// Its time limit ends a wait without an end: in CI's whole run, where all tests run at
    /// once on two cores, it passed after 190–192 s in three runs, against the 300 s it had.
    @Test(.enabled(if: unavailable == nil, "\(unavailable ?? "")"), .timeLimit(.minutes(10)))
    func twoInstancesRideOutACrashAndAnOutageOfPostgreSQL() throws {
        let folder = try TemporaryDirectory(prefix: "waterfall-pg-fault")
        defer { folder.remove() }
        func cli(_ arguments: [String]) throws -> Data {
            let run = try ServeCLI.run(["--db", postgres.url] + arguments, in: folder.url)
            try #require(run.status == 0, "waterfall \(arguments): \(run.errors)")
            return run.output
        }
        // Given a private PostgreSQL server with the travel feed, two instances on it, a client
        // writing and reading through both, and an event stream from each
        let postgres = try PrivatePostgres()
        _ = try cli(["import", ServeEndToEndTests.sample("travel.json"), "--json"])
        let servers = try (0..<2).map { _ in try ServeProcess(database: postgres.url, in: folder) }
        defer { for server in servers { server.stop() } }
        let streams = try servers.map { try ResumingStream(port: $0.port) }
        defer { for stream in streams { stream.stop() } }
        let client = Client(ports: servers.map(\.port))
        var outcomes: [Outcome] = []
        defer { if outcomes.isEmpty { _ = client.stop() } }
        func pause(_ seconds: Double) throws {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                for stream in streams { try stream.keepOpen() }
                usleep(100_000)
            }
        }
        /// Seconds from now until both instances answer a read and a write again (at most 30).
        func secondsUntilBothServe() -> Double? {
            let start = Date()
            var serving = Set<Int>()
            while Date().timeIntervalSince(start) < 30 {
                for (index, server) in servers.enumerated() where !serving.contains(index) {
                    let read = try? ServeHTTPClient.request("GET", "/v1/feeds/travel/images?limit=1", port: server.port)
                    if read?.status == 200 { serving.insert(index) }
                }
                if serving.count == 2 { return Date().timeIntervalSince(start) }
                usleep(50_000)
            }
            return nil
        }
        try pause(3)

        // When PostgreSQL crashes and restarts at once
        let crash = Date()
        try postgres.restartImmediately()
        let crashReturned = Date()
        let afterCrash = secondsUntilBothServe()
        try pause(3)

        // And then stops for 20 seconds
        try postgres.stopImmediately()
        let down = Date()
        try pause(2)
        // Issue 50, fault 5: liveness answered 503 with the database away, so an orchestrator
        // restarted every healthy instance; now liveness never asks the database, readiness does.
        for server in servers {
            for (path, status) in [("/livez", 200), ("/healthz", 200), ("/readyz", 503)] {
                let asked = Date()
                let answer = try ServeHTTPClient.request("GET", path, port: server.port)
                let seconds = Date().timeIntervalSince(asked)
                #expect(
                    answer.status == status, "\(path) during the outage: \(answer.status) \(answer.text.prefix(200))")
                #expect(seconds <= (status == 200 ? 1 : 3), "\(path) during the outage took \(seconds) s")
                if status == 503 { #expect(answer.text.contains("did not answer"), "\(answer.text.prefix(200))") }
            }
        }
        try pause(18)
        let up = Date()
        try postgres.start()
        let back = Date()
        let afterOutage = secondsUntilBothServe()
        try pause(4)
        outcomes = client.stop()
        let lastRevision = outcomes.compactMap { $0.write ? $0.revision : nil }.max() ?? 1
        // Let the streams hear the last writes (their notification, or the hub's next look).
        let streamDeadline = Date().addingTimeInterval(15)
        while Date() < streamDeadline && streams.contains(where: { ($0.ids.last ?? 0) < lastRevision }) {
            try pause(0.2)
        }

        // Then both instances serve again within 5 s of each return, without a restart
        #expect(
            afterCrash != nil && afterCrash! <= 5,
            "after the crash: \(afterCrash.map { "\($0) s" } ?? "not within 30 s")")
        #expect(
            afterOutage != nil && afterOutage! <= 5,
            "after the outage: \(afterOutage.map { "\($0) s" } ?? "not within 30 s")")
        for server in servers { #expect(server.isRunning, "an instance died: \(server.crashSummary)") }

        // And no request hung, crashed or failed as the server's fault: 2xx, or 503 problem+json
        // with Retry-After within 10 s (a statement whose connection the crash left unanswered
        // ends at its deadline, 5 s)
        for outcome in outcomes {
            let ok =
                (200..<300).contains(outcome.status) || (outcome.status == 503 && outcome.problem && outcome.retryAfter)
            #expect(
                ok,
                "instance \(outcome.instance) \(outcome.write ? "write" : "read"): \(outcome.status) \(outcome.detail)")
            #expect(outcome.seconds <= 10, "a request took \(outcome.seconds) s: \(outcome.status) \(outcome.detail)")
        }
        // And while PostgreSQL was stopped (its last second aside) every request answered 503
        let duringOutage = outcomes.filter {
            $0.started > down.addingTimeInterval(0.5) && $0.started.addingTimeInterval($0.seconds) < up
        }
        #expect(duringOutage.count >= 10, "only \(duringOutage.count) requests during the outage")
        #expect(
            duringOutage.allSatisfy { $0.status == 503 },
            "\(duringOutage.filter { $0.status != 503 }.map { "\($0.status) \($0.detail)" })")

        // And every write answered 2xx is in the change log, at the revision it was answered
        let changes =
            (try JSONSerialization.jsonObject(with: try cli(["changes", "--feed", "travel", "--since", "1", "--json"]))
            as? [String: Any])?["changes"] as? [[String: Any]] ?? []
        let logged = Set(changes.compactMap { $0["revision"] as? Int })
        let acknowledged = outcomes.filter { $0.write && (200..<300).contains($0.status) }.compactMap(\.revision)
        #expect(
            !acknowledged.isEmpty && acknowledged.allSatisfy(logged.contains),
            "missing: \(acknowledged.filter { !logged.contains($0) })")
        #expect(Set(acknowledged).count == acknowledged.count, "two writes answered with one revision")

        // And no read after a return showed less than a write the same instance had answered
        var written = [0, 0]
        for outcome in outcomes.sorted(by: { $0.started < $1.started }) {
            if outcome.write, let revision = outcome.revision {
                written[outcome.instance] = max(written[outcome.instance], revision)
            }
            if !outcome.write, let revision = outcome.revision, outcome.started > crash {
                #expect(
                    revision >= written[outcome.instance],
                    "instance \(outcome.instance) read revision \(revision) after its write of \(written[outcome.instance])"
                )
            }
        }
        // And both answer what the catalog holds now
        let page = try cli(["page", "--feed", "travel", "--columns", "2", "--width", "375", "--page", "0", "--json"])
        for server in servers {
            var answer = try ServeHTTPClient.request(
                "GET", "/v1/feeds/travel/page?columns=2&width=375&page=0", port: server.port)
            let deadline = Date().addingTimeInterval(5)
            while answer.body != page && Date() < deadline {
                usleep(50_000)
                answer = try ServeHTTPClient.request(
                    "GET", "/v1/feeds/travel/page?columns=2&width=375&page=0", port: server.port)
            }
            #expect(answer.status == 200 && answer.body == page, "\(answer.status) \(answer.text.prefix(200))")
        }

        // And each event stream got every revision committed, once, in order
        let committed = logged.sorted()
        for (index, stream) in streams.enumerated() {
            #expect(
                stream.ids == stream.ids.sorted() && Set(stream.ids).count == stream.ids.count,
                "stream \(index): \(stream.ids)")
            #expect(
                stream.ids == committed,
                "stream \(index): missing \(Set(committed).subtracting(stream.ids).sorted()), got \(stream.ids.count) ids for \(committed.count) revisions:\n\(stream.text.suffix(600))"
            )
        }

        // The figures for docs/reliability.md
        let outage503 = duringOutage.map(\.seconds)
        print(
            """
            postgres faults: restart -m immediate took \(String(format: "%.1f", crashReturned.timeIntervalSince(crash))) s, both served \(afterCrash.map { String(format: "%.2f", $0) } ?? "-") s after its return; \
            20-s stop: \(duringOutage.count) requests during it, all 503 in \(String(format: "%.3f", outage503.min() ?? 0))–\(String(format: "%.3f", outage503.max() ?? 0)) s; \
            both served \(afterOutage.map { String(format: "%.2f", $0) } ?? "-") s after the start returned (start took \(String(format: "%.1f", back.timeIntervalSince(up))) s); \
            \(outcomes.count) requests, \(acknowledged.count) writes answered 2xx, all in the change log (\(committed.count) revisions); \
            longest request \(String(format: "%.2f", outcomes.map(\.seconds).max() ?? 0)) s; 503s: \(outcomes.filter { $0.status == 503 }.count); \
            streams: \(streams.map { "\($0.ids.count) ids, \($0.reconnections) reconnections" }.joined(separator: "; "))
            """)
    }
}
