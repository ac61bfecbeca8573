import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGTERM as an orchestrator sends it (DESIGN section 18): the server stops taking
/// connections, lets requests in flight finish within the grace (`--shutdown-grace`), answers
/// one that could not 503, ends event streams with a last comment, and exits 0.
extension ServeEndToEndTests {
    /// Starts `PUT /v1/feeds/big` of ``bigFeed`` on a new connection and sends half its body.
    private func startBigUpload(_ server: ServeProcess) throws -> ServeHTTPConnection {
        let feed = Self.bigFeed
        let connection = try ServeHTTPConnection(port: server.port, timeout: 60)
        try connection.send(
            Data(
                ("PUT /v1/feeds/big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(feed.count)\r\nConnection: close\r\n\r\n").utf8))
        try connection.send(feed[0..<(feed.count / 2)])
        return connection
    }

    @Test func sigtermLetsAnUploadInFlightFinishThenExitsZero() throws {
        defer { folder.remove() }
        // Given a server taking a 150,000-image upload, half of it sent
        let database = try makeCatalog("shutdown.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let connection = try startBigUpload(server)
        defer { connection.close() }

        // When SIGTERM comes, and then the rest of the body
        server.terminate()
        usleep(300_000)
        // (the server no longer takes connections)
        let refused = Result { try ServeHTTPClient.request("GET", "/v1/feeds/travel", port: server.port) }
        if case .success(let answer) = refused {
            Issue.record("a new connection was answered after SIGTERM: \(answer.status)")
        }
        let feed = Self.bigFeed
        try connection.send(feed[(feed.count / 2)...])

        // Then the upload is answered 201, with what it imported, and the server exits 0
        let answer = try connection.readResponse()
        #expect(answer.status == 201, "\(answer.status) \(answer.text.prefix(300))")
        #expect(answer.text.contains(#""inserted":150000"#), "\(answer.text.prefix(300))")
        let exit = server.waitForExit(timeout: 30)
        #expect(exit?.status == 0 && exit?.signalled == false, "\(server.exitDescription): \(server.errorTail)")
        #expect(try feedCounts(database)["big"] == 150_000)
    }

    @Test func anUploadNotDoneWhenTheGraceEndsIsAnswered503AndTheServerExitsZero() throws {
        defer { folder.remove() }
        // Given a server with a 1-second grace, taking an upload of which half has come
        let database = try makeCatalog("grace.sqlite")
        let before = try snapshot(database)
        let server = try ServeProcess(database: database, in: folder, arguments: ["--shutdown-grace", "1"])
        defer { server.stop() }
        let connection = try startBigUpload(server)
        defer { connection.close() }

        // When SIGTERM comes and the rest of the body does not
        server.terminate()

        // Then the upload is answered 503, a problem document with Retry-After, not cut off
        let answer = try connection.readResponse()
        #expect(answer.status == 503, "\(answer.status) \(answer.text.prefix(300))")
        #expect(
            answer.header("Content-Type") == "application/problem+json" && answer.header("Retry-After") == "1",
            "\(answer.headers)")
        #expect(answer.text.contains("did not finish within its 1-second grace"), "\(answer.text)")
        let exit = server.waitForExit(timeout: 30)
        #expect(exit?.status == 0 && exit?.signalled == false, "\(server.exitDescription): \(server.errorTail)")
        // And nothing of it was written
        #expect(try snapshot(database) == before)
    }

