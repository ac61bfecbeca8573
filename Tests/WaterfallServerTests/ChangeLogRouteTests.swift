import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer
import WaterfallTestSupport

/// `GET …/changes?since=&limit=` over HTTP on both engines: pages of whole revisions with
/// `nextSince`, and 410 with the revision to start from once the log was pruned.
@Suite(.onOwnThreads(lane: .database)) struct ChangeLogRouteTests {
    /// A server over the travel sample on `engine`, and the PostgreSQL schema it lives in.
    static func server(_ engine: TestEngine) async throws -> (TestServer, PostgresScratchSchema?) {
        guard engine == .postgres else { return (try await TestServer(), nil) }
        let schema = try PostgresScratchSchema()
        return (try await TestServer(database: schema.url), schema)
    }

    @Test(arguments: TestEngine.all)
    func pagesCarryNextSinceAndATooOldSinceIsGone(engine: TestEngine) async throws {
        let (fixture, schema) = try await Self.server(engine)
        defer { withExtendedLifetime(schema) {} }
        let service = fixture.service
        // Given the import (revision 1, 13 rows) and 299 moves
        for step in 0..<299 {
            _ = try await service.move(feed: "travel", id: step % 2 == 0 ? "belem" : "tram-28", to: .index(0))
        }
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/changes?since=0&limit=5", method: .get) { response in
                #expect(response.status == .ok)
                let page = response.object
                #expect(
                    (page["changes"] as? [Any])?.count == 13 && page["nextSince"] as? Int == 1
                        && page["revision"] as? Int == 300)
                #expect(response.text.hasPrefix(#"{"feed":"travel","revision":300,"nextSince":1,"changes":["#))
            }
            try await client.execute(uri: "/v1/feeds/travel/changes?since=290&limit=10", method: .get) { response in
                #expect((response.object["changes"] as? [Any])?.count == 10 && response.object["nextSince"] == nil)
            }
            // When the log keeps its last 256 revisions
            await #expect(try service.pruneChanges(keeping: .revisions(256)) == 13 + 43)
            // Then a since before 44 is 410, naming 44 in its sentence and its body
            for uri in [
                "/v1/feeds/travel/changes?since=0", "/v1/feeds/travel/changes?since=43&limit=10",
                "/v1/feeds/travel/events?since=1",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    response.expectProblem(.gone, "is kept from revision 44 on, so the changes since revision")
                    #expect(response.object["oldestSince"] as? Int == 44, "\(uri)")
                }
            }
            try await client.execute(uri: "/v1/feeds/travel/changes?since=44&limit=1000", method: .get) { response in
                #expect(response.status == .ok && (response.object["changes"] as? [Any])?.count == 256)
            }
            try await client.execute(uri: "/v1/feeds/travel/changes?since=44&limit=0", method: .get) {
                $0.expectProblem(.badRequest, "limit must be between 1 and 100000, got 0.")
            }
        }
    }
}
