import Foundation
import Testing
import WaterfallTestSupport

extension ServeEndToEndTests {
    /// `kill -9` of the server at several moments of a 150,000-image upload and import: the
    /// database is always at the old state or the new one, whole, and the next server works.
    @Test func killDashNineDuringAnUploadLeavesTheOldOrTheNewState() throws {
        defer { folder.remove() }
        let database = try makeCatalog("killed.sqlite")
        let before = try cli(database, ["feeds", "--json"])
        let feed = Self.bigFeed
        var outcomes: [String] = []
        // Kill while the body arrives, just after it arrived (the import runs), and later on.
        for delay in [0.0, 0.05, 0.3, 0.8, 1.5, 6.0] {
            let server = try ServeProcess(database: database, in: folder)
            defer { server.stop() }
            let connection = try ServeHTTPConnection(port: server.port, timeout: 60)
            defer { connection.close() }
            try connection.send(
                Data(
                    ("PUT /v1/feeds/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(feed.count)\r\nConnection: close\r\n\r\n").utf8))
            if delay == 0 {
                try connection.send(feed[0..<(feed.count / 2)])
            } else {
                try connection.send(feed)
                usleep(useconds_t(delay * 1_000_000))
            }
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            let counts = try feedCounts(database)
            #expect(
                counts["big"] == nil || counts["big"] == 150_000,
                "after \(delay) s: big holds \(counts["big"] ?? 0) images")
            if counts["big"] == nil { #expect(try cli(database, ["feeds", "--json"]) == before) }
            if let integrity = try integrityCheck(database) { #expect(integrity == "ok", "\(integrity)") }
            outcomes.append("\(delay) s: \(counts["big"] == nil ? "old" : "new")")
            if counts["big"] != nil { _ = try cli(database, ["feed", "remove", "big"]) }
        }
        print("serve: kill -9 during an upload: \(outcomes.joined(separator: ", "))")
        // A server started afterwards answers.
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        #expect(try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port).status == 200)
    }
}