    @Test(.enabled(if: curlIsInstalled))
    func anEventStreamEndsWithALastCommentWhenTheServerShutsDown() throws {
        defer { folder.remove() }
        // Given an open event stream
        let database = try makeCatalog("shutdown-events.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let listener = try EventListener(port: server.port, path: "/v1/feeds/travel/events")
        defer { listener.stop() }
        #expect(listener.wait(for: "retry: 1000", timeout: 10) != nil, "the stream did not open: \(listener.text)")

        // When SIGTERM comes
        server.terminate()

        // Then the stream's last words are the comment, then its end; the server exits 0
        #expect(listener.wait(for: ": shutting down\n\n", timeout: 10) != nil, "\(listener.text)")
        let deadline = Date().addingTimeInterval(10)
        while listener.process.isRunning && Date() < deadline { usleep(20_000) }
        #expect(!listener.process.isRunning, "the stream did not end")
        #expect(listener.text.hasSuffix(": shutting down\n\n"), "\(listener.text.suffix(200))")
        let exit = server.waitForExit(timeout: 30)
        #expect(exit?.status == 0 && exit?.signalled == false, "\(server.exitDescription)")
    }

    @Test func anImageStreamStillRunningWhenTheGraceEndsIsCutAndTheServerExitsZero() throws {
        defer { folder.remove() }
        // Given a server with a 1-second grace, and a 150,000-image feed (some 20 MB as lines)
        let database = try makeCatalog("grace-stream.sqlite")
        let server = try ServeProcess(database: database, in: folder, arguments: ["--shutdown-grace", "1"])
        defer { server.stop() }
        let upload = try startBigUpload(server)
        try upload.send(Self.bigFeed[(Self.bigFeed.count / 2)...])
        #expect(try upload.readResponse().status == 201)
        upload.close()

        // And a client streaming the catalog as lines, reading 64 KiB every 20 ms (some 3 MB/s)
        let stream = try ServeHTTPConnection(port: server.port, timeout: 30)
        defer { stream.close() }
        try stream.send(
            Data(
                "GET /v1/feeds/big/images HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/x-ndjson\r\nConnection: close\r\n\r\n"
                    .utf8))
        let head = try stream.readResponse(toHead: true)
        #expect(head.status == 200 && head.header("Transfer-Encoding") == "chunked", "\(head.status) \(head.headers)")
        var received = Data()
        if let first = try stream.readSome(limit: 64 << 10) { received += first }

        // When SIGTERM comes
        server.terminate()
        let terminated = Date()
        while let bytes = try stream.readSome(limit: 64 << 10) {
            received += bytes
            usleep(20_000)
        }

        // Then the stream is cut soon after the grace: the connection closes without the
        // chunked body's last chunk, short of the 150,000 lines the first line promised
        let (lines, whole) = Self.dechunked(received)
        #expect(
            !whole,
            "the stream ended whole, \(lines.count) lines, \(Date().timeIntervalSince(terminated)) s after SIGTERM")
        #expect(lines.first?.contains(#""totalItems":150000"#) == true, "\(lines.first ?? "")")
        #expect(lines.count < 150_001, "\(lines.count) lines")
        #expect(
            Date().timeIntervalSince(terminated) < 15,
            "the stream ended \(Date().timeIntervalSince(terminated)) s after SIGTERM")
        // And the server exits 0
        let exit = server.waitForExit(timeout: 30)
        #expect(exit?.status == 0 && exit?.signalled == false, "\(server.exitDescription): \(server.errorTail)")
    }

    /// The lines of a chunked body as received, and whether it ended with its last chunk.
    private static func dechunked(_ bytes: Data) -> (lines: [String], whole: Bool) {
        var body = Data()
        var rest = bytes[...]
        var whole = false
        while let lineEnd = rest.range(of: Data("\r\n".utf8)),
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16)
        {
            if size == 0 {
                whole = true
                break
            }
            let start = lineEnd.upperBound
            let end = rest.index(start, offsetBy: size, limitedBy: rest.endIndex) ?? rest.endIndex
            body += rest[start..<end]
            guard rest.distance(from: end, to: rest.endIndex) >= 2 else { break }
            rest = rest[rest.index(end, offsetBy: 2)...]
        }
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, whole)
    }

    @Test func aBadShutdownGraceIsOneSentenceAndUsage() throws {
        defer { folder.remove() }
        let database = try makeCatalog("grace-flag.sqlite")
        for value in ["-1", "soon", "10s", "nan", "1e3", "3601", ""] {
            let run = try ServeCLI.run(
                ["--db", database, "serve", "--port", "0", "--shutdown-grace", value], in: folder.url)
            #expect(run.status == 64, "\(value.debugDescription): \(run.errors)")
            let sentence =
                "waterfall: error: --shutdown-grace takes a number of seconds from 0 to 3600, such as 10 or 2.5, got \(value.debugDescription)."
            #expect(run.errors.hasPrefix(sentence) && run.errors.split(separator: "\n").count == 1, "\(run.errors)")
            #expect(run.output.isEmpty)
        }
    }
}
