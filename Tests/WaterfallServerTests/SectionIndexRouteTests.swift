import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// `GET /v1/feeds/{feed}/layouts/{name}/sections`: the service's section index in the stable
/// JSON, tagged and answered 304 like every read.
@Suite struct SectionIndexRouteTests {
    @Test func theIndexIsTheServicesAnswerWithATagThatAnswers304UntilTheFeedChanges() async throws {
        let fixture = try await TestServer()
        let expected = try await document(try fixture.service.sectionIndex(feed: "travel", layout: .named("phone")))
        try await fixture.test { client in
            let uri = "/v1/feeds/travel/layouts/phone/sections"
            let tag = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.text == expected)
                let sections = response.object["sections"] as? [[String: Any]] ?? []
                #expect(!sections.isEmpty)
                #expect(
                    sections.first.map { Array($0.keys).sorted() } == [
                        "count", "height", "index", "section", "title", "y",
                    ])
                return response.headers[.eTag] ?? ""
            }
            #expect(tag.hasPrefix("\"1-"))
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(
                    response.status == .notModified && response.body.readableBytes == 0
                        && response.headers[.eTag] == tag)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .ok && response.headers[.eTag]?.hasPrefix("\"2-") == true)
            }
        }
    }

    @Test func anUnknownFeedOrLayoutIs404AndAnUnknownParameter400() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/nope/layouts/phone/sections", method: .get) {
                $0.expectProblem(.notFound, "unknown feed \"nope\".")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet/sections", method: .get) {
                $0.expectProblem(.notFound, "unknown layout \"tablet\" for feed \"travel\".")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/sections?columns=3", method: .get) {
                $0.expectProblem(.badRequest)
            }
        }
    }
}
