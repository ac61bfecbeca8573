import Foundation
import Testing
import WaterfallTestSupport

/// The events stream of the built server, read by `curl -N` as a browser's EventSource would,
/// while another process (the command line) writes the same database.
extension ServeEndToEndTests {
    /// A running `curl -sN` of an events URL, its output gathered as it comes.
    final class EventListener {
        let process = Process()
        private let output = Pipe()
        private let received = ServeLockedBytes()
        private let reader = DispatchGroup()

        init(port: Int, path: String, headers: [String] = [], maxTime: Int = 30) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["curl", "-sN", "--max-time", "\(maxTime)"] + headers.flatMap { ["-H", $0] } + [
                    "http://127.0.0.1:\(port)\(path)"
                ]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            let handle = output.fileHandleForReading
            let received = received
            reader.enter()
            DispatchQueue.global().async { [reader] in
                var all = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    all.append(chunk)
                    received.set(all)
                }
                reader.leave()
            }
        }

        var text: String { String(decoding: received.get(), as: UTF8.self) }

        /// Waits at most `timeout` seconds for `fragment` in the stream; the seconds it took.
        func wait(for fragment: String, timeout: TimeInterval) -> TimeInterval? {
            let start = Date()
            while Date().timeIntervalSince(start) < timeout {
                if text.contains(fragment) { return Date().timeIntervalSince(start) }
                usleep(20_000)
            }
            return nil
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            reader.wait()
        }
    }

    static var curlIsInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
    }

    @Test(.enabled(if: curlIsInstalled))
    func eventsShowACommandLineMoveWithinASecondAndResume() throws {
        let database = try makeCatalog("events.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let listener = try EventListener(port: server.port, path: "/v1/feeds/travel/events?since=1")
        defer { listener.stop() }
        #expect(listener.wait(for: "retry: 1000", timeout: 5) != nil, "the stream did not open: \(listener.text)")

        // Another process moves an image: the listener hears of it, with the right revision.
        try cli(database, ["move", "belem", "--to", "0", "--feed", "travel"])
        let delay = listener.wait(
            for:
                "id: 2\nevent: change\ndata: {\"revision\":2,\"changes\":[{\"revision\":2,\"kind\":\"move\",\"id\":\"belem\"",
            timeout: 5)
        #expect(delay != nil && delay! < 2, "no event within 2 s: \(listener.text)")
        #expect(!listener.text.contains("id: 1\n"), "since=1 must not replay revision 1")

        // A reconnecting client sends the last id it saw and gets what it missed, once.
        listener.stop()
        try cli(database, ["move", "tram-28", "--to", "0", "--feed", "travel"])
        try cli(database, ["move", "azulejos", "--to", "0", "--feed", "travel"])
        let resumed = try EventListener(
            port: server.port, path: "/v1/feeds/travel/events", headers: ["Last-Event-ID: 2"])
        defer { resumed.stop() }
        #expect(resumed.wait(for: "id: 4\n", timeout: 5) != nil, "\(resumed.text)")
        let text = resumed.text
        #expect(
            text.contains(
                "id: 3\nevent: change\ndata: {\"revision\":3,\"changes\":[{\"revision\":3,\"kind\":\"move\",\"id\":\"tram-28\""
            ))
        #expect(!text.contains("id: 2\n") && !text.contains("id: 1\n"))

        // Other feeds' changes are not this stream's; an HTTP write is, like any other.
        try cli(database, ["move", "533958", "--to", "1", "--feed", Self.coco])
        _ = try ServeHTTPClient.request(
            "POST", "/v1/feeds/travel/reorder", port: server.port, headers: ["Content-Type": "application/json"],
            body: Data(#"{"moves": [{"id": "belem", "to": 0}]}"#.utf8))
        #expect(resumed.wait(for: "id: 5\n", timeout: 5) != nil, "\(resumed.text)")
        #expect(resumed.text.components(separatedBy: "event: change").count - 1 == 3)

        // SIGTERM ends open streams and the server exits 0 at once, not after a drain timeout.
        server.terminate()
        let exit = server.waitForExit(timeout: 10)
        #expect(exit?.status == 0 && exit?.signalled == false, "\(server.exitDescription)")
    }

    @Test func eventsOfAnUnknownFeedOrWithABadRevisionAreProblems() throws {
        let database = try makeCatalog("events-bad.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let unknown = try ServeHTTPClient.request("GET", "/v1/feeds/nope/events", port: server.port)
        #expect(unknown.status == 404)
        let bad = try ServeHTTPClient.request(
            "GET", "/v1/feeds/travel/events", port: server.port, headers: ["Last-Event-ID": "x"])
        #expect(bad.status == 400)
        let negative = try ServeHTTPClient.request("GET", "/v1/feeds/travel/events?since=-1", port: server.port)
        #expect(negative.status == 400)
    }
}

extension ServeEndToEndTests {
    /// A share link's event stream (DESIGN section 20): served without a key, and ended by a `reset` event (`unshared`) within a second of the link's removal,
    /// by another process, however quiet the feed.
    @Test(.enabled(if: curlIsInstalled))
    func aShareLinksEventsEndWithinASecondOfItsRemoval() throws {
        let database = try makeCatalog("events-shared.sqlite")
        let made =
            try JSONSerialization.jsonObject(
                with: try cli(database, ["share", "add", "--feed", "travel", "--json"])) as? [String: Any]
        let path = try #require(made?["path"] as? String)
        let id = try #require(made?["id"] as? Int)
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let listener = try EventListener(port: server.port, path: path + "/events?since=1")
        defer { listener.stop() }
        #expect(listener.wait(for: "retry: 1000", timeout: 5) != nil, "the stream did not open: \(listener.text)")
        try cli(database, ["move", "belem", "--to", "0", "--feed", "travel"])
        #expect(listener.wait(for: "id: 2\nevent: change", timeout: 5) != nil, "\(listener.text)")

        try cli(database, ["share", "remove", "\(id)"])
        let delay = listener.wait(for: #"event: reset\#ndata: {"feed":"travel","reason":"unshared"}"#, timeout: 5)
        #expect(delay != nil && delay! < 1.5, "no reset within 1.5 s: \(listener.text)")
        listener.process.waitUntilExit()
        #expect(listener.process.terminationStatus == 0, "the stream did not end: \(listener.text)")
        let again = try ServeHTTPClient.request("GET", path + "/events", port: server.port)
        #expect(again.status == 404)
    }
}
