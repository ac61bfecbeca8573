import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer

/// gzip answers (DESIGN section 16, *Compressed answers*): a client that asks with
/// `Accept-Encoding` gets the same document compressed, with an entity tag of its own; one that
/// does not, or refuses gzip, gets the plain bytes; every JSON answer says `Vary: Accept-Encoding`.
@Suite struct CompressionTests {
    let json: HTTPFields = [.contentType: "application/json"]
    let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate, br"]

    /// A feed of 300 images in 60 sections, so that every answer below passes 1 KiB.
    static let bigFeed: String = {
        let images = (0..<300).map { index in
            #"{"id": "i\#(index)", "width": \#(400 + index % 7 * 100), "height": \#(300 + index % 5 * 90), "url": "https://example.com/i\#(index).jpg", "section": "s\#(index / 5)"}"#
        }
        return #"{"feed": "big", "images": ["# + images.joined(separator: ", ") + "]}"
    }()

    static let answers = [
        "/v1/feeds/big/layouts/grid/page?offset=0&limit=100",
        "/v1/feeds/big/layouts/grid/viewport?y=2000&height=1600",
        "/v1/feeds/big/layouts/grid/sections",
        "/v1/feeds/big/section-index?columns=3&width=414",
        "/v1/feeds/big/images?offset=100&limit=100",
        "/v1/feeds/big/changes?since=0",
        "/v1/feeds/big/sections",
        "/openapi.json",
    ]

    @Test func gzipAnswersDecodeToExactlyThePlainBytes() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await Self.addBigFeed(client)
            for uri in Self.answers {
                // Given the plain answer
                let (plain, plainTag) = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentEncoding] == nil, "\(uri)")
                    #expect(response.headers[.vary] == "Accept-Encoding", "\(uri)")
                    return (response.body, response.headers[.eTag])
                }
                #expect(plain.readableBytes >= 1_024, "\(uri) is too small to be compressed")
                // When it is asked for with gzip, twice (the second from the kept answer)
                for _ in 0..<2 {
                    let body = try await client.execute(uri: uri, method: .get, headers: gzip) { response in
                        // Then it is gzip, and decodes to exactly the plain bytes
                        #expect(response.status == .ok, "\(uri)")
                        #expect(response.headers[.contentEncoding] == "gzip", "\(uri)")
                        #expect(response.headers[.vary] == "Accept-Encoding", "\(uri)")
                        #expect(response.headers[.contentType] == "application/json", "\(uri)")
                        #expect(response.body.readableBytes < plain.readableBytes / 2, "\(uri)")
                        // with a tag of its own where the plain answer has one
                        if let plainTag {
                            #expect(response.headers[.eTag] == String(plainTag.dropLast()) + "+gzip\"", "\(uri)")
                        }
                        return response.body
                    }
                    #expect(try Self.gunzip(body) == plain, "\(uri)")
                }
            }
        }
    }

    @Test func eachCodingRevalidatesAgainstItsOwnTag() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await Self.addBigFeed(client)
            let uri = Self.answers[0]
            let plainTag = try await client.execute(uri: uri, method: .get) { $0.headers[.eTag] ?? "" }
            let gzipTag = try await client.execute(uri: uri, method: .get, headers: gzip) { $0.headers[.eTag] ?? "" }
            #expect(plainTag != gzipTag && gzipTag.hasSuffix("+gzip\""))
            // The gzip tag, asking for gzip: 304, saying what it varies on
            try await client.execute(uri: uri, method: .get, headers: gzip + [.ifNoneMatch: gzipTag]) { response in
                #expect(response.status == .notModified && response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == gzipTag && response.headers[.vary] == "Accept-Encoding")
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: plainTag]) {
                #expect($0.status == .notModified)
            }
            // A tag of the other coding names other bytes: the answer is sent
            try await client.execute(uri: uri, method: .get, headers: gzip + [.ifNoneMatch: plainTag]) { response in
                #expect(response.status == .ok && response.headers[.contentEncoding] == "gzip")
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: gzipTag]) { response in
                #expect(response.status == .ok && response.headers[.contentEncoding] == nil)
            }
            // A write's If-Match reads the revision from either tag
            try await client.execute(uri: "/v1/feeds/big/images/i0", method: .delete, headers: [.ifMatch: gzipTag]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test(arguments: [
        nil, "", "identity", "gzip;q=0", "gzip; q=0, identity", "br, deflate", "*;q=0, identity",
        "gzip;q=0.5, identity",
        "gzip;q=x",
    ])
    func plainBytesUnlessGzipIsPreferred(acceptEncoding: String?) async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await Self.addBigFeed(client)
            let headers: HTTPFields = acceptEncoding.map { [.acceptEncoding: $0] } ?? [:]
            try await client.execute(uri: Self.answers[0], method: .get, headers: headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == nil)
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(
                    response.body.readableBytes > 1_024
                        && response.body.getInteger(at: response.body.readerIndex, as: UInt8.self) == UInt8(ascii: "{"))
            }
        }
    }

    @Test(arguments: [
        "gzip", "GZIP", "x-gzip", "*", "identity;q=0.5, gzip", "deflate, gzip;q=1.0",
        "br;q=1, gzip;q=0.2, identity;q=0.1",
    ])
    func gzipWhenItIsAcceptedAndPreferred(acceptEncoding: String) async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await Self.addBigFeed(client)
            try await client.execute(uri: Self.answers[0], method: .get, headers: [.acceptEncoding: acceptEncoding]) {
                response in
                #expect(response.headers[.contentEncoding] == "gzip")
            }
        }
    }

    @Test func smallAnswersAndProblemsStayPlainButSayVary() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/healthz", method: .get, headers: gzip) { response in
                #expect(response.text == "{\"status\":\"ok\"}\n")
                #expect(response.headers[.contentEncoding] == nil && response.headers[.vary] == "Accept-Encoding")
            }
            try await client.execute(uri: "/v1/feeds/nope/images", method: .get, headers: gzip) { response in
                response.expectProblem(.notFound, "unknown feed")
                #expect(response.headers[.contentEncoding] == nil && response.headers[.vary] == "Accept-Encoding")
            }
            // A write's answer (small) too
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json + gzip,
                body: ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            ) { response in
                #expect(
                    response.status == .ok && response.headers[.contentEncoding] == nil
                        && response.headers[.vary] == "Accept-Encoding")
            }
        }
    }

    static func addBigFeed(_ client: any TestClientProtocol) async throws {
        try await client.execute(
            uri: "/v1/feeds/big", method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(bigFeed)
        ) {
            #expect($0.status == .created)
        }
        try await client.execute(
            uri: "/v1/feeds/big/layouts/grid", method: .put, headers: [.contentType: "application/json"],
            body: ByteBuffer(#"{"columns": 3, "width": 414, "headerHeight": 30}"#)
        ) {
            #expect($0.status == .created)
        }
    }

    static func gunzip(_ body: ByteBuffer) throws -> ByteBuffer {
        var compressed = body
        return try compressed.decompress(with: .gzip())
    }
}
