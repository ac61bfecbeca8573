import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// API keys: none in the database, and the server answers everyone; one or more, and every
/// request but liveness and the API's description needs one that covers its feed.
@Suite struct KeyTests {
    let json: HTTPFields = [.contentType: "application/json"]

    func bearer(_ secret: String) -> HTTPFields {
        [.authorization: "Bearer \(secret)"]
    }

    @Test func withoutKeysTheServerAnswersEveryone() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/feeds/travel/images/belem", method: .delete) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func keysDecideWhoReadsAndWritesWhichFeed() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        _ = try await service.importFeed(
            contentsOf: TestServer.sampleData("coco-sample.ndjson"), options: .init(feedName: "coco"))
        let admin = try await service.addKey(name: "admin", feeds: [], canWrite: true)
        let reader = try await service.addKey(name: "reader", feeds: ["travel"], canWrite: false)
        let editor = try await service.addKey(name: "editor", feeds: ["coco"], canWrite: true)
        #expect(admin.hasPrefix("wf_") && admin.count == 67 && admin != reader)
        await #expect(try service.keys().keys.map(\.name) == ["admin", "editor", "reader"])
        try await fixture.test { client in
            let move = ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            // Liveness and the API's description stay open.
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/openapi.json", method: .get) { #expect($0.status == .ok) }
            // No key, an unknown key: 401.
            try await client.execute(uri: "/v1/feeds/travel/images", method: .get) { response in
                response.expectProblem(.unauthorized, "needs an API key")
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
            }
            try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: bearer("wf_nope")) {
                $0.expectProblem(.unauthorized, "not one of this server's")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/images", method: .get, headers: [.authorization: "Basic eDp5"]
            ) {
                $0.expectProblem(.unauthorized)
            }
            // A read-only key reads its feed, may not write it (403), and finds no other feed (404).
            try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: bearer(reader)) {
                #expect($0.status == .ok)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + bearer(reader), body: move
            ) {
                $0.expectProblem(.forbidden, "may read but not write")
            }
            try await client.execute(uri: "/v1/feeds/coco/images", method: .get, headers: bearer(reader)) {
                $0.expectProblem(.notFound, "unknown feed \"coco\".")
            }
            try await client.execute(uri: "/v1/feeds", method: .get, headers: bearer(reader)) { response in
                #expect((response.object["feeds"] as? [[String: Any]])?.map { $0["name"] as? String } == ["travel"])
            }
            try await client.execute(uri: "/v1/stats", method: .get, headers: bearer(reader)) {
                $0.expectProblem(.forbidden, "covers some feeds only")
            }
            // A writing key of another feed: 404 for this one, whatever the method.
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + bearer(editor), body: move
            ) {
                $0.expectProblem(.notFound, "unknown feed \"travel\".")
            }
            try await client.execute(uri: "/v1/feeds/coco/images", method: .get, headers: bearer(editor)) {
                #expect($0.status == .ok)
            }
            // The admin key does everything.
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + bearer(admin), body: move
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/stats", method: .get, headers: [.authorization: "bearer  \(admin) "]) {
                #expect($0.status == .ok)
            }
            // A removed key is refused from the next request on (another process may remove it).
            try await WaterfallService.open(path: fixture.folder.path("server.sqlite")).removeKey(named: "reader")
            try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: bearer(reader)) {
                $0.expectProblem(.unauthorized)
            }
        }
        await #expect(try service.feed(named: "travel").revision == 2)
    }

    @Test func publicReadOpensReadsOnly() async throws {
        let fixture = try await TestServer(publicRead: true)
        _ = try await fixture.service.addKey(name: "reader", feeds: [], canWrite: false)
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page", method: .get) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/feeds/travel/images/belem", method: .delete) {
                $0.expectProblem(.unauthorized)
            }
        }
    }

    @Test func anExpiredKeyIsRefusedSayingWhenItExpired() async throws {
        // Given a key that expired a second ago and one that works for an hour
        let fixture = try await TestServer()
        let now = Date()
        let expired = try await fixture.service.addKey(
            name: "old", feeds: [], canWrite: false, expires: now.addingTimeInterval(-1))
        let current = try await fixture.service.addKey(
            name: "new", feeds: [], canWrite: false, expires: now.addingTimeInterval(3600))
        let when = KeyExpiry.format(Date(timeIntervalSince1970: (now.timeIntervalSince1970 - 1).rounded(.up)))
        try await fixture.test { client in
            // Then the first is 401 saying so and when, from the kept answer too, and the second reads
            for _ in 1...2 {
                try await client.execute(uri: "/v1/feeds/travel", method: .get, headers: bearer(current)) {
                    #expect($0.status == .ok)
                }
                try await client.execute(uri: "/v1/feeds/travel", method: .get, headers: bearer(expired)) { response in
                    response.expectProblem(.unauthorized, "the API key \"old\" expired at \(when);")
                    #expect(response.headers[.wwwAuthenticate]?.contains("invalid_token") == true)
                }
            }
        }
    }

    @Test func aKeysLastUseIsWrittenOffTheRequest() async throws {
        // Given a key never used
        let fixture = try await TestServer()
        let secret = try await fixture.service.addKey(name: "app", feeds: ["travel"], canWrite: false)
        await #expect(try fixture.service.keys().keys.first?.lastUsed == nil)
        let before = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        // When it reads
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel", method: .get, headers: bearer(secret)) {
                #expect($0.status == .ok)
            }
            // Then its last use is written soon after, by the server's writer
            var lastUsed: Date?
            for _ in 0..<200 where lastUsed == nil {
                lastUsed = try await fixture.service.keys().keys.first?.lastUsed
                if lastUsed == nil { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(lastUsed.map { $0 >= before && $0 <= Date() } == true, "\(String(describing: lastUsed))")
        }
    }

    @Test func accessSaysWhatTheCallerMayDo() async throws {
        // Given a read-only key of one feed, a write key of all, and an expired key
        let fixture = try await TestServer()
        let reader = try await fixture.service.addKey(name: "reader", feeds: ["travel"], canWrite: false)
        let writer = try await fixture.service.addKey(
            name: "writer", feeds: [], canWrite: true, expires: Date(timeIntervalSince1970: 4_102_444_800))
        let old = try await fixture.service.addKey(
            name: "old", feeds: [], canWrite: true, expires: Date().addingTimeInterval(-60))
        try await fixture.test { client in
            // Then /v1/access tells each what it may do (the gallery offers no drag to the first)
            try await client.execute(uri: "/v1/access", method: .get, headers: bearer(reader)) {
                #expect(
                    $0.status == .ok && $0.text == #"{"key":"reader","feeds":["travel"],"write":false}"# + "\n",
                    "\($0.text)")
            }
            try await client.execute(uri: "/v1/access", method: .get, headers: bearer(writer)) {
                #expect(
                    $0.text == #"{"key":"writer","write":true,"expires":"2100-01-01T00:00:00Z"}"# + "\n", "\($0.text)")
            }
            // And an expired key or none is 401, the first saying it expired
            try await client.execute(uri: "/v1/access", method: .get, headers: bearer(old)) {
                $0.expectProblem(.unauthorized, "expired at")
            }
            try await client.execute(uri: "/v1/access", method: .get) {
                $0.expectProblem(.unauthorized, "needs an API key")
            }
        }
        // Without keys, on loopback, anyone may write.
        let open = try await TestServer()
        try await open.test { client in
            try await client.execute(uri: "/v1/access", method: .get) {
                #expect($0.text == #"{"write":true}"# + "\n", "\($0.text)")
            }
        }
    }

    @Test func keyNamesAreCheckedAndUnique() async throws {
        let fixture = try await TestServer()
        _ = try await fixture.service.addKey(name: "a", feeds: [], canWrite: false)
        await #expect(throws: WaterfallError.keyExists("a")) {
            _ = try await fixture.service.addKey(name: "a", feeds: [], canWrite: true)
        }
        await #expect(throws: WaterfallError.self) {
            _ = try await fixture.service.addKey(name: "", feeds: [], canWrite: true)
        }
        await #expect(throws: WaterfallError.unknownKey("b")) { try await fixture.service.removeKey(named: "b") }
        // Only the secret's hash is stored.
        let secret = try await fixture.service.addKey(name: "c", feeds: ["travel"], canWrite: true)
        let file =
            try Data(contentsOf: URL(fileURLWithPath: fixture.folder.path("server.sqlite")))
            + ((try? Data(contentsOf: URL(fileURLWithPath: fixture.folder.path("server.sqlite-wal")))) ?? Data())
        #expect(file.range(of: Data(secret.utf8)) == nil)
        #expect(
            try await fixture.service.keyring().grant(forSecret: secret)
                == KeyGrant(name: "c", canWrite: true, feeds: ["travel"]))
    }
}
