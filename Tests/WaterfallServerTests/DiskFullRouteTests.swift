import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WaterfallTestSupport

/// A full disk over HTTP (issue 38, DESIGN section 18): a write that finds the database's disk
/// full answers 507 with one sentence, leaves the catalog at the revision before it, and reads
/// go on answering; once there is room again, writes work.
///
/// The database lives on a small tmpfs, filled to its last block after the server started.
/// Mounting needs root (CAP_SYS_ADMIN); elsewhere the test is skipped.
@Suite(.serialized) struct DiskFullRouteTests {
    static let insufficientStorage = HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")

    /// A feed `name` of `count` new images, as a request body.
    static func feed(_ name: String?, count: Int, prefix: String) -> ByteBuffer {
        let images = (0..<count).map { index in
            #"{"id": "\#(prefix)-\#(index)", "width": \#(200 + index % 700), "height": \#(300 + index % 500), "url": "https://images.example.com/\#(prefix)/\#(index).jpg"}"#
        }
        let head = name.map { #""feed": "\#($0)", "# } ?? ""
        return ByteBuffer("{\(head)\"images\": [\(images.joined(separator: ",\n"))]}")
    }

    @Test(.enabled(if: SmallDisk.canMount, "mounting a tmpfs needs root: run as root to check a full disk"))
    func writesOnAFullDiskAnswer507AndChangeNothingWhileReadsGoOn() async throws {
        // Given a server over a database on an 8 MB disk, whose answers are recorded
        let folder = try TemporaryDirectory(prefix: "waterfall-disk-full")
        defer { folder.remove() }
        try FileManager.default.createDirectory(atPath: folder.path("disk"), withIntermediateDirectories: false)
        let disk = try SmallDisk(megabytes: 8, at: folder.path("disk"))
        defer { disk.unmount() }
        let fixture = try await TestServer(database: disk.path + "/server.sqlite")
        defer { fixture.folder.remove() }
        let service = fixture.service
        let reads = [
            "/v1/feeds", "/v1/feeds/travel", "/v1/feeds/travel/images?limit=100", "/v1/feeds/travel/changes?since=0",
            "/v1/feeds/travel/layouts/phone/page?offset=0&limit=50", "/v1/feeds/travel/page?columns=3&width=414",
        ]
        try await fixture.test { client in
            var before: [String: String] = [:]
            for uri in reads {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri): \(response.text)")
                    before[uri] = response.text
                }
            }

            // When the disk is full and a move, an append and an import are sent (smallest
            // first, so that none finds room a failed larger one left in the write-ahead log)
            try disk.fill()
            let json: HTTPFields = [.contentType: "application/json"]
            let writes: [(uri: String, method: HTTPRequest.Method, body: ByteBuffer)] = [
                (
                    "/v1/feeds/travel/reorder", .post,
                    ByteBuffer(#"{"moves": [{"id": "tram-28", "before": "lisbon-banner"}]}"#)
                ),
                ("/v1/feeds/travel?mode=append", .put, Self.feed(nil, count: 50, prefix: "appended")),
                ("/v1/feeds/harbour", .put, Self.feed("harbour", count: 2_000, prefix: "harbour")),
            ]
            for write in writes {
                // Then each answers 507 with one sentence saying the disk is full
                try await client.execute(uri: write.uri, method: write.method, headers: json, body: write.body) {
                    response in
                    response.expectProblem(Self.insufficientStorage, "the disk is full; nothing was written.")
                }
            }

            // And the catalog is at the revision before: the database says so, and every read
            // answers 200 with what it answered before
            await #expect(try service.feeds().feeds.map(\.name) == ["travel"])
            await #expect(try service.feed(named: "travel").revision == 1)
            await #expect(try service.changes(feed: "travel", since: 1).changes.isEmpty)
            for uri in reads {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri): \(response.text)")
                    #expect(response.text == before[uri], "\(uri)")
                }
            }

            // And once there is room again, the same move works
            try disk.free()
            try await client.execute(uri: writes[0].uri, method: .post, headers: json, body: writes[0].body) {
                response in
                #expect(response.status == .ok, "\(response.text)")
                #expect(response.object["revision"] as? Int == 2)
            }
        }
    }
}
