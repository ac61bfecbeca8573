// `waterfall serve`, end to end through the built binary (DESIGN section 9).
//
// Each test starts the real server on a free port (`--port 0`, the port read from the one line it
// prints), talks to it over a small raw-socket HTTP/1.1 client (so that malformed percent-escapes
// and mid-body disconnects reach the server exactly as written), and holds what it answers
// against the command line: every JSON body must be byte-for-byte the `--json` output of the
// same question, every refusal an `application/problem+json` document with a 4xx status, and
// writes made on either side must be seen at once by the other.

import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite(.serialized, .onOwnThreads(lane: .processes)) struct ServeEndToEndTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "waterfall-serve")
    }

    /// The package's folder, for `SampleData/`.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func sample(_ name: String) -> String {
        repository.appending(path: "SampleData/\(name)").path
    }

    static let coco = "coco-val2017"
    static let phoneFlags = ["--columns", "2", "--width", "375", "--header-height", "44", "--caption-height", "20"]

    // MARK: Fixtures

    /// Runs `waterfall --db database arguments…` and requires it to succeed.
    @discardableResult
    func cli(_ database: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Data
    {
        let run = try ServeCLI.run(["--db", database] + arguments, in: folder.url)
        try #require(run.status == 0, "waterfall \(arguments): \(run.errors)", sourceLocation: sourceLocation)
        return run.output
    }

    /// A catalog as a user builds it: travel.json and coco-val2017.json imported, and the layout
    /// "phone" (2 columns, 375 wide, 44-point headers, 20-point captions) saved for both feeds.
    func makeCatalog(_ name: String) throws -> String {
        let database = folder.path(name)
        try cli(database, ["import", Self.sample("travel.json"), "--json"])
        try cli(database, ["import", Self.sample("coco-val2017.json"), "--json"])
        for feed in ["travel", Self.coco] {
            try cli(database, ["layout", "add", "phone", "--feed", feed] + Self.phoneFlags)
        }
        return database
    }

    /// What a reader of the catalog sees; any write changes some of it.
    func snapshot(_ database: String) throws -> Data {
        var bytes = try cli(database, ["feeds", "--json"])
        for feed in ["travel", Self.coco] {
            bytes += try cli(database, ["changes", "--feed", feed, "--since", "0", "--json"])
            bytes += try cli(database, ["layout", "list", "--feed", feed, "--json"])
        }
        return bytes
    }

    /// `feeds --json`, parsed: name → image count.
    func feedCounts(_ database: String) throws -> [String: Int] {
        let object = try JSONSerialization.jsonObject(with: try cli(database, ["feeds", "--json"])) as? [String: Any]
        let feeds = try #require(object?["feeds"] as? [[String: Any]])
        var counts: [String: Int] = [:]
        for feed in feeds {
            counts[try #require(feed["name"] as? String)] = try #require(feed["images"] as? Int)
        }
        return counts
    }

    /// Asks `target` over HTTP (twice: the second answer may come from the server's kept
    /// answers) and `arguments + --json` on the command line, and expects the same bytes.
    /// Returns the command line's output.
    @discardableResult
    func expectSameAnswer(
        _ server: ServeProcess, _ target: String, _ database: String, _ arguments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Data {
        let cli = try ServeCLI.run(["--db", database] + arguments + ["--json"], in: folder.url)
        #expect(cli.status == 0, "\(arguments): \(cli.errors)", sourceLocation: sourceLocation)
        for attempt in 1...2 {
            let response = try ServeHTTPClient.request("GET", target, port: server.port)
            #expect(
                response.status == 200, "GET \(target) (\(attempt)): \(response.text)", sourceLocation: sourceLocation)
            #expect(
                response.header("Content-Type") == "application/json", "GET \(target)", sourceLocation: sourceLocation)
            #expect(
                response.body == cli.output,
                "GET \(target) (\(attempt)) differs from waterfall \(arguments.joined(separator: " ")) --json:\nHTTP: \(response.text.prefix(400))\nCLI:  \(String(decoding: cli.output.prefix(400), as: UTF8.self))",
                sourceLocation: sourceLocation)
        }
        return cli.output
    }

    /// Checks a refusal: the status, a problem document of one line with a non-empty one-line
    /// detail whose `status` is the answer's.
    func expectProblem(
        _ response: ServeHTTPResponse, _ status: Int, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            response.status == status, "\(label): got \(response.status) \(response.text)",
            sourceLocation: sourceLocation)
        #expect(
            (400..<500).contains(response.status), "\(label): not a 4xx: \(response.status)",
            sourceLocation: sourceLocation)
        #expect(
            response.header("Content-Type") == "application/problem+json",
            "\(label): \(response.header("Content-Type") ?? "no Content-Type")", sourceLocation: sourceLocation)
        let text = response.text
        #expect(
            text.hasSuffix("}\n") && text.filter({ $0 == "\n" }).count == 1, "\(label): not one line: \(text)",
            sourceLocation: sourceLocation)
        let document = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        #expect(
            Set(document?.keys.map { $0 } ?? []) == ["type", "title", "status", "detail", "instance"],
            "\(label): \(text)", sourceLocation: sourceLocation)
        #expect(
            document?["instance"] as? String == response.header("X-Request-ID"), "\(label): \(text)",
            sourceLocation: sourceLocation)
        #expect(document?["type"] as? String == "about:blank", "\(label): \(text)", sourceLocation: sourceLocation)
        #expect((document?["title"] as? String)?.isEmpty == false, "\(label): \(text)", sourceLocation: sourceLocation)
        #expect(document?["status"] as? Int == response.status, "\(label): \(text)", sourceLocation: sourceLocation)
        let detail = document?["detail"] as? String ?? ""
        #expect(
            !detail.isEmpty && !detail.contains("\n"), "\(label): detail \(detail.debugDescription)",
            sourceLocation: sourceLocation)
    }

    static let json = ["Content-Type": "application/json"]
    static let ndjson = ["Content-Type": "application/x-ndjson"]

    // MARK: 1. Byte identity

    @Test func answersAreByteForByteTheCommandLinesJSON() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }

        let c = "/v1/feeds/\(Self.coco)"
        let coco = ["--feed", Self.coco]
        var questions: [(String, [String])] = [
            ("/v1/feeds", ["feeds"]),
            ("\(c)/layouts", ["layout", "list"] + coco),
            ("/v1/feeds/travel/layouts", ["layout", "list", "--feed", "travel"]),
            ("\(c)/images", ["images"] + coco),
            ("\(c)/images?offset=17&limit=3", ["images", "--offset", "17", "--limit", "3"] + coco),
            ("\(c)/images?offset=4990&limit=20", ["images", "--offset", "4990", "--limit", "20"] + coco),
            ("/v1/feeds/travel/images?limit=100000", ["images", "--feed", "travel", "--limit", "100000"]),
            ("\(c)/changes?since=0", ["changes", "--since", "0"] + coco),
            ("/v1/feeds/travel/changes?since=0", ["changes", "--feed", "travel", "--since", "0"]),
            ("/v1/feeds/travel/changes?since=1", ["changes", "--feed", "travel", "--since", "1"]),
            ("\(c)/layouts/phone/page", ["page", "--layout", "phone"] + coco),
            (
                "/v1/feeds/travel/layouts/phone/page?offset=0&limit=13",
                ["page", "--feed", "travel", "--layout", "phone", "--offset", "0", "--limit", "13"]
            ),
            (
                "/v1/feeds/travel/layouts/phone/viewport?y=100&height=600&pinHeaders=true",
                ["viewport", "--feed", "travel", "--layout", "phone", "--y", "100", "--height", "600", "--pin-headers"]
            ),
            ("\(c)/layouts/phone/sections", ["sections", "--layout", "phone"] + coco),
            ("/v1/feeds/travel/layouts/phone/sections", ["sections", "--feed", "travel", "--layout", "phone"]),
            (
                "/v1/feeds/travel/coverflow?itemHeight=200&viewportWidth=375&x=300",
                ["coverflow", "--feed", "travel", "--item-height", "200", "--viewport-width", "375", "--x", "300"]
            ),
        ]
        for (offset, limit) in [(0, 1), (0, 50), (17, 10), (17, 333), (4990, 10), (4990, 50), (4999, 1), (0, 5000)] {
            questions.append(
                (
                    "\(c)/layouts/phone/page?offset=\(offset)&limit=\(limit)",
                    ["page", "--layout", "phone", "--offset", "\(offset)", "--limit", "\(limit)"] + coco
                ))
        }
        questions.append(
            ("\(c)/layouts/phone/page?offset=4990", ["page", "--layout", "phone", "--offset", "4990"] + coco))
        for (page, size) in [(0, nil), (3, 7), (99, nil), (1, 2500), (10, 500)] as [(Int, Int?)] {
            questions.append(
                (
                    "\(c)/layouts/phone/page?page=\(page)" + (size.map { "&pageSize=\($0)" } ?? ""),
                    ["page", "--layout", "phone", "--page", "\(page)"] + (size.map { ["--page-size", "\($0)"] } ?? [])
                        + coco
                ))
        }
        let viewports: [(String, [String])] = [
            ("y=0&height=800", ["--y", "0", "--height", "800"]),
            ("y=12345.5&height=900&pinHeaders=true", ["--y", "12345.5", "--height", "900", "--pin-headers"]),
            (
                "y=200000&height=1000&pinHeaders=true&pinOffset=30",
                ["--y", "200000", "--height", "1000", "--pin-headers", "--pin-offset", "30"]
            ),
            (
                "y=200000&height=1000&pinOffset=30",
                ["--y", "200000", "--height", "1000", "--pin-headers", "--pin-offset", "30"]
            ),
            ("y=-50&height=100", ["--y", "-50", "--height", "100"]),
            ("y=455000&height=2000&pinHeaders=false", ["--y", "455000", "--height", "2000"]),
            ("y=455700&height=5000&pinHeaders=true", ["--y", "455700", "--height", "5000", "--pin-headers"]),
        ]
        for (query, flags) in viewports {
            questions.append(
                ("\(c)/layouts/phone/viewport?\(query)", ["viewport", "--layout", "phone"] + flags + coco))
        }
        let inline: [(String, [String])] = [
            ("columns=3&width=414", ["--columns", "3", "--width", "414"]),
            (
                "columns=4&width=768&columnSpacing=6&rowSpacing=8&sectionInset=12,16,12,16&headerHeight=30&footerHeight=24"
                    + "&headerInset=2,4,2,4&footerInset=3&captionHeight=18&minimumContentHeight=500&order=left-to-right&scale=2",
                [
                    "--columns", "4", "--width", "768", "--column-spacing", "6", "--row-spacing", "8", "--inset",
                    "12,16,12,16",
                    "--header-height", "30", "--footer-height", "24", "--header-inset", "2,4,2,4", "--footer-inset",
                    "3",
                    "--caption-height", "18", "--min-content-height", "500", "--order", "left-to-right", "--scale", "2",
                ]
            ),
            (
                "columns=5&width=390.5&sectionInset=0&order=right-to-left&scale=3&headerHeight=40",
                [
                    "--columns", "5", "--width", "390.5", "--inset", "0", "--order", "right-to-left", "--scale", "3",
                    "--header-height", "40",
                ]
            ),
        ]
        for (configuration, flags) in inline {
            questions.append(
                (
                    "\(c)/page?\(configuration)&offset=100&limit=20",
                    ["page"] + flags + ["--offset", "100", "--limit", "20"] + coco
                ))
            questions.append(
                (
                    "\(c)/page?\(configuration)&page=7&pageSize=40",
                    ["page"] + flags + ["--page", "7", "--page-size", "40"] + coco
                ))
            questions.append(
                (
                    "\(c)/viewport?\(configuration)&y=50000&height=844&pinHeaders=true",
                    ["viewport"] + flags + ["--y", "50000", "--height", "844", "--pin-headers"] + coco
                ))
            questions.append(
                (
                    "\(c)/viewport?\(configuration)&y=-10&height=300",
                    ["viewport"] + flags + ["--y", "-10", "--height", "300"] + coco
                ))
        }
        for x in ["0", "500.5", "-20", "123456", "672000"] {
            questions.append(
                (
                    "\(c)/coverflow?itemHeight=120&viewportWidth=390&x=\(x)",
                    ["coverflow", "--item-height", "120", "--viewport-width", "390", "--x", x] + coco
                ))
        }
        questions.append(
            (
                "\(c)/coverflow?itemHeight=90&viewportWidth=320&x=4000&spacing=4&factor=0.01&sectionInset=5&scale=2",
                [
                    "coverflow", "--item-height", "90", "--viewport-width", "320", "--x", "4000", "--spacing", "4",
                    "--factor", "0.01", "--inset", "5", "--scale", "2",
                ] + coco
            ))

        for (target, arguments) in questions {
            try expectSameAnswer(server, target, database, arguments)
        }
        #expect(questions.count >= 40)

        // One entry of `feeds --json`, the liveness answer and the OpenAPI document as compiled in.
        let feeds = String(decoding: try cli(database, ["feeds", "--json"]), as: UTF8.self)
        let travel = try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port)
        #expect(travel.status == 200 && travel.text.hasSuffix("}\n"))
        #expect(feeds.contains(travel.text.dropLast()), "\(travel.text) is not an entry of \(feeds)")
        let health = try ServeHTTPClient.request("GET", "/healthz", port: server.port)
        #expect(health.status == 200 && health.header("Content-Type") == "application/json")
        let openAPI = try ServeHTTPClient.request("GET", "/openapi.json", port: server.port)
        #expect(openAPI.status == 200)
        let document = try Data(
            contentsOf: Self.repository.appending(path: "Sources/WaterfallServer/Assets/openapi.json"))
        #expect(openAPI.body == document, "GET /openapi.json is not Sources/WaterfallServer/Assets/openapi.json")
        let stats = try ServeHTTPClient.request("GET", "/v1/stats", port: server.port)
        #expect(stats.status == 200 && (try? JSONSerialization.jsonObject(with: stats.body)) != nil, "\(stats.text)")

        // HEAD answers a GET's status and headers without its body.
        let page = "\(c)/layouts/phone/page?offset=17&limit=10"
        let full = try ServeHTTPClient.request("GET", page, port: server.port)
        let head = try ServeHTTPClient.request("HEAD", page, port: server.port)
        #expect(
            head.status == 200 && head.header("Content-Length") == "\(full.body.count)", "HEAD \(page): \(head.headers)"
        )
        #expect(head.header("Content-Type") == "application/json")

        // Requests pipelined on one kept-alive connection get their own answers, in order.
        let pipelined = [page, "/v1/feeds/nope", "/healthz", "\(c)/images?offset=4990&limit=20"]
        let connection = try ServeHTTPConnection(port: server.port, timeout: 30)
        defer { connection.close() }
        try connection.send(Data(pipelined.map { "GET \($0) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" }.joined().utf8))
        for target in pipelined {
            let alone = try ServeHTTPClient.request("GET", target, port: server.port)
            let answer = try connection.readResponse()
            // The same but for a problem's instance, the id of each request.
            let sameBody =
                answer.text.replacingOccurrences(of: #","instance":"[!-~]+"\}"#, with: "}", options: .regularExpression)
                == alone.text.replacingOccurrences(
                    of: #","instance":"[!-~]+"\}"#, with: "}", options: .regularExpression)
            #expect(
                answer.status == alone.status && sameBody,
                "pipelined GET \(target): \(answer.status) \(answer.text.prefix(200))")
        }
    }

    @Test func aFeedPutOverHTTPReadsLikeACommandLineImport() throws {
        defer { folder.remove() }
        // Given an empty served database, and another one the command line fills with the same files.
        let served = folder.path("served.sqlite")
        let reference = folder.path("reference.sqlite")
        let server = try ServeProcess(database: served, in: folder)
        defer { server.stop() }
        let travelJSON = try Data(contentsOf: URL(fileURLWithPath: Self.sample("travel.json")))
        let ndjson = try Data(contentsOf: URL(fileURLWithPath: Self.sample("coco-sample.ndjson")))
        let unicodeName = "旅 coco"
        let unicodePath = "/v1/feeds/%E6%97%85%20coco"

        // When travel.json is PUT (created: 201), then PUT again (unchanged: 200)
        let created = try ServeHTTPClient.request(
            "PUT", "/v1/feeds/travel", port: server.port, headers: Self.json, body: travelJSON)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.body == (try cli(reference, ["import", Self.sample("travel.json"), "--json"])))
        let again = try ServeHTTPClient.request(
            "PUT", "/v1/feeds/travel", port: server.port, headers: Self.json, body: travelJSON)
        #expect(again.status == 200, "\(again.text)")
        #expect(again.body == (try cli(reference, ["import", Self.sample("travel.json"), "--json"])))
        // and NDJSON under a percent-encoded unicode name, and a layout
        let lines = try ServeHTTPClient.request(
            "PUT", unicodePath, port: server.port, headers: Self.ndjson, body: ndjson)
        #expect(lines.status == 201, "\(lines.text)")
        #expect(
            lines.body
                == (try cli(reference, ["import", Self.sample("coco-sample.ndjson"), "--feed", unicodeName, "--json"])))
        let configuration = Data(#"{"columns":2,"width":375,"headerHeight":44,"captionHeight":20}"#.utf8)
        let layout = try ServeHTTPClient.request(
            "PUT", "/v1/feeds/travel/layouts/phone", port: server.port, headers: Self.json, body: configuration)
        #expect(layout.status == 201, "\(layout.text)")
        try cli(reference, ["layout", "add", "phone", "--feed", "travel"] + Self.phoneFlags)
        let replaced = try ServeHTTPClient.request(
            "PUT", "/v1/feeds/travel/layouts/phone", port: server.port, headers: Self.json, body: configuration)
        #expect(replaced.status == 200, "\(replaced.text)")
        let saved = try ServeHTTPClient.request("GET", "/v1/feeds/travel/layouts/phone", port: server.port)
        #expect(saved.status == 200 && saved.body == layout.body, "\(saved.text) vs \(layout.text)")

        // Then the served catalog reads exactly as the command line's import of the same files.
        let questions: [(String, [String])] = [
            ("/v1/feeds", ["feeds"]),
            ("/v1/feeds/travel/images", ["images", "--feed", "travel"]),
            ("\(unicodePath)/images?limit=1000", ["images", "--feed", unicodeName, "--limit", "1000"]),
            ("/v1/feeds/travel/changes?since=0", ["changes", "--feed", "travel", "--since", "0"]),
            ("/v1/feeds/travel/layouts", ["layout", "list", "--feed", "travel"]),
            (
                "/v1/feeds/travel/layouts/phone/page?offset=0&limit=50",
                ["page", "--feed", "travel", "--layout", "phone", "--offset", "0", "--limit", "50"]
            ),
            (
                "/v1/feeds/travel/layouts/phone/viewport?y=300&height=700&pinHeaders=true",
                ["viewport", "--feed", "travel", "--layout", "phone", "--y", "300", "--height", "700", "--pin-headers"]
            ),
            (
                "\(unicodePath)/page?columns=3&width=414&offset=10&limit=30",
                ["page", "--feed", unicodeName, "--columns", "3", "--width", "414", "--offset", "10", "--limit", "30"]
            ),
        ]
        for (target, arguments) in questions {
            try expectSameAnswer(server, target, reference, arguments)
        }
        // and the files themselves hold the same catalog.
        for arguments in [
            ["images", "--feed", "travel"], ["images", "--feed", unicodeName, "--limit", "1000"], ["feeds"],
        ] {
            #expect(
                try cli(served, arguments + ["--json"]) == (try cli(reference, arguments + ["--json"])), "\(arguments)")
        }
    }

    // MARK: 2. Writes on either side are seen by the other

    @Test func writesOverHTTPAndOnTheCommandLineSeeEachOther() throws {
        defer { folder.remove() }
        // Given the same catalog twice: one served, one (the mirror) only ever written by the command line.
        let database = try makeCatalog("served.sqlite")
        let mirror = try makeCatalog("mirror.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let travelQuestions: [(String, [String])] = [
            ("/v1/feeds", ["feeds"]),
            ("/v1/feeds/travel/images", ["images", "--feed", "travel"]),
            ("/v1/feeds/travel/changes?since=1", ["changes", "--feed", "travel", "--since", "1"]),
            (
                "/v1/feeds/travel/layouts/phone/page?offset=0&limit=50",
                ["page", "--feed", "travel", "--layout", "phone", "--offset", "0", "--limit", "50"]
            ),
            (
                "/v1/feeds/travel/viewport?columns=3&width=414&headerHeight=30&y=0&height=2000&pinHeaders=true",
                [
                    "viewport", "--feed", "travel", "--columns", "3", "--width", "414", "--header-height", "30", "--y",
                    "0", "--height", "2000", "--pin-headers",
                ]
            ),
        ]
        /// Every answer of the server is the command line's on the served file, and the mirror's.
        func expectBothSidesAgree(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            for (target, arguments) in travelQuestions {
                let served = try expectSameAnswer(server, target, database, arguments, sourceLocation: sourceLocation)
                #expect(
                    served == (try cli(mirror, arguments + ["--json"])),
                    "\(step): \(arguments) differs from the mirror", sourceLocation: sourceLocation)
            }
        }
        try expectBothSidesAgree("before any write")  // the server now keeps these answers

        // When a reorder is POSTed: a dry run changes nothing, the real one is the command line's reorder.
        let reorder = Data(
            #"{"feed": "travel", "moves": [{"id": "miradouro", "before": "tram-28"}, {"id": "gion", "after": "鳥居"}, {"id": "pastel", "to": 0}]}"#
                .utf8)
        let reorderFile = folder.path("reorder.json")
        try reorder.write(to: URL(fileURLWithPath: reorderFile))
        let before = try snapshot(database)
        let dryRun = try ServeHTTPClient.request(
            "POST", "/v1/feeds/travel/reorder?dryRun=true", port: server.port, headers: Self.json, body: reorder)
        #expect(dryRun.status == 200, "\(dryRun.text)")
        #expect(try snapshot(database) == before, "a dry run changed the catalog")
        let moved = try ServeHTTPClient.request(
            "POST", "/v1/feeds/travel/reorder", port: server.port, headers: Self.json, body: reorder)
        #expect(moved.status == 200, "\(moved.text)")
        #expect(moved.body == (try cli(mirror, ["reorder", reorderFile, "--feed", "travel", "--json"])))
        let changes = String(
            decoding: try cli(database, ["changes", "--feed", "travel", "--since", "1", "--json"]), as: UTF8.self)
        #expect(changes.contains(#""kind":"move","id":"miradouro""#), "\(changes)")
        try expectBothSidesAgree("after the HTTP reorder")

        // When the command line moves images while the server runs (its kept answers now stale)
        let moves: [[String]] = [
            ["move", "tram-28", "--to", "0"], ["move", "kinkaku-ji", "--after", "gion"], ["move", "鳥居", "--to", "0"],
        ]
        for move in moves {
            // Then every answer reflects each move at once.
            try cli(database, move + ["--feed", "travel"])
            try cli(mirror, move + ["--feed", "travel"])
            try expectBothSidesAgree("after \(move.joined(separator: " "))")
        }
        // When the command line replaces the layout the server's kept pages were computed with
        let replace = [
            "layout", "add", "phone", "--feed", "travel", "--columns", "3", "--width", "414", "--header-height", "30",
        ]
        try cli(database, replace)
        try cli(mirror, replace)
        try expectBothSidesAgree("after the command line replaced layout phone")

        // When an image with a unicode id is deleted over HTTP
        let removed = try ServeHTTPClient.request(
            "DELETE", "/v1/feeds/travel/images/%E9%B3%A5%E5%B1%85", port: server.port)
        #expect(removed.status == 200, "\(removed.text)")
        #expect(removed.body == (try cli(mirror, ["remove", "鳥居", "--feed", "travel", "--json"])))
        #expect(
            !String(decoding: try cli(database, ["images", "--feed", "travel", "--json"]), as: UTF8.self).contains("鳥居")
        )
        try expectBothSidesAgree("after DELETE …/images/鳥居")

        // When a layout is saved over HTTP, then removed on the command line
        let tablet = Data(#"{"columns":4,"width":768}"#.utf8)
        let saved = try ServeHTTPClient.request(
            "PUT", "/v1/feeds/travel/layouts/tablet", port: server.port, headers: Self.json, body: tablet)
        #expect(saved.status == 201, "\(saved.text)")
        try cli(mirror, ["layout", "add", "tablet", "--feed", "travel", "--columns", "4", "--width", "768"])
        #expect(
            try cli(database, ["layout", "list", "--feed", "travel", "--json"])
                == (try cli(mirror, ["layout", "list", "--feed", "travel", "--json"])))
        try expectSameAnswer(
            server, "/v1/feeds/travel/layouts/tablet/page?offset=0&limit=20", database,
            ["page", "--feed", "travel", "--layout", "tablet", "--offset", "0", "--limit", "20"])
        let kept = try ServeHTTPClient.request("GET", "/v1/feeds/travel/layouts/tablet", port: server.port)
        #expect(kept.status == 200 && kept.body == saved.body, "\(kept.text)")
        try cli(database, ["layout", "remove", "tablet", "--feed", "travel"])
        try cli(mirror, ["layout", "remove", "tablet", "--feed", "travel"])
        expectProblem(
            try ServeHTTPClient.request("GET", "/v1/feeds/travel/layouts/tablet", port: server.port), 404,
            "removed layout")
        expectProblem(
            try ServeHTTPClient.request(
                "GET", "/v1/feeds/travel/layouts/tablet/page?offset=0&limit=20", port: server.port), 404,
            "removed layout's page")

        // When a feed is deleted over HTTP, it is gone for the command line and for kept answers.
        try expectSameAnswer(
            server, "/v1/feeds/\(Self.coco)/layouts/phone/page?offset=0&limit=10", database,
            ["page", "--feed", Self.coco, "--layout", "phone", "--offset", "0", "--limit", "10"])
        let gone = try ServeHTTPClient.request("DELETE", "/v1/feeds/\(Self.coco)", port: server.port)
        #expect(gone.status == 204 && gone.body.isEmpty, "\(gone.status) \(gone.text)")
        try cli(mirror, ["feed", "remove", Self.coco])
        #expect(try cli(database, ["feeds", "--json"]) == (try cli(mirror, ["feeds", "--json"])))
        expectProblem(
            try ServeHTTPClient.request(
                "GET", "/v1/feeds/\(Self.coco)/layouts/phone/page?offset=0&limit=10", port: server.port), 404,
            "deleted feed")
        try expectBothSidesAgree("after DELETE /v1/feeds/\(Self.coco)")
    }

    // MARK: 3. Hostile input

    /// One bad request and the status it must get.
    struct BadRequest: CustomStringConvertible {
        var method = "GET"
        var target: String
        var headers: [String: String] = [:]
        var body: Data?
        var status: Int

        /// A GET of `target`.
        init(_ target: String, _ status: Int) {
            self.init("GET", target, status)
        }

        init(
            _ method: String, _ target: String, _ status: Int, json body: String? = nil,
            headers: [String: String]? = nil
        ) {
            self.method = method
            self.target = target
            self.status = status
            self.body = body.map { Data($0.utf8) }
            self.headers = headers ?? (body == nil ? [:] : ServeEndToEndTests.json)
        }

        var description: String {
            "\(method) \(target)" + (body.map { " «\(String(decoding: $0.prefix(60), as: UTF8.self))»" } ?? "")
        }
    }

    static let badRequests: [BadRequest] = {
        let c = "/v1/feeds/\(coco)"
        let t = "/v1/feeds/travel"
        let phone = "/v1/feeds/\(coco)/layouts/phone"
        let travelJSON = (try? String(contentsOfFile: sample("travel.json"), encoding: .utf8)) ?? "{}"
        return [
            // Unknown, duplicated and malformed query parameters
            BadRequest("\(phone)/page?offset=0&limit=2&bogus=1", 400),
            BadRequest("\(c)/images?pageSise=10", 400),
            BadRequest("/v1/feeds?verbose=1", 400),
            BadRequest("/healthz?x", 400),
            BadRequest("\(c)/coverflow?itemHeight=100&viewportWidth=300&x=0&columns=2", 400),
            BadRequest("\(c)/page?columns=2&width=375&columnz=3", 400),
            BadRequest("\(c)/images?offset=1&offset=1", 400),
            BadRequest("\(c)/changes?since=1&since=2", 400),
            BadRequest("\(c)/images?offset=%ZZ", 400),
            BadRequest("\(c)/images?offset=1%", 400),
            BadRequest("\(c)/images?off%E9t=1", 400),
            // Numbers that are not numbers, or out of range
            BadRequest("\(phone)/page?offset=abc&limit=2", 400),
            BadRequest("\(phone)/page?offset=0&limit=1.5", 400),
            BadRequest("\(phone)/page?offset=", 400),
            BadRequest("\(phone)/page?offset=99999999999999999999999", 400),
            BadRequest("\(phone)/page?offset=-1&limit=5", 400),
            BadRequest("\(phone)/page?offset=0&limit=0", 400),
            BadRequest("\(phone)/page?offset=0&limit=100001", 400),
            BadRequest("\(phone)/page?page=-1", 400),
            BadRequest("\(phone)/page?pageSize=0", 400),
            BadRequest("\(phone)/page?page=1&offset=50", 400),
            BadRequest("\(phone)/page?pageSize=10&limit=10", 400),
            BadRequest("\(phone)/viewport?y=NaN&height=100", 400),
            BadRequest("\(phone)/viewport?y=0&height=inf", 400),
            BadRequest("\(phone)/viewport?y=-inf&height=100", 400),
            BadRequest("\(phone)/viewport?y=1e308&height=100", 400),
            BadRequest("\(phone)/viewport?y=0&height=0", 400),
            BadRequest("\(phone)/viewport?y=0&height=-5", 400),
            BadRequest("\(phone)/viewport?y=0&height=100&pinOffset=nan", 400),
            BadRequest("\(phone)/viewport?y=0&height=100&pinHeaders=yes", 400),
            BadRequest("\(phone)/viewport?y=0&height=100&pinHeaders=false&pinOffset=3", 400),
            BadRequest("\(phone)/viewport?height=100", 400),
            BadRequest("\(c)/changes?since=-1", 400),
            BadRequest("\(c)/changes?since=abc", 400),
            // Inline configurations
            BadRequest("\(c)/page?columns=65&width=375", 400),
            BadRequest("\(c)/page?columns=0&width=375", 400),
            BadRequest("\(c)/page?columns=2.5&width=375", 400),
            BadRequest("\(c)/page?columns=2&width=0", 400),
            BadRequest("\(c)/page?columns=2&width=nan", 400),
            BadRequest("\(c)/page?columns=2&width=1e7", 400),
            BadRequest("\(c)/page?columns=2&width=375&columnSpacing=400", 400),
            BadRequest("\(c)/page?columns=2&width=375&sectionInset=200", 400),
            BadRequest("\(c)/page?columns=2&width=375&sectionInset=1,2,3", 400),
            BadRequest("\(c)/page?columns=2&width=375&headerInset=a,b,c,d", 400),
            BadRequest("\(c)/page?columns=2&width=375&scale=4", 400),
            BadRequest("\(c)/page?columns=2&width=375&order=bogus", 400),
            BadRequest("\(c)/page?width=375", 400),
            BadRequest("\(c)/viewport?columns=2&width=375&y=0", 400),
            BadRequest("\(c)/coverflow?itemHeight=100&viewportWidth=300", 400),
            BadRequest("\(c)/coverflow?itemHeight=0&viewportWidth=300&x=0", 400),
            BadRequest("\(c)/coverflow?itemHeight=100&viewportWidth=-1&x=0", 400),
            BadRequest("\(c)/coverflow?itemHeight=100&viewportWidth=300&x=nan", 400),
            BadRequest("\(c)/coverflow?itemHeight=100&viewportWidth=300&x=0&factor=nan", 400),
            // Paths: malformed percent-encoding, unknown feeds, layouts, images and routes
            BadRequest("/v1/feeds/coco%ZZ/images", 400),
            BadRequest("/v1/feeds/coco%2/images", 400),
            BadRequest("/v1/feeds/coco%C3%28/images", 400),
            BadRequest("DELETE", "\(t)/images/%E9%B3%A5%E5", 400),
            BadRequest("/v1/feeds/nope", 404),
            BadRequest("/v1/feeds/nope/images", 404),
            BadRequest("/v1/feeds/nope/layouts/phone/page?offset=0&limit=5", 404),
            BadRequest("\(c)/layouts/nope", 404),
            BadRequest("\(c)/layouts/nope/page", 404),
            BadRequest("\(c)/layouts/nope/viewport?y=0&height=100", 404),
            BadRequest("/v1/nothing", 404),
            BadRequest("/v1/feeds/", 404),
            BadRequest("\(t)/images/a/b", 404),
            BadRequest("DELETE", "\(t)/images/nope", 404),
            BadRequest("DELETE", "\(c)/layouts/nope", 404),
            BadRequest("DELETE", "/v1/feeds/nope", 404),
            BadRequest(
                "POST", "/v1/feeds/nope/reorder", 404, json: #"{"moves": [{"id": "tram-28", "before": "azulejos"}]}"#),
            BadRequest("PUT", "/v1/feeds/nope/layouts/x", 404, json: #"{"columns": 2, "width": 375}"#),
            // Wrong methods
            BadRequest("DELETE", "/v1/feeds", 405),
            BadRequest("POST", "\(c)/images", 405),
            BadRequest("GET", "\(t)/reorder", 405),
            BadRequest("PATCH", t, 405),
            BadRequest("PUT", "/healthz", 405),
            BadRequest("POST", "\(phone)/page", 405),
            // Bodies: malformed, wrong data, wrong type, a feed that is not the path's
            BadRequest("PUT", t, 422, json: #"{"images": ["#),
            BadRequest("PUT", t, 422, json: ""),
            BadRequest("PUT", t, 422, json: "[]"),
            BadRequest("PUT", t, 422, json: #"{"images": [{"id": "a", "width": 0, "height": 1}]}"#),
            BadRequest("PUT", t, 422, json: #"{"feed": "other", "images": [{"id": "a", "width": 1, "height": 1}]}"#),
            BadRequest("PUT", "/v1/feeds/brand-new", 422, json: travelJSON),
            BadRequest(
                "PUT", "/v1/feeds/brand-new", 422,
                json: #"{"images": [{"id": "a", "width": 1, "height": 1}, {"id": "a", "width": 1, "height": 1}]}"#),
            BadRequest("PUT", t, 422, json: #"{"id": "a", "width": 1}"#, headers: ndjson),
            BadRequest("PUT", t, 415, json: travelJSON, headers: ["Content-Type": "text/plain"]),
            BadRequest("PUT", t, 415, json: travelJSON, headers: ["Content-Type": "application/x-www-form-urlencoded"]),
            BadRequest("PUT", "\(t)?mode=bogus", 400, json: travelJSON),
            BadRequest("PUT", "\(t)?mode=append&resetOrder=true", 400, json: travelJSON),
            BadRequest("PUT", "\(t)?resetOrder=maybe", 400, json: travelJSON),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"moves": ["#),
            BadRequest("POST", "\(t)/reorder", 422, json: "not json"),
            BadRequest("POST", "\(t)/reorder", 422, json: "[]"),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"moves": [{"id": "zzz", "before": "tram-28"}]}"#),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"moves": [{"id": "tram-28", "before": "zzz"}]}"#),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"remove": ["tram-28", "zzz"]}"#),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"order": ["tram-28", "tram-28"]}"#),
            BadRequest(
                "POST", "\(t)/reorder", 422,
                json: #"{"feed": "\#(coco)", "moves": [{"id": "tram-28", "before": "azulejos"}]}"#),
            BadRequest("POST", "\(t)/reorder", 415, json: #"{"moves": []}"#, headers: ["Content-Type": "text/plain"]),
            BadRequest("POST", "\(t)/reorder", 415, json: #"{"moves": []}"#, headers: ndjson),
            BadRequest("POST", "\(t)/reorder?dryRun=maybe", 400, json: #"{"moves": []}"#),
            BadRequest("PUT", "\(t)/layouts/x", 422, json: #"{"columns": 65, "width": 375}"#),
            BadRequest("PUT", "\(t)/layouts/x", 422, json: #"{"columns": 2}"#),
            BadRequest("PUT", "\(t)/layouts/x", 422, json: #"{"columns": "2", "width": 375}"#),
            BadRequest("PUT", "\(t)/layouts/x", 422, json: "{nope"),
            BadRequest("PUT", "\(t)/layouts/x", 422, json: #"{"columns": 2, "width": 375, "columnSpacing": 400}"#),
            BadRequest(
                "PUT", "\(t)/layouts/x", 415, json: #"{"columns": 2, "width": 375}"#,
                headers: ["Content-Type": "application/xml"]),
            BadRequest("PUT", "\(t)/layouts/x?x=1", 400, json: #"{"columns": 2, "width": 375}"#),
            BadRequest("PUT", "\(t)/layouts/a%01b", 400, json: #"{"columns": 2, "width": 375}"#),
            BadRequest(
                "PUT", "\(t)/layouts/" + String(repeating: "l", count: 129), 400, json: #"{"columns": 2, "width": 375}"#
            ),
            BadRequest(
                "PUT", "/v1/feeds/" + String(repeating: "f", count: 129), 400,
                json: #"{"images": [{"id": "a", "width": 1, "height": 1}]}"#),
            BadRequest("PUT", "/v1/feeds/tra%01vel", 400, json: #"{"images": [{"id": "a", "width": 1, "height": 1}]}"#),
            BadRequest("PUT", "\(t)?mode=append", 422, json: "\n\n", headers: ndjson),
            BadRequest("POST", "\(t)/reorder", 422, json: "{}"),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"order": []}"#),
            BadRequest("POST", "\(t)/reorder", 422, json: #"{"moves": [{"id": "tram-28", "to": 999}]}"#),
        ]
    }()

    @Test func hostileRequestsAreRefusedWithProblemsAndChangeNothing() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let small = try ServeProcess(database: database, in: folder, arguments: ["--max-body", "1K"])
        defer { small.stop() }
        let before = try snapshot(database)

        for bad in Self.badRequests {
            let response = try ServeHTTPClient.request(
                bad.method, bad.target, port: server.port, headers: bad.headers, body: bad.body)
            expectProblem(response, bad.status, "\(bad)")
            if bad.status == 405 {
                #expect(response.header("Allow")?.isEmpty == false, "\(bad): no Allow header")
            }
        }
        #expect(Self.badRequests.count >= 40)

        // Bodies past --max-body 1K: 413, whatever the route.
        let travelJSON = try Data(contentsOf: URL(fileURLWithPath: Self.sample("travel.json")))
        #expect(travelJSON.count > 1024)
        let padding = String(repeating: " ", count: 2048)
        let oversized: [(String, String, Data)] = [
            ("PUT", "/v1/feeds/travel", travelJSON),
            ("PUT", "/v1/feeds/brand-new", travelJSON),
            (
                "POST", "/v1/feeds/travel/reorder",
                Data((#"{"moves": [{"id": "tram-28", "to": 0}]"# + padding + "}").utf8)
            ),
            ("PUT", "/v1/feeds/travel/layouts/big", Data((#"{"columns": 2, "width": 375"# + padding + "}").utf8)),
        ]
        for (method, target, body) in oversized {
            let response = try ServeHTTPClient.request(method, target, port: small.port, headers: Self.json, body: body)
            expectProblem(response, 413, "\(method) \(target) with \(body.count) bytes, --max-body 1K")
        }
        // The same bodies within the limit are not refused for their size.
        let fits = try ServeHTTPClient.request(
            "POST", "/v1/feeds/travel/reorder?dryRun=true", port: small.port, headers: Self.json,
            body: Data(#"{"moves": [{"id": "tram-28", "to": 0}]}"#.utf8))
        #expect(fits.status == 200, "\(fits.text)")

        // Nothing was written, and both servers still answer.
        #expect(try snapshot(database) == before, "a refused request changed the catalog")
        for port in [server.port, small.port] {
            #expect(try ServeHTTPClient.request("GET", "/healthz", port: port).status == 200)
        }
        #expect(server.isRunning && small.isRunning)
    }

    @Test func aReorderOntoItselfIs409AndChangesNothing() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let before = try snapshot(database)
        // DESIGN section 9: "409 a move onto itself".
        for body in [
            #"{"moves": [{"id": "tram-28", "before": "tram-28"}]}"#,
            #"{"moves": [{"id": "tram-28", "after": "tram-28"}]}"#,
        ] {
            for query in ["", "?dryRun=true"] {
                let response = try ServeHTTPClient.request(
                    "POST", "/v1/feeds/travel/reorder\(query)", port: server.port, headers: Self.json,
                    body: Data(body.utf8))
                expectProblem(response, 409, "POST /v1/feeds/travel/reorder\(query) «\(body)»")
            }
        }
        #expect(try snapshot(database) == before)
    }

    @Test func aHugeOffsetIsAnAnswerNotACrash() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        // Offsets near Int.max: past every image. An empty page or a 400, never a dead server.
        let targets = [
            "/v1/feeds/\(Self.coco)/layouts/phone/page?offset=9223372036854775807&limit=5",
            "/v1/feeds/\(Self.coco)/images?offset=9223372036854775807&limit=5",
            "/v1/feeds/\(Self.coco)/page?columns=2&width=375&offset=9223372036854775000&limit=100000",
        ]
        var server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        for target in targets {
            if !server.isRunning {
                server = try ServeProcess(database: database, in: folder)
            }
            guard let response = try? ServeHTTPClient.request("GET", target, port: server.port) else {
                // The connection closed without an answer: give the server time to die and say how.
                _ = server.waitForExit(timeout: 10)
                Issue.record("GET \(target): no answer; the server \(server.exitDescription)\n\(server.crashSummary)")
                continue
            }
            #expect(
                response.status == 200 || response.status == 400, "GET \(target): \(response.status) \(response.text)")
            if response.status == 400 { expectProblem(response, 400, "GET \(target)") }
            #expect(
                (try? ServeHTTPClient.request("GET", "/healthz", port: server.port))?.status == 200,
                "after GET \(target)")
        }
    }

    // MARK: 4. SIGTERM and disconnects during a large upload

    /// A 150,000-image feed file (about 20 MB): images `a0`… in sections of 5,000.
    static let bigFeed: Data = {
        var random = SeededGenerator(seed: 150_000)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(150_000 * 130)
        bytes.append(contentsOf: #"{"images": ["#.utf8)
        for index in 0..<150_000 {
            if index > 0 { bytes.append(contentsOf: ",\n".utf8) }
            let width = Int.random(in: 200...1600, using: &random)
            let height = Int.random(in: 200...1600, using: &random)
            let section = index / 5_000
            bytes.append(
                contentsOf:
                    #"{"id": "a\#(index)", "width": \#(width), "height": \#(height), "section": "s\#(section < 10 ? "0" : "")\#(section)", "url": "https://example.com/a\#(index).jpg", "title": "Image a\#(index)"}"#
                    .utf8)
        }
        bytes.append(contentsOf: "]}\n".utf8)
        return Data(bytes)
    }()

    /// `PRAGMA integrity_check` through `sqlite3` when it is installed, else nil.
    func integrityCheck(_ database: String) throws -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard
            let sqlite3 = folders.map({ "\($0)/sqlite3" }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            return nil
        }
        let run = try ServeCLI.run(
            [database, "PRAGMA integrity_check;"], in: folder.url, executable: URL(fileURLWithPath: sqlite3))
        return String(decoding: run.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) + run.errors
    }

    /// The files in the server's temporary folder (where request bodies are spooled).
    func spooledFiles(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    @Test func sigtermDuringA150000ImageUploadDrainsAndExitsZero() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        let spool = folder.path("spool")
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let before = try cli(database, ["feeds", "--json"])
        let feed = Self.bigFeed
        let server = try ServeProcess(database: database, in: folder, temporaryFolder: spool)
        defer { server.stop() }

        // Given a PUT of 150,000 images under way, written in chunks
        let connection = try ServeHTTPConnection(port: server.port, timeout: 60)
        defer { connection.close() }
        try connection.send(
            Data(
                ("PUT /v1/feeds/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(feed.count)\r\nConnection: close\r\n\r\n").utf8))
        let chunk = 128 << 10
        var sent = 0
        var signalled = false
        var sendFailure: String?
        while sent < feed.count {
            let end = min(sent + chunk, feed.count)
            do {
                try connection.send(feed[sent..<end])
            } catch {
                sendFailure = "\(error) after \(sent) bytes"
                break
            }
            sent = end
            // When SIGTERM arrives partway through the body (the client keeps sending)
            if !signalled && sent >= feed.count / 3 {
                server.terminate()
                signalled = true
            }
        }
        #expect(signalled)
        let response = try? connection.readResponse()

        // Then the server exits 0 within 40 s
        let exit = server.waitForExit(timeout: 40)
        #expect(exit?.status == 0 && exit?.signalled == false, "server: \(server.exitDescription)\n\(server.errorTail)")
        #expect(server.remainingOutput().isEmpty, "the server printed more than its one line")
        // and the database holds all of the feed or nothing of it.
        let counts = try feedCounts(database)
        #expect(counts["big"] == nil || counts["big"] == 150_000, "big holds \(counts["big"] ?? 0) images")
        if counts["big"] == nil {
            #expect(try cli(database, ["feeds", "--json"]) == before)
        } else {
            let last = String(
                decoding: try cli(
                    database, ["images", "--feed", "big", "--offset", "149999", "--limit", "1", "--json"]),
                as: UTF8.self)
            #expect(last.contains(#""id":"a149999""#), "\(last)")
        }
        if let response {
            // An answer that arrived tells the truth about what happened.
            if response.status == 201 {
                #expect(counts["big"] == 150_000)
                #expect(
                    response.text
                        == #"{"feed":"big","revision":1,"inserted":150000,"updated":0,"moved":0,"removed":0,"unchanged":0}"#
                        + "\n")
            } else {
                #expect(counts["big"] == nil, "answered \(response.status) \(response.text) but the feed was written")
                #expect(response.status == 503, "\(response.status) \(response.text)")
            }
        }
        print(
            "serve: SIGTERM after \(feed.count / 3) of \(feed.count) bytes; sent \(sent)\(sendFailure.map { " (\($0))" } ?? ""); "
                + "answer \(response.map { "\($0.status)" } ?? "none"); big holds \(counts["big"] ?? 0) images")
        if let integrity = try integrityCheck(database) {
            #expect(integrity == "ok", "\(integrity)")
        }
        #expect(spooledFiles(spool).isEmpty, "request bodies left behind: \(spooledFiles(spool))")
        // The command line still reads the database as before.
        #expect(try cli(database, ["layout", "list", "--feed", "travel", "--json"]).isEmpty == false)
    }

    @Test func aClientThatDisconnectsMidBodyChangesNothing() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        let spool = folder.path("spool")
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let server = try ServeProcess(database: database, in: folder, temporaryFolder: spool)
        defer { server.stop() }
        let before = try snapshot(database)
        let feed = Self.bigFeed

        for (name, abort) in [("big", false), ("travel", true)] {
            // Given a PUT (of a new feed, then over an existing one) that stops halfway:
            // a clean close, then a reset
            let connection = try ServeHTTPConnection(port: server.port, timeout: 30)
            try connection.send(
                Data(
                    ("PUT /v1/feeds/\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(feed.count)\r\n\r\n").utf8))
            try connection.send(feed[0..<(feed.count / 2)])
            if abort { connection.reset() } else { connection.close() }

            // Then the server forgets it: nothing written, no body left spooled, still serving.
            let deadline = Date().addingTimeInterval(10)
            while !spooledFiles(spool).isEmpty && Date() < deadline { usleep(20_000) }
            #expect(spooledFiles(spool).isEmpty, "\(name): request body left behind: \(spooledFiles(spool))")
            #expect(try ServeHTTPClient.request("GET", "/healthz", port: server.port).status == 200)
            #expect(try snapshot(database) == before, "\(name): a request cut off mid-body changed the catalog")
            try expectSameAnswer(server, "/v1/feeds", database, ["feeds"])
        }
        #expect(server.isRunning)
        server.terminate()
        let exit = server.waitForExit(timeout: 40)
        #expect(exit?.status == 0 && exit?.signalled == false, "server: \(server.exitDescription)\n\(server.errorTail)")
        if let integrity = try integrityCheck(database) {
            #expect(integrity == "ok", "\(integrity)")
        }
    }
}

// MARK: - The command line, byte for byte

/// A finished command: its exit status, the exact bytes of its standard output, its errors.
struct ServeCLIRun {
    var status: Int32
    var output: Data
    var errors: String
}

enum ServeCLI {
    /// Runs `executable arguments…` (the built `waterfall` by default) in `folder` to completion.
    static func run(_ arguments: [String], in folder: URL, executable: URL = WaterfallProcess.executable) throws
        -> ServeCLIRun
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WATERFALL_DB")
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorBytes = ServeLockedBytes()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorBytes.set(errors.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outputBytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        group.wait()
        return ServeCLIRun(
            status: process.terminationStatus, output: outputBytes,
            errors: String(decoding: errorBytes.get(), as: UTF8.self))
    }
}

final class ServeLockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}

// MARK: - The server process

struct ServeTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// `waterfall serve --db DATABASE --port 0` started in the background; its port read from the
/// one line it prints when it listens. Stopped (SIGKILL, this process only) by ``stop()``.
final class ServeProcess {
    let process = Process()
    let port: Int
    let database: String
    private let output = Pipe()
    private let errorPath: String

    /// - Parameter host: the address to listen on (the client connects to 127.0.0.1 all the
    ///   same, which `0.0.0.0` covers).
    init(
        database: String, in folder: TemporaryDirectory, arguments: [String] = [], temporaryFolder: String? = nil,
        host: String = "127.0.0.1"
    ) throws {
        self.database = database
        errorPath = folder.path("serve-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = WaterfallProcess.executable
        process.arguments = ["serve", "--db", database, "--port", "0", "--host", host] + arguments
        process.currentDirectoryURL = folder.url
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WATERFALL_DB")
        if let temporaryFolder { environment["TMPDIR"] = temporaryFolder }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()

        // Read standard output as it comes until the line arrives (20 s at most).
        let descriptor = output.fileHandleForReading.fileDescriptor
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(20)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let remaining = deadline.timeIntervalSinceNow
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard remaining > 0, poll(&poller, 1, Int32(min(remaining, 0.5) * 1000)) >= 0 else { break }
            guard poller.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        let line = String(decoding: bytes, as: UTF8.self)
        // "waterfall: serving DATABASE at http://HOST:PORT/" (a PostgreSQL URL without its password).
        let marker = " at http://\(host):"
        guard line.hasPrefix("waterfall: serving "), let at = line.range(of: marker, options: .backwards),
            line.hasSuffix("/\n"),
            let port = Int(line[at.upperBound...].dropLast(2)), port > 0
        else {
            if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw ServeTestError(
                "waterfall serve did not say where it listens within 20 s; it printed \(line.debugDescription), errors: \(errors)"
            )
        }
        self.port = port
    }

    var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM.
    func terminate() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGTERM) }
    }

    /// Waits at most `timeout` seconds for the end; nil while it still runs.
    func waitForExit(timeout: TimeInterval) -> (status: Int32, signalled: Bool)? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    var exitDescription: String {
        guard !process.isRunning else { return "still running" }
        return process.terminationReason == .uncaughtSignal
            ? "killed by signal \(process.terminationStatus)" : "exited \(process.terminationStatus)"
    }

    /// The end of what the server wrote on standard error.
    var errorTail: String {
        String(((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "").suffix(3000))
    }

    /// The lines of standard error that say why the server crashed (the runtime failure and
    /// the frames in the package's own sources).
    var crashSummary: String {
        let text = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter {
            $0.contains("runtime failure") || ($0.contains("/Sources/") && !$0.contains("/.build/"))
        }
        return lines.prefix(6).joined(separator: "\n")
    }

    /// What standard output holds past the first line (read without waiting).
    func remainingOutput() -> Data {
        let descriptor = output.fileHandleForReading.fileDescriptor
        var bytes = Data()
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    /// Kills the server (SIGKILL) unless it has ended, and waits for it.
    func stop() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

// MARK: - A raw HTTP/1.1 client

/// One answer: status, headers as sent, and the exact body bytes.
struct ServeHTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

#if canImport(Glibc)
private let noSignalFlag = Int32(MSG_NOSIGNAL)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let noSignalFlag: Int32 = 0
private let streamSocket = SOCK_STREAM
#endif

/// A TCP connection to the server, written and read byte for byte: the request line goes out
/// exactly as given (malformed escapes included), and sending never raises SIGPIPE.
final class ServeHTTPConnection {
    private var descriptor: Int32
    /// Bytes received past the last response read (the next pipelined response's start).
    private var buffer = Data()
    private var closed = false

    init(port: Int, timeout: TimeInterval) throws {
        descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw ServeTestError("socket: \(String(cString: strerror(errno)))") }
        var time = timeval(tv_sec: .init(timeout), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let socketDescriptor = descriptor
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close()
            throw ServeTestError("connect to port \(port): \(reason)")
        }
    }

    deinit { close() }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.send(
                    descriptor, bytes.baseAddress! + offset, bytes.count - offset, noSignalFlag)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    throw ServeTestError("send: \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// Reads one response: up to the end of its headers, then (unless it answers a HEAD) its
    /// Content-Length bytes, its chunks, or everything up to the close.
    func readResponse(toHead: Bool = false) throws -> ServeHTTPResponse {
        func fill() throws {
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count < 0 {
                if errno == EINTR { return }
                throw ServeTestError("recv: \(String(cString: strerror(errno)))")
            }
            if count == 0 { closed = true }
            buffer.append(contentsOf: chunk[0..<count])
        }
        let separator = Data("\r\n\r\n".utf8)
        var headerEnd: Range<Data.Index>?
        while true {
            headerEnd = buffer.range(of: separator)
            if headerEnd != nil { break }
            if closed {
                throw ServeTestError(
                    "the connection closed before the headers ended: \(String(decoding: buffer, as: UTF8.self).debugDescription)"
                )
            }
            try fill()
        }
        let head = String(decoding: buffer[..<headerEnd!.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw ServeTestError("not an HTTP response: \(head.debugDescription)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let response = ServeHTTPResponse(status: status, headers: headers, body: Data())
        buffer = Data(buffer[headerEnd!.upperBound...])
        if toHead { return response }
        if let length = response.header("Content-Length").flatMap(Int.init) {
            while buffer.count < length && !closed { try fill() }
            guard buffer.count >= length else {
                throw ServeTestError("the body ended after \(buffer.count) of \(length) bytes")
            }
            defer { buffer = Data(buffer.dropFirst(length)) }
            return ServeHTTPResponse(status: status, headers: headers, body: Data(buffer.prefix(length)))
        }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            var body = Data()
            while true {
                while buffer.range(of: Data("\r\n".utf8)) == nil {
                    if closed { throw ServeTestError("the chunked body ended early") }
                    try fill()
                }
                let lineEnd = buffer.range(of: Data("\r\n".utf8))!
                let sizeText =
                    String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                    throw ServeTestError("bad chunk size \(sizeText.debugDescription)")
                }
                buffer = Data(buffer[lineEnd.upperBound...])
                while buffer.count < size + 2 {
                    if closed { throw ServeTestError("the chunked body ended early") }
                    try fill()
                }
                if size == 0 {
                    buffer = Data(buffer.dropFirst(2))
                    return ServeHTTPResponse(status: status, headers: headers, body: body)
                }
                body.append(buffer.prefix(size))
                buffer = Data(buffer.dropFirst(size + 2))
            }
        }
        while !closed { try fill() }
        defer { buffer = Data() }
        return ServeHTTPResponse(status: status, headers: headers, body: buffer)
    }

    /// Up to `limit` bytes as they come after the response's head (the rest of what the last
    /// read took first), or `nil` once the peer closed the connection and nothing is left.
    func readSome(limit: Int) throws -> Data? {
        if !buffer.isEmpty {
            defer { buffer = Data(buffer.dropFirst(limit)) }
            return Data(buffer.prefix(limit))
        }
        if closed { return nil }
        var chunk = [UInt8](repeating: 0, count: limit)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count > 0 { return Data(chunk[0..<count]) }
            if count == 0 {
                closed = true
                return nil
            }
            if errno != EINTR { throw ServeTestError("recv: \(String(cString: strerror(errno)))") }
        }
    }

    /// Closes the connection (a FIN: the peer sees the end of the stream).
    func close() {
        guard descriptor >= 0 else { return }
        _ = Foundation.close(descriptor)
        descriptor = -1
    }

    /// Aborts the connection (a RST: SO_LINGER with a zero timeout, then close).
    func reset() {
        guard descriptor >= 0 else { return }
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }
}

enum ServeHTTPClient {
    /// Sends one request on a new connection (`Connection: close`) and reads the answer.
    static func request(
        _ method: String, _ target: String, port: Int, headers: [String: String] = [:], body: Data? = nil
    ) throws -> ServeHTTPResponse {
        let connection = try ServeHTTPConnection(port: port, timeout: 30)
        defer { connection.close() }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if body != nil || method == "PUT" || method == "POST" { head += "Content-Length: \(body?.count ?? 0)\r\n" }
        head += "\r\n"
        try connection.send(Data(head.utf8) + (body ?? Data()))
        return try connection.readResponse(toHead: method == "HEAD")
    }
}
