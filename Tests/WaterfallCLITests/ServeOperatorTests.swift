// `waterfall serve` as an operator runs it, end to end through the built binary (DESIGN
// section 9): safe by default (no anonymous writes off loopback) and observable.

import Foundation
import Testing
import WaterfallTestSupport

@Suite(.serialized, .onOwnThreads(lane: .processes)) struct ServeOperatorTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "waterfall-operator")
    }

    /// A database holding the travel sample, and nothing else (no key).
    func makeCatalog() throws -> String {
        let database = folder.path("catalog.sqlite")
        let run = try ServeCLI.run(
            ["--db", database, "import", ServeEndToEndTests.sample("travel.json")], in: folder.url)
        try #require(run.status == 0, "\(run.errors)")
        return database
    }

    /// Runs `waterfall --db database arguments…` and returns its standard output, requiring success.
    @discardableResult
    func cli(_ database: String, _ arguments: [String]) throws -> String {
        let run = try ServeCLI.run(["--db", database] + arguments, in: folder.url)
        try #require(run.status == 0, "waterfall \(arguments): \(run.errors)")
        return String(decoding: run.output, as: UTF8.self)
    }

    @Test func offLoopbackWithoutAWriteKeyTheServerRefusesToStart() throws {
        defer { folder.remove() }
        // Given a database without keys
        let database = try makeCatalog()
        for host in ["0.0.0.0", "::", "192.0.2.1"] {
            // When it is served on an address other machines can reach
            let run = try ServeCLI.run(["--db", database, "serve", "--host", host, "--port", "0"], in: folder.url)
            // Then it refuses, in one sentence that says what to do, with the usage status
            #expect(run.status == 64, "\(host): \(run.errors)")
            let lines = run.errors.split(separator: "\n")
            #expect(lines.count == 1, "\(host): \(run.errors)")
            #expect(
                run.errors.hasPrefix("waterfall: error: --host \(host) is reachable from other machines"),
                "\(run.errors)")
            #expect(
                run.errors.contains("`waterfall key add NAME --write`") && run.errors.contains("--allow-anonymous"),
                "\(run.errors)")
            #expect(run.output.isEmpty)
        }
        // A key that may only read is not enough either.
        try cli(database, ["key", "add", "dashboard"])
        let readOnly = try ServeCLI.run(
            ["--db", database, "serve", "--host", "0.0.0.0", "--port", "0"], in: folder.url)
        #expect(readOnly.status == 64 && readOnly.errors.contains("no write key"), "\(readOnly.errors)")
    }

    @Test func allowAnonymousIsTheExplicitOptInAndWarns() throws {
        defer { folder.remove() }
        // Given a database without keys, served on every address with --allow-anonymous
        let database = try makeCatalog()
        let server = try ServeProcess(database: database, in: folder, arguments: ["--allow-anonymous"], host: "0.0.0.0")
        defer { server.stop() }
        // Then it answers without a key, and said at start what that means
        let response = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port)
        #expect(response.status == 200, "\(response.text)")
        #expect(
            server.errorTail.contains("warning") && server.errorTail.contains("--allow-anonymous:"),
            "\(server.errorTail)")
    }

    @Test func offLoopbackAWriteKeyLetsItStartAndEveryRequestNeedsAKey() throws {
        defer { folder.remove() }
        // Given a database with a write key, served on every address
        let database = try makeCatalog()
        let secret = try cli(database, ["key", "add", "app", "--write"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(database: database, in: folder, host: "0.0.0.0")
        defer { server.stop() }
        // Then a request without a key is refused, and one with the key answered
        let anonymous = try ServeHTTPClient.request("DELETE", "/v1/feeds/travel", port: server.port)
        #expect(anonymous.status == 401, "\(anonymous.text)")
        let keyed = try ServeHTTPClient.request(
            "GET", "/v1/feeds/travel", port: server.port, headers: ["Authorization": "Bearer \(secret)"])
        #expect(keyed.status == 200, "\(keyed.text)")
        // And when the last key is removed while it runs, it does not open up: 401 still.
        try cli(database, ["key", "remove", "app"])
        let afterRemoval = try ServeHTTPClient.request("DELETE", "/v1/feeds/travel", port: server.port)
        #expect(afterRemoval.status == 401, "\(afterRemoval.text)")
        #expect(afterRemoval.text.contains("waterfall key add NAME --write"), "\(afterRemoval.text)")
    }

    @Test func onLoopbackADatabaseWithoutKeysIsServedAsBefore() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        let server = try ServeProcess(database: database, in: folder, host: "127.0.0.1")
        defer { server.stop() }
        let response = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port)
        #expect(response.status == 200, "\(response.text)")
        #expect(!server.errorTail.contains("warning"), "\(server.errorTail)")
    }

    @Test func aKeyMadeToExpireWorksUntilThenAndIsRefusedAfter() throws {
        defer { folder.remove() }
        // Given a key that expires in 2 seconds, and a server
        let database = try makeCatalog()
        let secret = try cli(database, ["key", "add", "brief", "--expires", "2s"]).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let bearer = ["Authorization": "Bearer \(secret)"]
        // Then it reads now
        let before = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port, headers: bearer)
        #expect(before.status == 200, "\(before.text)")
        // And is refused once the time has passed, with a sentence saying it expired and when
        usleep(3_000_000)
        let after = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port, headers: bearer)
        #expect(after.status == 401 && after.header("Content-Type") == "application/problem+json", "\(after.text)")
        #expect(after.text.contains("the API key \\\"brief\\\" expired at 20"), "\(after.text)")
        // And `key list` shows its expiry (past) and its use
        let list =
            try JSONSerialization.jsonObject(with: Data(try cli(database, ["key", "list", "--json"]).utf8))
            as? [String: Any]
        let key = try #require((list?["keys"] as? [[String: Any]])?.first)
        #expect(
            key["name"] as? String == "brief" && key["write"] as? Bool == false && (key["feeds"] as? [String]) == [])
        #expect(
            (key["expires"] as? String)?.hasSuffix("Z") == true && (key["lastUsed"] as? String)?.hasSuffix("Z") == true,
            "\(key)")
        let table = try cli(database, ["key", "list"])
        #expect(table.contains("EXPIRES") && table.contains("LAST USED") && table.contains("(expired)"), "\(table)")
    }

    @Test func aBadExpiryIsOneSentenceAndUsage() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        for value in ["soon", "0s", "2001-01-01T00:00:00Z"] {
            let run = try ServeCLI.run(["--db", database, "key", "add", "app", "--expires", value], in: folder.url)
            #expect(run.status == 64, "\(value): \(run.errors)")
            #expect(
                run.errors.hasPrefix("waterfall: error: --expires ") && run.errors.split(separator: "\n").count == 1,
                "\(run.errors)")
            #expect(run.output.isEmpty)
        }
        // Nothing was made.
        #expect(try cli(database, ["key", "list", "--json"]) == "{\"keys\":[]}\n")
    }

    @Test func aClientsRequestIDIsEchoedAndNamesItsProblem() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let read = try ServeHTTPClient.request(
            "GET", "/v1/feeds/travel", port: server.port, headers: ["X-Request-ID": "lb-7f3a:42"])
        #expect(read.status == 200 && read.header("X-Request-ID") == "lb-7f3a:42", "\(read.headers)")
        let refused = try ServeHTTPClient.request(
            "GET", "/v1/feeds/nope", port: server.port, headers: ["X-Request-ID": "lb-7f3a:43"])
        #expect(refused.status == 404 && refused.header("X-Request-ID") == "lb-7f3a:43")
        let problem = try JSONSerialization.jsonObject(with: refused.body) as? [String: Any]
        #expect(problem?["instance"] as? String == "lb-7f3a:43", "\(refused.text)")
        let unnamed = try ServeHTTPClient.request(
            "GET", "/healthz", port: server.port, headers: ["X-Request-ID": "has space"])
        #expect(
            unnamed.header("X-Request-ID").map { $0.count == 25 && !$0.contains(" ") } == true, "\(unnamed.headers)")
    }

    @Test func accessLinesAreJSONAtInfoAndOnlyFailuresByDefault() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        let secret = try cli(database, ["key", "add", "app"]).trimmingCharacters(in: .whitespacesAndNewlines)
        // Given a server logging every request as JSON
        let server = try ServeProcess(
            database: database, in: folder, arguments: ["--log-level", "info", "--log-format", "json"])
        let bearer = ["Authorization": "Bearer \(secret)"]
        let read = try ServeHTTPClient.request(
            "GET", "/v1/feeds/travel/images?limit=2", port: server.port,
            headers: bearer.merging(["X-Request-ID": "lb-1"]) { $1 })
        #expect(read.status == 200)
        _ = try ServeHTTPClient.request("GET", "/v1/feeds/nope", port: server.port, headers: ["X-Request-ID": "lb-2"])
        server.terminate()
        #expect(server.waitForExit(timeout: 30)?.status == 0)
        // Then each request is one JSON line naming its route, status, bytes, key and id, and no secret
        let lines = server.errorTail.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        let access = lines.filter { $0["request_id"] != nil }
        #expect(access.count == 2, "\(server.errorTail)")
        #expect(access.first?["message"] as? String == "GET /v1/feeds/{feed}/images 200")
        #expect(
            access.first?["route"] as? String == "/v1/feeds/{feed}/images" && access.first?["status"] as? Int == 200)
        #expect(access.first?["bytes"] as? Int == read.body.count && access.first?["key"] as? String == "app")
        #expect(access.first?["level"] as? String == "info" && access.first?["request_id"] as? String == "lb-1")
        #expect(
            (access.first?["duration_ms"] as? Double).map { $0 >= 0 } == true
                && (access.first?["time"] as? String)?.hasSuffix("Z") == true)
        #expect(
            access.last?["level"] as? String == "notice" && access.last?["status"] as? Int == 401
                && access.last?["key"] as? String == "-")
        #expect(!server.errorTail.contains(secret) && !server.errorTail.contains("limit=2"))

        // And by default, a success writes nothing and a refusal one text line
        let quiet = try ServeProcess(database: database, in: folder)
        defer { quiet.stop() }
        _ = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: quiet.port, headers: bearer)
        _ = try ServeHTTPClient.request(
            "GET", "/v1/feeds/nope", port: quiet.port, headers: bearer.merging(["X-Request-ID": "lb-3"]) { $1 })
        quiet.terminate()
        _ = quiet.waitForExit(timeout: 30)
        let text = quiet.errorTail.split(separator: "\n").filter { $0.contains("request_id=") }
        #expect(
            text.count == 1
                && text.first?.contains(
                    " notice GET /v1/feeds/{feed} 404 request_id=lb-3 method=GET route=/v1/feeds/{feed} status=404 bytes="
                ) == true, "\(quiet.errorTail)")
    }

    @Test func aBadLogFormatOrLevelIsUsage() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        for arguments in [["--log-format", "xml"], ["--log-level", "loud"]] {
            let run = try ServeCLI.run(["--db", database, "serve", "--port", "0"] + arguments, in: folder.url)
            #expect(run.status == 64 && run.errors.split(separator: "\n").count == 1, "\(arguments): \(run.errors)")
        }
    }

    @Test func metricsMoveWithTrafficAndNeedTheAccessOfStats() throws {
        defer { folder.remove() }
        let database = try makeCatalog()
        let secret = try cli(database, ["key", "add", "ops"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let bearer = ["Authorization": "Bearer \(secret)"]
        #expect(try ServeHTTPClient.request("GET", "/metrics", port: server.port).status == 401)
        func requests() throws -> Double {
            let response = try ServeHTTPClient.request("GET", "/metrics", port: server.port, headers: bearer)
            #expect(
                response.status == 200
                    && response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            return response.text.split(separator: "\n")
                .filter { $0.hasPrefix("waterfall_http_requests_total{") }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
                .reduce(0, +)
        }
        let before = try requests()
        for _ in 1...25 {
            #expect(
                try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port, headers: bearer).status == 200
            )
        }
        // The 25 reads, and the first look at /metrics, counted once it was answered.
        #expect(try requests() - before == 26)
    }
}
