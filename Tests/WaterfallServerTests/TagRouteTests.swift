import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// Tags over HTTP (DESIGN section 20): listings carry them, `tag` lists the images carrying one
/// (paged, by cursor, and as lines), and a tag no image could carry is a 400 in one sentence.
@Suite struct TagRouteTests {
    private static func fixture() async throws -> TestServer {
        let fixture = try await TestServer()
        let file = try fixture.folder.write(
            #"""
            {"feed": "tagged", "images": [
              {"id": "a", "width": 100, "height": 100, "tags": ["sea", "família"]},
              {"id": "b", "width": 100, "height": 200},
              {"id": "c", "width": 300, "height": 100, "tags": ["sea"]},
              {"id": "d", "width": 300, "height": 100, "tags": ["seas"]}]}
            """#, to: "tagged.json")
        _ = try await fixture.service.importFeed(contentsOf: file, options: .init())
        return fixture
    }

    @Test func aTagListsItsImagesPagedByCursorAndAsLines() async throws {
        let fixture = try await Self.fixture()
        let expected = try document(try await fixture.service.images(feed: "tagged", offset: 0, limit: 1, tag: "sea"))
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/tagged/images", method: .get) { response in
                let images = response.object["images"] as? [[String: Any]] ?? []
                #expect(images.map { $0["tags"] as? [String] } == [["sea", "família"], nil, ["sea"], ["seas"]])
            }
            var next = ""
            try await client.execute(uri: "/v1/feeds/tagged/images?tag=sea&limit=1", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text == expected)
                #expect(response.object["totalItems"] as? Int == 2)
                next = response.object["nextCursor"] as? String ?? ""
            }
            try await client.execute(uri: "/v1/feeds/tagged/images?tag=sea&limit=1&cursor=\(next)", method: .get) {
                response in
                let images = response.object["images"] as? [[String: Any]] ?? []
                #expect(images.map { $0["id"] as? String } == ["c"])
                #expect(images.map { $0["index"] as? Int } == [1])
            }
            // A tagged cursor goes on with its tag only
            try await client.execute(uri: "/v1/feeds/tagged/images?limit=1&cursor=\(next)", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/v1/feeds/tagged/images?tag=fam%C3%ADlia", method: .get) { response in
                #expect((response.object["images"] as? [[String: Any]])?.map { $0["id"] as? String } == ["a"])
            }
            try await client.execute(
                uri: "/v1/feeds/tagged/images?tag=sea", method: .get, headers: [.accept: "application/x-ndjson"]
            ) { response in
                let lines = response.text.split(separator: "\n").map(String.init)
                #expect(lines.count == 3)
                #expect(lines.first?.contains(#""totalItems":2"#) == true)
                #expect(lines.dropFirst().map { $0.contains(#""tags":["sea""#) } == [true, true])
            }
            for bad in ["", "a%09b", String(repeating: "x", count: 65)] {
                try await client.execute(uri: "/v1/feeds/tagged/images?tag=\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest)
                    #expect(
                        (response.object["detail"] as? String)?.hasPrefix(
                            "tag must be 1 to 64 bytes without control characters")
                            == true)
                }
            }
        }
    }
}
