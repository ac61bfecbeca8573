import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// `GET /metrics`: Prometheus text, with the access of `/v1/stats`, whose counters move with traffic.
@Suite struct MetricsTests {
    /// The samples of a Prometheus text exposition, by series (`name{labels}`).
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test func countersMoveWithTraffic() async throws {
        // Given a server with a key of every feed and a key of one
        let fixture = try await TestServer()
        let admin = try await fixture.service.addKey(name: "admin", feeds: [], canWrite: true)
        let reader = try await fixture.service.addKey(name: "reader", feeds: ["travel"], canWrite: false)
        let bearer: HTTPFields = [.authorization: "Bearer \(admin)"]
        try await fixture.test { client in
            let read = { @Sendable () async throws -> [String: Double] in
                try await client.execute(uri: "/metrics", method: .get, headers: bearer) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
                    return Self.samples(response.text)
                }
            }
            // The access of /v1/stats: a key of some feeds only may not read it, no key neither.
            try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(reader)"]) {
                $0.expectProblem(.forbidden)
            }
            try await client.execute(uri: "/metrics", method: .get) { $0.expectProblem(.unauthorized) }
            let before = try await read()

            // When 25 reads, a refusal and a write go by
            for _ in 1...25 {
                try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: bearer) {
                    #expect($0.status == .ok)
                }
            }
            try await client.execute(uri: "/v1/feeds/nope", method: .get, headers: bearer) {
                #expect($0.status == .notFound)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: bearer + [.contentType: "application/json"],
                body: ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            ) { #expect($0.status == .ok) }
            let after = try await read()

            // Then the counters moved by as much
            func moved(_ series: String) -> Double { (after[series] ?? 0) - (before[series] ?? 0) }
            #expect(
                moved(#"waterfall_http_requests_total{route="/v1/feeds/{feed}/images",method="GET",status="200"}"#)
                    == 25, "\(after)")
            #expect(moved(#"waterfall_http_requests_total{route="/v1/feeds/{feed}",method="GET",status="404"}"#) == 1)
            #expect(
                moved(#"waterfall_http_request_duration_seconds_count{route="/v1/feeds/{feed}/images",method="GET"}"#)
                    == 25)
            // Most reads come from the kept answer; a commit (the key's last use, written once a
            // minute) may retire it once in between.
            let hits = moved(#"waterfall_kept_answers_total{result="hit"}"#)
            let misses = moved(#"waterfall_kept_answers_total{result="miss"}"#)
            #expect(hits + misses >= 25 && hits >= 20 && misses >= 1, "\(hits) hits, \(misses) misses")
            #expect(moved(#"waterfall_writes_total{kind="reorderFeed"}"#) == 1)
            #expect(after[#"waterfall_event_streams_open"#] == 0)

            // And the server kept its feed's geometry before it listened (it has a named
            // layout), which the gauges report, and a page keeps it so
            #expect(before["waterfall_hot_feeds"] == 1)
            try await client.execute(
                uri: "/v1/feeds/travel/page?columns=2&width=375&limit=3", method: .get, headers: bearer
            ) {
                #expect($0.status == .ok)
            }
            let hot = try await read()
            #expect(hot["waterfall_hot_feeds"] == 1)
            #expect((hot["waterfall_hot_geometry_bytes"] ?? 0) >= 12 * 28, "\(hot)")
        }
    }
}
