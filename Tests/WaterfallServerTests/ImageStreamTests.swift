import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

@testable import WaterfallServer

/// The catalog streamed as NDJSON (DESIGN section 16) and the channel that bounds what it holds.
@Suite(.onOwnThreads) struct ImageStreamTests {
    @Test func theStreamIsAHeadLineThenEveryImageAsTheListingGivesIt() async throws {
        let fixture = try await TestServer()
        _ = try await fixture.service.importFeed(
            contentsOf: TestServer.sampleData("coco-val2017.json"), options: .init())
        let listed = try await fixture.service.images(feed: "coco-val2017", offset: 0, limit: 100_000)
        var lines = try StableJSON.document(
            of: ImageStreamHead(feed: "coco-val2017", revision: listed.revision, totalItems: 5_000))
        for image in listed.images { lines += try StableJSON.document(of: image) }
        let expected = lines
        let json = try await StableJSON.document(of: try fixture.service.images(feed: "travel", offset: 0, limit: 50))
        try await fixture.test { client in
            try await client.execute(
                uri: "/v1/feeds/coco-val2017/images", method: .get, headers: [.accept: "application/x-ndjson"]
            ) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/x-ndjson")
                #expect(Array(buffer: response.body) == expected)
            }
            // A listing kept as JSON is not served to a client that asks for lines, and back.
            for accept in [
                "application/json", "application/json, application/x-ndjson",
                "application/x-ndjson;q=0.5, application/json",
            ] {
                try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: [.accept: accept]) {
                    response in
                    #expect(
                        response.headers[.contentType] == "application/json" && Array(buffer: response.body) == json,
                        "\(accept)")
                }
            }
            try await client.execute(
                uri: "/v1/feeds/travel/images", method: .get,
                headers: [.accept: "application/json;q=0.9, application/x-ndjson"]
            ) { response in
                #expect(
                    response.headers[.contentType] == "application/x-ndjson"
                        && response.text.hasPrefix(#"{"feed":"travel","revision":1,"totalItems":13}"#))
            }
            try await client.execute(
                uri: "/v1/feeds/nope/images", method: .get, headers: [.accept: "application/x-ndjson"]
            ) {
                $0.expectProblem(.notFound, "unknown feed \"nope\".")
            }
            // Paged by cursor: the next slice while the feed stays; 410 with its revision after a move.
            let cursor = try await client.execute(uri: "/v1/feeds/travel/images?limit=5", method: .get) { response in
                try #require(response.object["nextCursor"] as? String)
            }
            try await client.execute(uri: "/v1/feeds/travel/images?limit=5&cursor=\(cursor)", method: .get) {
                response in
                #expect((response.object["images"] as? [[String: Any]])?.first?["index"] as? Int == 5)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(#"{"moves": [{"id": "belem", "to": 0}]}"#)
            ) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/feeds/travel/images?limit=5&cursor=\(cursor)", method: .get) {
                response in
                response.expectProblem(.gone, "changed since this listing began at revision 1")
                #expect(response.object["revision"] as? Int == 2)
            }
            try await client.execute(uri: "/v1/feeds/travel/images?offset=1&cursor=\(cursor)", method: .get) {
                $0.expectProblem(.badRequest, "cursor and offset cannot be given together.")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/images?offset=3", method: .get, headers: [.accept: "application/x-ndjson"]
            ) {
                $0.expectProblem(.badRequest, "unknown query parameter \"offset\"")
            }
        }
    }

    /// A reader thread that sends more than the channel holds waits until the writer takes
    /// some, and stops at once when the writer goes away.
    @Test func theReaderWaitsForRoomAndStopsWhenTheWriterGoes() async throws {
        // Patience of an hour: beside the whole suite, which holds the cooperative threads for
        // minutes, this test's own awaits can come later than the default 60 s.
        let channel = BatchChannel(capacity: 2, patience: .seconds(3_600))
        let sent = Atomic(0)
        let outcome = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                for index in 0..<100 {
                    try channel.send(ByteBuffer(string: "\(index)"))
                    sent.add(1, ordering: .relaxed)
                }
                channel.finish(nil)
            } catch {
                // As the route's reader does: the writer hears why the reader stopped.
                outcome.withLock { $0 = error }
                channel.finish(error)
            }
            done.signal()
        }.start()
        // Room for two: the reader sends two and waits. (A reader left waiting 60 s, the
        // channel's patience, by a late scheduler stops as stalled: then the next()s below
        // throw instead of waiting for ever.)
        try await Task.sleep(for: .milliseconds(300))
        #expect(sent.load(ordering: .relaxed) == 2)
        #expect(try await channel.next() == ByteBuffer(string: "0"))
        #expect(try await channel.next() == ByteBuffer(string: "1"))
        #expect(try await channel.next() == ByteBuffer(string: "2"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(sent.load(ordering: .relaxed) == 5)
        channel.close()
        let stopped = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: done.wait(timeout: .now() + 10) == .success) }.start()
        }
        #expect(stopped)
        #expect(outcome.withLock { ($0 as? BatchChannel.Stop) == .closed })
        #expect(sent.load(ordering: .relaxed) <= 6)
    }

    @Test func theReadersFailureReachesTheWriter() async throws {
        struct Broken: Error {}
        let channel = BatchChannel(capacity: 4)
        try channel.send(ByteBuffer(string: "a"))
        channel.finish(Broken())
        #expect(try await channel.next() == ByteBuffer(string: "a"))
        await #expect(throws: Broken.self) { try await channel.next() }
    }
}
