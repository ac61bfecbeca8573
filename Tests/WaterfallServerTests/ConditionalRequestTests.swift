import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// ETags on reads (`If-None-Match` → 304) and preconditions on writes (`If-Match`,
/// `X-Feed-Revision` → 412 and nothing changed): what makes a drag-and-drop reorder safe with
/// two editors.
@Suite struct ConditionalRequestTests {
    let json: HTTPFields = [.contentType: "application/json"]

    @Test func readsCarryATagThatAnswers304UntilTheFeedChanges() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            let uri = "/v1/feeds/travel/layouts/phone/page?offset=0&limit=4"
            let tag = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                return response.headers[.eTag] ?? ""
            }
            #expect(tag.hasPrefix("\"1-") && tag.hasSuffix("\""))
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(
                    response.status == .notModified && response.body.readableBytes == 0
                        && response.headers[.eTag] == tag)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"0-0\", W/\(tag)"]) {
                #expect($0.status == .notModified)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json,
                body: ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: tag]) { response in
                #expect(response.status == .ok && response.headers[.eTag]?.hasPrefix("\"2-") == true)
            }
            // A layout saved under the same name changes the answer without a new revision: so does the tag.
            let layoutTag = try await client.execute(uri: "/v1/feeds/travel/layouts/phone", method: .get) {
                $0.headers[.eTag] ?? ""
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone", method: .put, headers: json,
                body: ByteBuffer(#"{"columns": 3, "width": 375}"#)
            ) { #expect($0.status == .ok) }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone", method: .get, headers: [.ifNoneMatch: layoutTag]
            ) { response in
                #expect(response.status == .ok && response.headers[.eTag] != layoutTag)
            }
        }
    }

    @Test func aStaleWriteIsRefusedAndChangesNothing() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            let tag = try await client.execute(uri: "/v1/feeds/travel/images", method: .get) { $0.headers[.eTag] ?? "" }
            let move = ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + [.ifMatch: tag], body: move
            ) {
                #expect($0.status == .ok)
            }
            let before = try await service.images(feed: "travel", offset: 0, limit: 50)
            // The same tag again: the feed is at revision 2 now.
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + [.ifMatch: tag],
                body: ByteBuffer(#"{"moves": [{"id": "tram-28", "to": 0}]}"#)
            ) {
                $0.expectProblem(.preconditionFailed, "feed \"travel\" is at revision 2, not 1")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/images/belem", method: .delete, headers: [.feedRevision: "1"]
            ) {
                $0.expectProblem(.preconditionFailed, "nothing was written")
            }
            try await client.execute(
                uri: "/v1/feeds/travel", method: .put, headers: json + [.feedRevision: "7"],
                body: ByteBuffer(#"{"images": []}"#)
            ) {
                $0.expectProblem(.preconditionFailed, "is at revision 2, not 7")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone", method: .delete, headers: [.ifMatch: "\"garbage\""]
            ) {
                $0.expectProblem(.preconditionFailed, "names no revision")
            }
            try await client.execute(uri: "/v1/feeds/travel", method: .delete, headers: [.feedRevision: "two"]) {
                $0.expectProblem(.badRequest, "X-Feed-Revision must be a revision")
            }
            await #expect(try service.images(feed: "travel", offset: 0, limit: 50) == before)
            await #expect(try service.layouts(feed: "travel").count == 1)
            // The current revision, or `*`, passes.
            try await client.execute(
                uri: "/v1/feeds/travel/images/belem", method: .delete, headers: [.feedRevision: "2"]
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone", method: .delete, headers: [.ifMatch: "*"]) {
                #expect($0.status == .noContent)
            }
        }
    }

    @Test func twoEditorsOfOneRevisionCannotBothReorder() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            let tag = try await client.execute(uri: "/v1/feeds/travel", method: .get) { $0.headers[.eTag] ?? "" }
            let ids = try await service.images(feed: "travel", offset: 0, limit: 50).images.map(\.id)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for editor in 0..<6 {
                    let body = ByteBuffer(#"{"moves": [{"id": "\#(ids[editor + 2])", "to": 0}]}"#)
                    group.addTask {
                        try await client.execute(
                            uri: "/v1/feeds/travel/reorder", method: .post, headers: json + [.ifMatch: tag], body: body
                        ) { $0.status }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .preconditionFailed }.count == 5)
            await #expect(try service.feed(named: "travel").revision == 2)
            await #expect(try service.changes(feed: "travel", since: 1).changes.count == 1)
        }
    }
}

extension HTTPFields {
    static func + (left: HTTPFields, right: HTTPFields) -> HTTPFields {
        var fields = left
        fields.append(contentsOf: right)
        return fields
    }
}

extension HTTPField.Name {
    static let feedRevision = HTTPField.Name("X-Feed-Revision")!
}
