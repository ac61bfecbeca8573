import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The abuse suite (DESIGN section 19, issue 50): a `waterfall serve` process, on each engine,
/// under a client that sends every GET route numbers at the edges, forged and truncated tokens,
/// `HEAD` on every GET, bodies it abandons, streams it never reads, 500 connections at once, and
/// event streams from revision 0 of a large import, while another process removes and remakes a
/// feed the server keeps. Asserted: no 5xx but 503, the process alive, its memory bounded, and
/// the remade feed answered as a fresh computation.
@Suite(.serialized, .onOwnThreads) struct AbuseTests {
    static let engines: [TestEngine] = TestEngine.all

    /// The values sent to every numeric or free query parameter.
    static let hostileValues = [
        "-1", "0", "1", "2147483647", "2147483648", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "1e308", "-1e308", "1e-320", "NaN", "inf", "-inf", "0x10",
        "", "%00", "abc", "1.5", String(repeating: "9", count: 400),
    ]

    @Test(.timeLimit(.minutes(10)), arguments: engines)
    func aHostileClientGetsNo5xxButUnavailableAndTheServerStaysUpWithBoundedMemory(engine: TestEngine) throws {
        let folder = try TemporaryDirectory(prefix: "waterfall-abuse")
        defer { folder.remove() }
        let schema = engine == .postgres ? try PostgresScratchSchema() : nil
        defer { withExtendedLifetime(schema) {} }
        let database = schema?.url ?? folder.path("abuse.sqlite")
        func cli(_ arguments: [String]) throws -> Data {
            let run = try ServeCLI.run(["--db", database] + arguments, in: folder.url)
            try #require(run.status == 0, "waterfall \(arguments): \(run.errors)")
            return run.output
        }
        _ = try cli(["import", ServeEndToEndTests.sample("travel.json")])
        _ = try cli(["import", ServeEndToEndTests.sample("coco-val2017.json")])
        _ = try cli(["layout", "add", "phone", "--feed", "travel", "--columns", "2", "--width", "375"])
        _ = try cli(["layout", "add", "phone", "--feed", "coco-val2017", "--columns", "2", "--width", "375"])
        let big = 120_000
        try Self.writeFeed("big", sections: [big], to: folder.path("big.json"))
        _ = try cli(["import", folder.path("big.json")])
        try Self.writeFeed("f", sections: [10, 10, 10, 10], to: folder.path("f1.json"))
        _ = try cli(["import", folder.path("f1.json")])
        let grid = ["--columns", "3", "--width", "600", "--header-height", "40"]
        _ = try cli(["layout", "add", "grid", "--feed", "f"] + grid)

        let server = try ServeProcess(database: database, in: folder, arguments: ["--max-streams", "64"])
        defer { server.stop() }
        let port = server.port
        var failures: [String] = []
        var requests = 0
        func ask(_ method: String, _ target: String, headers: [String: String] = [:], body: Data? = nil)
            -> ServeHTTPResponse?
        {
            requests += 1
            do {
                let answer = try ServeHTTPClient.request(method, target, port: port, headers: headers, body: body)
                if answer.status >= 500 && answer.status != 503 {
                    failures.append("\(method) \(target): \(answer.status) \(answer.text.prefix(200))")
                }
                return answer
            } catch {
                failures.append("\(method) \(target): \(error)")
                return nil
            }
        }
        // Warm: the kept feeds loaded, then the memory before.
        _ = ask("GET", "/v1/feeds/f/layouts/grid/page?offset=0&limit=40")
        _ = ask("GET", "/v1/feeds/coco-val2017/layouts/phone/page?offset=4000&limit=100")
        let before = try #require(Self.residentKiB(server.process.processIdentifier))

        // Every GET route, every query parameter, at the edges (event streams by their head).
        for route in try Self.getRoutes() {
            let path = route.path.replacingOccurrences(of: "{feed}", with: "coco-val2017")
                .replacingOccurrences(of: "{name}", with: "phone")
            for parameter in route.parameters {
                for value in Self.hostileValues {
                    let escaped = value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
                    let target = "\(path)?\(parameter)=\(escaped)"
                    if path.hasSuffix("/events") {
                        Self.head(of: "GET", target, port: port, failures: &failures)
                        requests += 1
                    } else {
                        _ = ask("GET", target)
                    }
                }
            }
            // HEAD on every GET: the GET's status, no body, nothing held.
            if !path.hasSuffix("/events") {
                let get = ask("GET", path)
                let head = ask("HEAD", path)
                if let get, let head, get.status != head.status || !head.body.isEmpty {
                    failures.append("HEAD \(path): \(head.status) with \(head.body.count) bytes; GET \(get.status)")
                }
            }
        }
        for _ in 0..<4 {
            _ = ask("HEAD", "/v1/feeds/coco-val2017/images", headers: ["Accept": "application/x-ndjson"])
            _ = ask("HEAD", "/v1/feeds/coco-val2017/events")
        }
        let lines = ask("GET", "/v1/feeds/coco-val2017/images", headers: ["Accept": "application/x-ndjson"])
        #expect(lines?.status == 200, "the NDJSON listing after HEADs: \(lines?.status ?? 0)")

        // Forged, cut and replayed tokens and preconditions.
        let page = ask("GET", "/v1/feeds/coco-val2017/images?limit=7")
        let cursor =
            (try? JSONSerialization.jsonObject(with: page?.body ?? Data()) as? [String: Any])?["nextCursor"]
            as? String ?? ""
        #expect(!cursor.isEmpty)
        for forged in [
            Self.base64url("1:9223372036854775807:0"), Self.base64url("1:-1:0"), String(cursor.dropLast()),
            cursor + "AA", String(cursor.reversed()), String(repeating: "A", count: cursor.count), "%00", "=",
        ] {
            let answer = ask("GET", "/v1/feeds/coco-val2017/images?limit=1&cursor=\(forged)")
            if answer?.status != 400 { failures.append("forged cursor \(forged): \(answer?.status ?? 0), not 400") }
        }
        let replayed = ask("GET", "/v1/feeds/travel/images?limit=1&cursor=\(cursor)")
        if replayed?.status != 400 { failures.append("a cursor of another feed: \(replayed?.status ?? 0), not 400") }
        let move = Data(#"{"moves": [{"id": "belem", "to": 0}]}"#.utf8)
        for (name, value) in [
            ("If-Match", "\"9223372036854775807-9223372036854775807-0\""), ("If-Match", "\"-1--1-\""),
            ("If-Match", "garbage"), ("X-Feed-Revision", "99999999999999999999"), ("X-Feed-Revision", "-1"),
        ] {
            let answer = ask(
                "POST", "/v1/feeds/travel/reorder", headers: ["Content-Type": "application/json", name: value],
                body: move)
            if let status = answer?.status, status < 400 { failures.append("\(name): \(value) wrote: \(status)") }
        }
        for id in ["-1", "99999999999999999999", "abc", "1.5"] {
            Self.head(
                of: "GET", "/v1/feeds/travel/events", headers: ["Last-Event-ID": id], port: port, failures: &failures)
        }

        // Clients that vanish mid-body, or mid-head.
        for index in 0..<20 {
            let connection = try ServeHTTPConnection(port: port, timeout: 5)
            let head =
                index % 2 == 0
                ? "PUT /v1/feeds/vanished HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n{\"images\": ["
                : "GET /v1/feeds/travel/layouts/phone/pa"
            try? connection.send(Data(head.utf8) + Data(repeating: 0x20, count: index % 2 == 0 ? 65_536 : 0))
            connection.reset()
        }
        // Streams that are never read: the listing's cap refuses the third at once, and the
        // rest of the server answers meanwhile; once their clients go, the slots come back.
        var stalled: [ServeHTTPConnection] = []
        for _ in 0..<2 {
            let connection = try ServeHTTPConnection(port: port, timeout: 5)
            try connection.send(
                Data(
                    "GET /v1/feeds/big/images HTTP/1.1\r\nHost: x\r\nAccept: application/x-ndjson\r\n\r\n".utf8))
            stalled.append(connection)
        }
        usleep(500_000)
        let third = ask("GET", "/v1/feeds/coco-val2017/images", headers: ["Accept": "application/x-ndjson"])
        #expect(third?.status == 503 && third?.header("Retry-After") != nil, "\(third?.status ?? 0)")
        #expect(ask("GET", "/livez")?.status == 200)
        for connection in stalled { connection.reset() }
        var freed = false
        for _ in 0..<50 where !freed {
            usleep(200_000)
            freed =
                ask("GET", "/v1/feeds/travel/images", headers: ["Accept": "application/x-ndjson"])?.status == 200
        }
        #expect(freed, "the slots of streams whose clients left were not given back")

        // 500 connections at once, each asking for a page.
        var crowd: [ServeHTTPConnection] = []
        for index in 0..<500 {
            let connection = try ServeHTTPConnection(port: port, timeout: 30)
            try connection.send(
                Data(
                    "GET /v1/feeds/coco-val2017/layouts/phone/page?offset=\(index * 7 % 4900)&limit=50 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .utf8))
            crowd.append(connection)
        }
        var statuses: [Int: Int] = [:]
        for connection in crowd {
            let status = (try? connection.readResponse().status) ?? 0
            statuses[status, default: 0] += 1
            connection.close()
        }
        requests += crowd.count
        crowd.removeAll()
        #expect(
            statuses.keys.allSatisfy { $0 == 200 || $0 == 503 }, "500 connections at once answered \(statuses)")

        // The change log of the large import, asked for a page: its one revision by its counts.
        let changes = ask("GET", "/v1/feeds/big/changes?since=0&limit=10")
        #expect(
            changes?.text
                == #"{"feed":"big","revision":1,"truncatedRevision":1,"inserted":\#(big),"updated":0,"moved":0,"removed":0,"changes":[]}"#
                + "\n", "\(changes?.text.prefix(300) ?? "")")

        // Four event streams from revision 0 of the large import: each sends its first revision
        // as its counts, and the server's memory stays bounded.
        var streams: [ServeHTTPConnection] = []
        for _ in 0..<4 {
            let connection = try ServeHTTPConnection(port: port, timeout: 10)
            try connection.send(Data("GET /v1/feeds/big/events?since=0 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            streams.append(connection)
        }
        for connection in streams {
            var received = Data()
            let deadline = Date().addingTimeInterval(10)
            while !String(decoding: received, as: UTF8.self).contains("\"truncated\":true"), Date() < deadline {
                guard let more = try? connection.readSome(limit: 65_536) else { break }
                received += more
            }
            let text = String(decoding: received, as: UTF8.self)
            #expect(
                text.contains("\"truncated\":true") && text.contains("\"inserted\":\(big)"),
                "\(text.suffix(300))")
        }
        let during = try #require(Self.residentKiB(server.process.processIdentifier))
        for connection in streams { connection.reset() }

        // A feed the server keeps, removed and made anew by another process (same images, other
        // sections): answered as a fresh computation.
        _ = try cli(["feed", "remove", "f"])
        try Self.writeFeed("f", sections: [5, 15, 10, 10], to: folder.path("f2.json"))
        _ = try cli(["import", folder.path("f2.json")])
        _ = try cli(["layout", "add", "grid", "--feed", "f"] + grid)
        let fresh = try cli(["page", "--feed", "f", "--layout", "grid", "--offset", "0", "--limit", "40", "--json"])
        var served = ask("GET", "/v1/feeds/f/layouts/grid/page?offset=0&limit=40")
        let deadline = Date().addingTimeInterval(1)
        while served?.body != fresh && Date() < deadline {
            usleep(50_000)
            served = ask("GET", "/v1/feeds/f/layouts/grid/page?offset=0&limit=40")
        }
        #expect(served?.body == fresh, "the remade feed: \(served?.text.prefix(300) ?? "")")

        let after = try #require(Self.residentKiB(server.process.processIdentifier))
        #expect(server.isRunning, "the server died: \(server.crashSummary)")
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(requests) requests failed:\n\(failures.prefix(20).joined(separator: "\n"))")
        let growth = max(during, after) - before
        #expect(growth < 64 << 10, "the server grew by \(growth / 1024) MiB")
        print(
            "abuse (\(engine)): \(requests) requests, \(failures.count) failures; 500 at once: \(statuses.sorted { $0.key < $1.key }); resident \(before / 1024) MiB before, \(during / 1024) MiB with four event streams from revision 0 of a \(big)-image import, \(after / 1024) MiB after (growth \(growth / 1024) MiB)"
        )
    }

    /// A feed file of `sections` (image counts) named `feed`, sizes varied.
    static func writeFeed(_ feed: String, sections: [Int], to path: String) throws {
        var text = #"{"feed": "\#(feed)", "images": ["#
        var index = 0
        for (section, count) in sections.enumerated() {
            for _ in 0..<count {
                if index > 0 { text += "," }
                text +=
                    #"{"id": "i\#(index)", "width": \#(300 + index % 7 * 50), "height": \#(200 + index % 5 * 60), "section": "s\#(section)"}"#
                index += 1
            }
        }
        text += "]}"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Sends a request and reads only its head (a stream's body never ends), recording a 5xx
    /// other than 503.
    static func head(
        of method: String, _ target: String, headers: [String: String] = [:], port: Int, failures: inout [String]
    ) {
        do {
            let connection = try ServeHTTPConnection(port: port, timeout: 10)
            defer { connection.reset() }
            var request = "\(method) \(target) HTTP/1.1\r\nHost: x\r\n"
            for (name, value) in headers { request += "\(name): \(value)\r\n" }
            try connection.send(Data((request + "\r\n").utf8))
            let answer = try connection.readResponse(toHead: true)
            if answer.status >= 500 && answer.status != 503 { failures.append("\(method) \(target): \(answer.status)") }
        } catch {
            failures.append("\(method) \(target): \(error)")
        }
    }

    /// The GET routes of the API document, with the names of their query parameters.
    static func getRoutes() throws -> [(path: String, parameters: [String])] {
        let document = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: ServeEndToEndTests.repository.appending(
                        path: "Sources/WaterfallServer/Assets/openapi.json")))
                as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let components = (document["components"] as? [String: Any])?["parameters"] as? [String: Any] ?? [:]
        var routes: [(path: String, parameters: [String])] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            guard let get = (item as? [String: Any])?["get"] as? [String: Any] else { continue }
            var names: [String] = []
            for parameter in get["parameters"] as? [[String: Any]] ?? [] {
                let resolved =
                    (parameter["$ref"] as? String).flatMap { components[String($0.split(separator: "/").last!)] }
                    as? [String: Any] ?? parameter
                if resolved["in"] as? String == "query", let name = resolved["name"] as? String { names.append(name) }
            }
            routes.append((path, names))
        }
        return routes
    }

    /// The resident memory of process `pid`, in KiB.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }
        return nil
    }
}
