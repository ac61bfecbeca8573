import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// Share links over HTTP (DESIGN section 20): a link serves its feed or view without a key,
/// read-only, reaching nothing else; pinned answers are public and immutable; a removed or
/// expired link answers 404 like one never made.
@Suite struct ShareRouteTests {
    /// The travel fixture with a view of its wide images, and a write key (so that nothing
    /// answers without a key but the links).
    private static func fixture() async throws -> (TestServer, key: String) {
        let fixture = try await TestServer()
        _ = try await fixture.service.addView(
            feed: "travel", name: "wide",
            rule: try ViewRule(json: Array(#"{"where": {"aspect": {"min": 1.2}}}"#.utf8), source: "rule"))
        let key = try await fixture.service.addKey(name: "owner", feeds: [], canWrite: true)
        return (fixture, key)
    }

    @Test func aLinkServesItsViewWithoutAKeyReadOnlyAndNothingElse() async throws {
        let (fixture, key) = try await Self.fixture()
        let link = try await fixture.service.addShare(feed: "travel", view: "wide", layout: nil, expires: nil)
        let feedLink = try await fixture.service.addShare(feed: "travel", view: nil, layout: "phone", expires: nil)
        try await fixture.service.addLayout(
            feed: "travel", name: "desk", configuration: .waterfall(LayoutConfiguration(columns: 4, width: 1200)))
        let view = fixture.service.inView("wide")
        let layout = LayoutSource.named("phone")
        let page = try document(try await view.page(feed: "travel", layout: layout, offset: 0, limit: 5))
        let images = try document(try await view.images(feed: "travel", offset: 0, limit: 50))
        let revision = try await fixture.service.feed(named: "travel").revision
        let bearer: HTTPFields = [.authorization: "Bearer \(key)"]
        try await fixture.test { client in
            // Without a key: the API refuses, the link answers as the view
            try await client.execute(uri: "/v1/feeds/travel/views/wide/images", method: .get) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: link.path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["name"] as? String == "wide")
                #expect(response.headers[.cacheControl] == "no-cache")
            }
            // The root takes no revision, kept answer or not (its answer says where the link is)
            for _ in 0..<2 {
                try await client.execute(uri: link.path + "?revision=\(revision)", method: .get) { response in
                    #expect(response.status == .badRequest)
                }
            }
            try await client.execute(uri: link.path + "/images", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.text == images)
            }
            try await client.execute(uri: link.path + "/layouts/phone/page?offset=0&limit=5", method: .get) {
                response in
                #expect(response.text == page)
                #expect(response.headers[.cacheControl] == "no-cache")
            }
            // Pinned to its revision: public and immutable; to another, 410; the same again
            // from the kept answer (the kept-answer gate pins as the route does)
            for _ in 0..<2 {
                try await client.execute(
                    uri: link.path + "/layouts/phone/page?offset=0&limit=5&revision=\(revision)", method: .get
                ) { response in
                    #expect(response.status == .ok)
                    #expect(response.text == page)
                    #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                }
                try await client.execute(
                    uri: link.path + "/layouts/phone/page?offset=0&limit=5&revision=\(revision - 1)", method: .get
                ) { response in
                    #expect(response.status == .gone)
                    #expect(response.object["revision"] as? Int == Int(revision))
                }
            }
            // Read-only, and nothing outside its scope: writes, other feeds' routes, the keys
            for (uri, method) in [
                (link.path + "/reorder", HTTPRequest.Method.post), (link.path + "/images/a", .delete),
                (link.path + "/../v1/stats", .get), (link.path + "/views", .get),
                (link.path + "/layouts/phone", .put),
            ] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect([.notFound, .methodNotAllowed].contains(response.status), "\(method) \(uri)")
                }
            }
            // A link with a layout answers that layout only
            try await client.execute(uri: feedLink.path + "/layouts/phone/page?limit=3", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: feedLink.path + "/page?columns=3&width=500", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: feedLink.path, method: .get) { response in
                #expect(response.object["name"] as? String == "travel")
            }
            // The feed's layouts: every one through a link without a layout, its own through one
            func layoutNames(_ path: String) async throws -> [String]? {
                try await client.execute(uri: path + "/layouts", method: .get) { response in
                    (response.object["layouts"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                }
            }
            let all = try await layoutNames(link.path) ?? []
            #expect(Set(all) == ["desk", "phone"])
            #expect(try await layoutNames(feedLink.path) == ["phone"])
            try await client.execute(uri: feedLink.path + "/layouts/phone", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["columns"] != nil)
            }
            try await client.execute(uri: feedLink.path + "/layouts/\(all.first { $0 != "phone" }!)", method: .get) {
                response in
                #expect(response.status == .notFound)
            }
            // Made up, cut or altered tokens answer as a removed one: 404, saying nothing
            for token in ["nope", String(link.path.dropFirst(3).dropLast()), String(link.path.dropFirst(3)) + "A"] {
                try await client.execute(uri: "/s/\(token)/images", method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(response.object["detail"] as? String == "no share link answers this path.")
                }
            }
            // Links are made, listed and removed with the key
            try await client.execute(uri: "/v1/shares", method: .get, headers: bearer) { response in
                #expect((response.object["shares"] as? [[String: Any]])?.count == 2)
            }
            try await client.execute(
                uri: "/v1/shares", method: .post, headers: bearer + [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"feed": "travel", "view": "wide", "expires": "1h"}"#)
            ) { response in
                #expect(response.status == .created)
                #expect((response.object["path"] as? String)?.hasPrefix("/s/") == true)
            }
            try await client.execute(uri: "/v1/shares/\(link.share.id)", method: .delete, headers: bearer) {
                response in
                #expect(response.status == .noContent)
            }
        }
        // Removed: gone within a second (the book reads the catalog every half second)
        try await Task.sleep(for: .milliseconds(600))
        try await fixture.test { client in
            try await client.execute(uri: link.path + "/images", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func anExpiredLinkAnswersNothing() async throws {
        let (fixture, _) = try await Self.fixture()
        let link = try await fixture.service.addShare(
            feed: "travel", view: nil, layout: nil, expires: Date().addingTimeInterval(1))
        try await fixture.test { client in
            try await client.execute(uri: link.path + "/sections", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        try await Task.sleep(for: .milliseconds(2_100))
        try await fixture.test { client in
            try await client.execute(uri: link.path + "/sections", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func aKeyOfAnotherFeedReachesNoLinkAndALinkWhoseViewWentNamesNothing() async throws {
        let (fixture, _) = try await Self.fixture()
        let file = try fixture.folder.write(
            #"{"feed": "other", "images": [{"id": "x", "width": 10, "height": 10}]}"#, to: "other.json")
        _ = try await fixture.service.importFeed(contentsOf: file, options: .init())
        let otherKey = try await fixture.service.addKey(name: "other", feeds: ["other"], canWrite: true)
        let link = try await fixture.service.addShare(feed: "travel", view: "wide", layout: nil, expires: nil)
        try await fixture.test { client in
            // A write key of another feed can neither remove the link nor make one to this feed
            try await client.execute(
                uri: "/v1/shares/\(link.share.id)", method: .delete, headers: [.authorization: "Bearer \(otherKey)"]
            ) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(
                uri: "/v1/shares", method: .post,
                headers: [.authorization: "Bearer \(otherKey)", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"feed": "travel"}"#)
            ) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: link.path + "/images", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        // A link limited to a layout named "é" reaches no layout named "e" and a combining accent
        try await fixture.service.addLayout(
            feed: "travel", name: "caf\u{e9}", configuration: .waterfall(LayoutConfiguration(columns: 2, width: 300)))
        try await fixture.service.addLayout(
            feed: "travel", name: "cafe\u{301}", configuration: .waterfall(LayoutConfiguration(columns: 3, width: 300)))
        let limited = try await fixture.service.addShare(
            feed: "travel", view: nil, layout: "caf\u{e9}", expires: Date().addingTimeInterval(3_600))
        let revision = try await fixture.service.feed(named: "travel").revision
        try await fixture.test { client in
            try await client.execute(uri: limited.path + "/layouts/caf%C3%A9/page?limit=2", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: limited.path + "/layouts/cafe%CC%81/page?limit=2", method: .get) {
                response in
                #expect(response.status == .notFound)
            }
            // Pinned through a link that expires within the hour: kept no longer than it lasts
            try await client.execute(
                uri: limited.path + "/layouts/caf%C3%A9/page?limit=2&revision=\(revision)", method: .get
            ) { response in
                let control = response.headers[.cacheControl] ?? ""
                let age = Int(control.split(separator: "=").last?.split(separator: ",").first ?? "") ?? 0
                #expect(control.hasPrefix("public, max-age=") && control.hasSuffix(", immutable"))
                #expect(age > 3_500 && age <= 3_601)
            }
            // The link's gallery: the page, with its one layout percent-encoded (nothing in a
            // name is markup), sending no Referer (the token is in its address); a link that
            // answers nothing has the same page with 404, which says so in a browser
            try await client.execute(uri: limited.path + "/gallery", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                #expect(response.text.contains(#"<meta name="waterfall-share-layout" content="caf%C3%A9">"#))
            }
            try await client.execute(uri: "/s/\(String(repeating: "A", count: 24))/gallery", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(!response.text.contains("waterfall-share-layout"))
            }
            // The event stream through a link limited to a layout (it names none); its end at
            // the link's removal is ServeEventsTests' (a live stream)
            try await client.execute(uri: limited.path + "/events", method: .head) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
            }
        }
        // Once its view is removed, the link says no more than a removed link does
        try await fixture.service.removeView(feed: "travel", name: "wide")
        try await Task.sleep(for: .milliseconds(600))
        try await fixture.test { client in
            for suffix in ["", "/images", "/layouts/phone/page"] {
                try await client.execute(uri: link.path + suffix, method: .get) { response in
                    #expect(response.status == .notFound)
                    #expect(response.object["detail"] as? String == "no share link answers this path.", "\(suffix)")
                }
            }
        }
    }
}
