import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// Kept answers never cross scopes: the key an answer is kept under holds the caller's scope.
@Suite struct KeptAnswerScopeTests {
    func bearer(_ secret: String) -> HTTPFields {
        [.authorization: "Bearer \(secret)"]
    }

    @Test func aFeedScopedKeyAndAnAllFeedsKeyNeverShareAnAnswer() async throws {
        // Given two feeds, a key of one of them and a key of all
        let fixture = try await TestServer()
        _ = try await fixture.service.importFeed(
            contentsOf: TestServer.sampleData("coco-sample.ndjson"), options: .init(feedName: "coco"))
        let travelOnly = try await fixture.service.addKey(name: "travel-only", feeds: ["travel"], canWrite: false)
        let everything = try await fixture.service.addKey(name: "everything", feeds: [], canWrite: false)
        try await fixture.test { client in
            // When the travel-only key, the all-feeds key, and the travel-only key again read the
            // same URL, twice each (the second from a kept answer)
            var answers: [(names: [String], tag: String)] = []
            for secret in [travelOnly, everything, travelOnly, everything] {
                for _ in 1...2 {
                    answers.append(
                        try await client.execute(uri: "/v1/feeds", method: .get, headers: bearer(secret)) { response in
                            #expect(response.status == .ok)
                            let names =
                                (response.object["feeds"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                                ?? []
                            return (names, response.headers[.eTag] ?? "")
                        })
                }
            }
            // Then each sees its own feeds, every time
            #expect(
                answers.map(\.names) == [
                    ["travel"], ["travel"], ["coco", "travel"], ["coco", "travel"], ["travel"], ["travel"],
                    ["coco", "travel"], ["coco", "travel"],
                ])
            #expect(answers[0].tag != answers[2].tag)
            // And an answer kept for the all-feeds key is not one the travel-only key is let into.
            try await client.execute(uri: "/v1/feeds/coco", method: .get, headers: bearer(everything)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/feeds/coco", method: .get, headers: bearer(everything)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/feeds/coco", method: .get, headers: bearer(travelOnly)) {
                $0.expectProblem(.notFound, "unknown feed \"coco\".")
            }
        }
    }
}
