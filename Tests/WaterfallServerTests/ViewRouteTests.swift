import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// Views over HTTP (DESIGN section 20): saved with `PUT …/views/{view}`, listed, removed, and
/// every read of a feed answered for a view under `…/views/{view}/…`, as the service answers it.
@Suite struct ViewRouteTests {
    private static func fixture() async throws -> TestServer {
        let fixture = try await TestServer()
        let file = try fixture.folder.write(
            #"""
            {"feed": "tagged", "sections": [{"id": "s1", "title": "One"}, {"id": "s2", "title": "Two"}], "images": [
              {"id": "a", "width": 100, "height": 100, "section": "s1", "tags": ["sea"]},
              {"id": "b", "width": 100, "height": 200, "section": "s1"},
              {"id": "c", "width": 300, "height": 100, "section": "s2", "tags": ["sea"]},
              {"id": "d", "width": 300, "height": 100, "section": "s2", "tags": ["sea", "sun"]}]}
            """#, to: "tagged.json")
        _ = try await fixture.service.importFeed(contentsOf: file, options: .init())
        return fixture
    }

    @Test func aViewIsSavedListedReadAndRemoved() async throws {
        let fixture = try await Self.fixture()
        let json: HTTPFields = [.contentType: "application/json"]
        try await fixture.test { client in
            try await client.execute(
                uri: "/v1/feeds/tagged/views/sea", method: .put, headers: json,
                body: ByteBuffer(string: #"{"where": {"tags": {"all": ["sea"], "none": ["sun"]}}}"#)
            ) { response in
                #expect(response.status == .ok)
                #expect(
                    response.text.trimmingCharacters(in: .newlines)
                        == #"{"name":"sea","rule":{"where":{"tags":{"all":["sea"],"none":["sun"]}}},"images":2,"sections":2}"#
                )
            }
            try await client.execute(uri: "/v1/feeds/tagged/views", method: .get) { response in
                #expect((response.object["views"] as? [[String: Any]])?.map { $0["name"] as? String } == ["sea"])
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/images", method: .get) { response in
                #expect((response.object["images"] as? [[String: Any]])?.map { $0["id"] as? String } == ["a", "c"])
                #expect(response.headers[.cacheControl] == "no-cache")
            }
            // Pinned to the view's revision (its feed's), private and immutable; else 410
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/images?revision=1", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "private, max-age=31536000, immutable")
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/images?limit=1&revision=7", method: .get) {
                response in
                #expect(response.status == .gone)
            }
            try await client.execute(uri: "/v1/feeds/tagged/images?revision=x", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
        // Every read answers as the service does for the view
        let view = fixture.service.inView("sea")
        let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 2, width: 375)))
        let page = try document(try await view.page(feed: "tagged", layout: layout, offset: 0, limit: 10))
        let sections = try document(try await view.sections(feed: "tagged"))
        try await fixture.test { client in
            try await client.execute(
                uri: "/v1/feeds/tagged/views/sea/page?columns=2&width=375&offset=0&limit=10", method: .get
            ) { response in
                #expect(response.status == .ok)
                #expect(response.text == page)
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/sections", method: .get) { response in
                #expect(response.text == sections)
            }
            // A move given in the view is a move in the feed
            try await client.execute(
                uri: "/v1/feeds/tagged/views/sea/reorder", method: .post, headers: json,
                body: ByteBuffer(string: #"{"moves": [{"id": "c", "before": "a"}]}"#)
            ) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/feeds/tagged/images", method: .get) { response in
                #expect(
                    (response.object["images"] as? [[String: Any]])?.map { $0["id"] as? String } == [
                        "c", "a", "b", "d",
                    ])
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/changes?since=1", method: .get) { response in
                let changes = response.object["changes"] as? [[String: Any]] ?? []
                #expect(changes.map { "\($0["kind"] ?? "") \($0["id"] ?? "")" } == ["move c"])
            }
            // A bad rule is a 422 in one sentence; an unknown view a 404
            try await client.execute(
                uri: "/v1/feeds/tagged/views/bad", method: .put, headers: json,
                body: ByteBuffer(string: #"{"where": {"aspect": {"min": "wide"}}}"#)
            ) { response in
                #expect(response.status == .unprocessableContent)
                #expect(
                    response.object["detail"] as? String
                        == #"request body: where.aspect.min: expected a width/height ratio above 0 and at most 1000000, found "wide"."#
                )
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/nope/images", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/v1/feeds/tagged/views/sea/images", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/v1/feeds", method: .get) { response in
                let names = (response.object["feeds"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
                #expect(names.contains("tagged") && !names.contains { $0.unicodeScalars.first?.value == 0x1F })
            }
        }
    }
}
