import Foundation
import Testing
import WaterfallTestSupport

/// Two `waterfall serve` instances on one PostgreSQL database, as behind a load balancer:
/// writers through either are serialised by the database, and each instance's event streams
/// carry the writes made through the other.
extension ServeEndToEndTests {
    static var postgresAndCurl: Bool { PostgresScratchSchema.serverURL != nil && curlIsInstalled }

    @Test(.enabled(if: postgresAndCurl, "needs WATERFALL_TEST_POSTGRES and curl"))
    func twoInstancesOnOnePostgreSQLDatabaseLoseNoMoveAndHearEachOther() throws {
        defer { folder.remove() }
        let schema = try PostgresScratchSchema()
        try cli(schema.url, ["import", Self.sample("travel.json"), "--json"])
        let first = try ServeProcess(database: schema.url, in: folder)
        defer { first.stop() }
        let second = try ServeProcess(database: schema.url, in: folder)
        defer { second.stop() }
        let listeners = try [first, second].map {
            try EventListener(port: $0.port, path: "/v1/feeds/travel/events?since=1")
        }
        // Both curls are ended before either's output is waited for: a curl started later may
        // hold the earlier one's pipe open.
        defer {
            for listener in listeners where listener.process.isRunning { listener.process.terminate() }
            for listener in listeners { listener.stop() }
        }
        for listener in listeners {
            #expect(listener.wait(for: "retry: 1000", timeout: 5) != nil, "a stream did not open: \(listener.text)")
        }

        // When each instance takes 25 moves from its own writer at the same time (each writer
        // alternates two images of one section, putting the one that is not first at the front
        // of the section, so every move changes the order)
        let movesEach = 25
        let writers: [(port: Int, ids: [String])] = [
            (first.port, ["tram-28", "belem"]), (second.port, ["gion", "arashiyama"]),
        ]
        let answers = ServeLockedStrings()
        DispatchQueue.concurrentPerform(iterations: writers.count) { writer in
            let (port, ids) = writers[writer]
            for move in 0..<movesEach {
                let body = Data(#"{"moves": [{"id": "\#(ids[move % 2])", "to": 0}]}"#.utf8)
                let answer = try? ServeHTTPClient.request(
                    "POST", "/v1/feeds/travel/reorder", port: port, headers: ["Content-Type": "application/json"],
                    body: body)
                answers.append("\(answer?.status ?? 0) \(answer?.text ?? "no answer")")
            }
        }

        // Then every move was applied once, at its own revision: 2 … 51, none lost, none twice
        let revisions = answers.all.compactMap { answer -> Int? in
            guard answer.hasPrefix("200 "), answer.contains(#""moved":1"#) else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(answer.dropFirst(4).utf8)) as? [String: Any])?[
                "revision"] as? Int
        }
        #expect(revisions.count == 2 * movesEach, "answers: \(answers.all.filter { !$0.hasPrefix("200 ") })")
        #expect(revisions.sorted() == Array(2...(1 + 2 * movesEach)))
        let changes = String(
            decoding: try cli(schema.url, ["changes", "--feed", "travel", "--since", "1", "--json"]), as: UTF8.self)
        #expect(changes.components(separatedBy: #""kind":"move""#).count - 1 == 2 * movesEach)

        // And both instances' streams carry every revision, once, whichever instance took it
        let last = 1 + 2 * movesEach
        for (index, listener) in listeners.enumerated() {
            #expect(
                listener.wait(for: "id: \(last)\n", timeout: 10) != nil,
                "stream \(index) stopped at: \(listener.text.suffix(300))")
            for revision in 2...last {
                #expect(
                    listener.text.components(separatedBy: "id: \(revision)\n").count - 1 == 1,
                    "stream \(index), revision \(revision)")
            }
        }
        // And a page read through either instance is the same, and the command line's
        let page = try cli(
            schema.url, ["page", "--feed", "travel", "--columns", "2", "--width", "375", "--page", "0", "--json"])
        for server in [first, second] {
            let answer = try ServeHTTPClient.request(
                "GET", "/v1/feeds/travel/page?columns=2&width=375&page=0", port: server.port)
            #expect(answer.status == 200 && answer.body == page, "\(answer.text)")
        }
    }
}

extension ServeEndToEndTests {
    /// Kept answers over PostgreSQL (DESIGN section 12): an instance keeps a read's answer while
    /// the feed is unchanged; its own write retires it at once (read-your-writes), another
    /// instance's write when the commit's notification arrives.
    @Test(.enabled(if: postgresAndCurl, "needs WATERFALL_TEST_POSTGRES and curl"))
    func keptAnswersOnPostgreSQLFollowEitherInstancesWrites() throws {
        defer { folder.remove() }
        let schema = try PostgresScratchSchema()
        try cli(schema.url, ["import", Self.sample("travel.json"), "--json"])
        let first = try ServeProcess(database: schema.url, in: folder)
        defer { first.stop() }
        let second = try ServeProcess(database: schema.url, in: folder)
        defer { second.stop() }
        let path = "/v1/feeds/travel/page?columns=2&width=375&page=0"
        func page() throws -> Data {
            try cli(
                schema.url, ["page", "--feed", "travel", "--columns", "2", "--width", "375", "--page", "0", "--json"])
        }
        func move(_ id: String, before other: String, through server: ServeProcess) throws {
            let body = Data(#"{"moves": [{"id": "\#(id)", "before": "\#(other)"}]}"#.utf8)
            let answer = try ServeHTTPClient.request(
                "POST", "/v1/feeds/travel/reorder", port: server.port, headers: ["Content-Type": "application/json"],
                body: body)
            try #require(answer.status == 200, "\(answer.text)")
        }
        // A first read, kept, and read again from what was kept: the same bytes.
        let kept = try ServeHTTPClient.request("GET", path, port: first.port)
        let before = try page()
        #expect(kept.status == 200 && kept.body == before)
        let again = try ServeHTTPClient.request("GET", path, port: first.port)
        #expect(again.body == kept.body)

        // The instance's own write shows in its next read, at once.
        try move("belem", before: "lisbon-banner", through: first)
        let own = try ServeHTTPClient.request("GET", path, port: first.port)
        let afterOwn = try page()
        #expect(own.body == afterOwn && own.body != kept.body, "\(own.text)")

        // Another instance's write shows once its notification arrives (well within a second).
        try move("tram-28", before: "belem", through: second)
        let expected = try page()
        var seen = try ServeHTTPClient.request("GET", path, port: first.port)
        let deadline = Date().addingTimeInterval(5)
        while seen.body != expected && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            seen = try ServeHTTPClient.request("GET", path, port: first.port)
        }
        #expect(seen.body == expected, "the other instance's move never showed: \(seen.text)")
    }
}

/// Strings appended from several threads.
final class ServeLockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var strings: [String] = []
    func append(_ string: String) { lock.withLock { strings.append(string) } }
    var all: [String] { lock.withLock { strings } }
}
