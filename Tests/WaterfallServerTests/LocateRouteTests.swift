import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallServer

/// `…/locate` and the anchored viewport (DESIGN section 16) over HTTP: the service's answers in
/// the stable JSON, and bad requests refused with one sentence.
@Suite struct LocateRouteTests {
    @Test func locateAndTheAnchoredViewportAreTheServicesAnswers() async throws {
        let fixture = try await TestServer()
        let located = try await fixture.service.locate(
            feed: "travel", layout: .named("phone"), .id("tram-28"), limit: 4)
        let expected = String(decoding: try StableJSON.document(of: located), as: UTF8.self)
        let inline = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 3, width: 600)))
        let expectedInline = await String(
            decoding: try StableJSON.document(
                of: try fixture.service.locate(feed: "travel", layout: inline, .id("tram-28"))), as: UTF8.self)
        let anchored = try await fixture.service.viewport(
            feed: "travel", layout: .named("phone"), y: located.frame.y - 40, height: 300, pinOffset: 0)
        let expectedViewport = String(decoding: try StableJSON.document(of: anchored), as: UTF8.self)
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/locate?id=tram-28&limit=4", method: .get) {
                response in
                #expect(response.status == .ok && response.text == expected)
                #expect(response.headers[.eTag]?.hasPrefix("\"1-") == true)
                let frame = response.object["frame"] as? [String: Any]
                #expect(frame.map { Array($0.keys).sorted() } == ["height", "width", "x", "y"])
            }
            try await client.execute(uri: "/v1/feeds/travel/locate?id=tram-28&columns=3&width=600", method: .get) {
                response in
                #expect(response.status == .ok && response.text == expectedInline)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone/viewport?anchor=tram-28&anchorY=40&height=300&pinHeaders=true",
                method: .get
            ) { response in
                #expect(response.status == .ok && response.text == expectedViewport)
            }
        }
    }

    @Test func badLocatesAreRefusedWithOneSentence() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                (
                    "/v1/feeds/travel/layouts/phone/locate?id=nope", .notFound,
                    "unknown image id \"nope\" in feed \"travel\"."
                ),
                ("/v1/feeds/travel/layouts/phone/locate", .badRequest, "id or date is required."),
                (
                    "/v1/feeds/travel/layouts/phone/locate?id=tram-28&date=2024-05-01", .badRequest,
                    "cannot be given together"
                ),
                ("/v1/feeds/travel/layouts/phone/locate?date=May", .badRequest, "date must be a date YYYY-MM-DD"),
                ("/v1/feeds/travel/layouts/phone/locate?id=tram-28&limit=0", .badRequest, "limit"),
                ("/v1/feeds/travel/layouts/tablet/locate?id=tram-28", .notFound, "unknown layout"),
                ("/v1/feeds/travel/layouts/phone/viewport?anchor=tram-28&y=3&height=300", .badRequest, "y and anchor"),
                (
                    "/v1/feeds/travel/layouts/phone/viewport?anchorY=3&y=3&height=300", .badRequest,
                    "anchorY goes with anchor."
                ),
                ("/v1/feeds/travel/layouts/phone/viewport?anchor=nope&height=300", .notFound, "unknown image id"),
            ]
            for (uri, status, fragment) in cases {
                try await client.execute(uri: uri, method: .get) { $0.expectProblem(status, fragment) }
            }
        }
    }
}
