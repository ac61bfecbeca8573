import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import Testing
import Waterfall
import WaterfallServer

/// The access log: one line per request, through swift-log.
@Suite struct AccessLogTests {
    static let requestID = HTTPField.Name("X-Request-ID")!

    @Test func atInfoEveryRequestIsOneLineWithoutSecretsOrQueries() async throws {
        // Given a server logging at info, and a key
        let capture = LogCapture()
        let fixture = try await TestServer(logger: capture.logger(level: .info))
        let secret = try await fixture.service.addKey(name: "app", feeds: [], canWrite: true)
        let bearer: HTTPFields = [.authorization: "Bearer \(secret)"]
        // When it answers a read (twice: the second from the kept answer), a refusal and an unknown route
        let seen = NIOLockedValueBox<[String]>([])
        try await fixture.test { client in
            var ids: [String] = []
            for _ in 1...2 {
                ids.append(
                    try await client.execute(
                        uri: "/v1/feeds/travel/images?offset=2&limit=3", method: .get, headers: bearer
                    ) {
                        #expect($0.status == .ok)
                        return "\($0.headers[Self.requestID] ?? "") \($0.body.readableBytes)"
                    })
            }
            ids.append(
                try await client.execute(uri: "/v1/feeds/travel/images/belem", method: .delete) {
                    #expect($0.status == .unauthorized)
                    return "\($0.headers[Self.requestID] ?? "") \($0.body.readableBytes)"
                })
            ids.append(
                try await client.execute(uri: "/nowhere?secret=1", method: .get, headers: bearer) {
                    #expect($0.status == .notFound)
                    return "\($0.headers[Self.requestID] ?? "") \($0.body.readableBytes)"
                })
            seen.withLockedValue { $0 = ids }
        }
        let ids = seen.withLockedValue { $0 }
        // Then each request is one line: method, route template, status, bytes, duration, key, id
        let entries = capture.entries
        #expect(
            entries.map(\.message) == [
                "GET /v1/feeds/{feed}/images 200", "GET /v1/feeds/{feed}/images 200",
                "DELETE /v1/feeds/{feed}/images/{id} 401", "GET - 404",
            ])
        #expect(entries.map(\.level) == [.info, .info, .notice, .notice])
        for (entry, id) in zip(entries, ids) {
            let fields = entry.metadata
            #expect("\(fields["request_id"] ?? "") \(fields["bytes"] ?? "")" == id)
            #expect(Set(fields.keys) == ["request_id", "method", "route", "status", "bytes", "duration_ms", "key"])
            #expect(Double("\(fields["duration_ms"] ?? "")").map { $0 >= 0 } == true)
            let line = "\(entry.message) \(fields)"
            #expect(
                !line.contains(secret) && !line.contains("offset=") && !line.contains("secret=")
                    && !line.contains("belem"), "\(line)")
        }
        #expect(entries.map { "\($0.metadata["key"] ?? "")" } == ["app", "app", "-", "app"])
    }

    @Test func atTheDefaultLevelOnlyRefusalsAndFailuresAreWritten() async throws {
        let capture = LogCapture()
        let fixture = try await TestServer(logger: capture.logger(level: .notice))
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/feeds/nope", method: .get) { #expect($0.status == .notFound) }
        }
        #expect(capture.entries.map(\.message) == ["GET /v1/feeds/{feed} 404"])
    }
}

/// Log entries kept in memory, for tests.
final class LogCapture: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    private let stored = NIOLockedValueBox<[Entry]>([])

    var entries: [Entry] { stored.withLockedValue { $0 } }

    /// A logger at `level` whose entries land here.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "waterfall-test") { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let entry = Entry(
                level: event.level, message: event.message.description,
                metadata: metadata.merging(event.metadata ?? [:]) { $1 })
            capture.stored.withLockedValue { $0.append(entry) }
        }
    }
}
