import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Waterfall
import WaterfallSync

/// A local catalog that follows a Waterfall server (DESIGN section 21): for an app that must
/// scroll offline, and for an edge that serves near its readers (`waterfall serve --db MIRROR`).
///
/// A first ``sync()`` lists each feed whole; later ones apply what changed since the mirror's
/// revision, each feed in one transaction, so a mirror killed at any moment holds each feed at a
/// revision its source had (and the next sync ends equal to the source). A feed removed or made
/// anew at the source, or a change log pruned past the mirror's revision, is listed again.
/// Everything the service answers is then answered from the local catalog, as the source did at
/// the mirror's revision; writes to it are refused (``WaterfallError/mirrorIsReadOnly(source:)``).
///
/// The loop an app runs:
///
/// ```swift
/// let mirror = try await WaterfallMirror(source: "https://feeds.example.com", key: apiKey, path: catalogPath)
/// defer { Task { try? await mirror.close() } }
/// try? await mirror.sync()                       // at launch; offline, the catalog answers as it is
/// let page = try await mirror.service.page(…)     // the service's queries, on the local catalog
/// let following = Task { try await mirror.follow() }   // while open: each change within a second
/// // … when the app goes to the background:
/// following.cancel()
/// ```
public final class WaterfallMirror: Sendable {
    /// The server followed, without a trailing slash.
    public let source: String
    /// The feeds followed; empty: every feed the key may read.
    public let feeds: [String]
    /// The local catalog's service: every query the source answers.
    public let service: WaterfallService
    let key: String?
    private let client: HTTPClient

    /// How long a read may wait for the server's next bytes.
    static let patience = TimeAmount.seconds(30)

    /// Opens (creating when new) the catalog at `path` as a mirror of the server at `source`
    /// (`http://` or `https://`), with API key `key` when the server asks for one, following
    /// `feeds` (empty: every feed the key may read).
    /// - Throws: ``WaterfallError`` for a source that is not an HTTP URL, or a catalog that
    ///   cannot be opened.
    public init(source: String, key: String? = nil, path: String, feeds: [String] = []) async throws(WaterfallError) {
        var trimmed = source
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil, url.query == nil
        else {
            throw WaterfallError.invalidValue(
                .mirrorSource, "must be a server's URL, http://HOST[:PORT] or https://, got \(source.quoted).")
        }
        self.source = trimmed
        self.key = key
        self.feeds = feeds
        service = try WaterfallService.open(path: path)
        do {
            try await service.checkMirrorTarget(source: trimmed)
        } catch {
            await service.database.close()
            throw error
        }
        client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                timeout: .init(connect: .seconds(10), read: Self.patience)))
    }

    /// Closes the connections to the server and the local catalog.
    public func close() async throws {
        try await client.shutdown()
        await service.database.close()
    }

    /// What one ``sync()`` did to one feed.
    public enum FeedOutcome: String, Sendable, Codable {
        /// Listed whole (a first sync, or the source's log no longer reaches the mirror).
        case listed
        /// Brought up to date from the change log.
        case caughtUp
        /// Already at the source's revision.
        case current
        /// Gone at the source, so removed from the mirror.
        case removed
    }

    /// One feed's sync: its name, what was done, and the revision it is at now.
    public struct FeedReport: Sendable, Codable, Hashable {
        public var feed: String
        public var outcome: FeedOutcome
        public var revision: Int64
        public var images: Int
    }

    /// Brings every followed feed up to the source's revision, one transaction a feed, and
    /// removes the feeds the source no longer has (when following them all).
    /// `progress` is told, during a listing, the lines received of the feed's total.
    /// - Throws: ``WaterfallError`` `unavailable` when the source cannot be reached or stops
    ///   answering (each feed synced before stays synced), `invalidData` for an answer that is
    ///   not what a Waterfall server sends.
    @discardableResult
    public func sync(progress: (@Sendable (_ feed: String, _ lines: Int, _ total: Int) -> Void)? = nil)
        async throws(WaterfallError) -> [FeedReport]
    {
        let names: [String]
        if feeds.isEmpty {
            names = try await sourceFeeds()
            let kept = Set(names.map(ExactString.init))
            for local in try await service.feeds().feeds where !kept.contains(ExactString(local.name)) {
                try await service.removeMirroredFeed(named: local.name)
            }
        } else {
            names = feeds
        }
        var reports: [FeedReport] = []
        for name in names { reports.append(try await sync(feed: name, progress: progress)) }
        return reports
    }

    /// Brings one feed up to the source's revision.
    func sync(feed: String, progress: (@Sendable (String, Int, Int) -> Void)?) async throws(WaterfallError)
        -> FeedReport
    {
        let state = try await service.mirroredVersion(of: feed)
        if let state {
            let query = "since=\(state.revision)&incarnation=\(state.incarnation)"
            switch try await fetch(feed: feed, query: query, progress: nil) {
            case .lines(let head, let spool):
                defer { try? FileManager.default.removeItem(atPath: spool) }
                if try await service.writeMirrorCatchUp(source: source, head: head, linesAt: spool) {
                    return FeedReport(
                        feed: feed, outcome: head.revision == state.revision ? .current : .caughtUp,
                        revision: head.revision, images: head.totalItems)
                }
            case .gone:
                break
            case .missing:
                try await service.removeMirroredFeed(named: feed)
                return FeedReport(feed: feed, outcome: .removed, revision: 0, images: 0)
            }
        }
        switch try await fetch(feed: feed, query: nil, progress: progress) {
        case .lines(let head, let spool):
            defer { try? FileManager.default.removeItem(atPath: spool) }
            try await service.writeMirrorListing(source: source, head: head, linesAt: spool)
            return FeedReport(feed: feed, outcome: .listed, revision: head.revision, images: head.totalItems)
        case .gone:
            throw WaterfallError.invalidData("\(source) answered 410 to a listing of feed \(feed.quoted).")
        case .missing:
            if state != nil { try await service.removeMirroredFeed(named: feed) }
            throw WaterfallError.unknownFeed(feed)
        }
    }

    /// Keeps the followed feeds up to date until cancelled: each feed's event stream says when
    /// it changed, and the feed is synced then, one sync at a time (a server lets a key hold one
    /// listing at once). A stream that ends or fails is opened again after a wait that doubles
    /// from 1 s to 30 s, with a sync first, so nothing is missed while it was closed; a feed the
    /// source answers 404, 401 or 403 for is synced once more (a feed removed goes from the
    /// mirror) and no longer followed. A sync that fails is tried again at the next event.
    public func follow() async throws(WaterfallError) {
        let names = feeds.isEmpty ? try await sourceFeeds() : feeds
        let (changed, signal) = AsyncStream.makeStream(of: String.self)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await name in changed { _ = try? await self.sync(feed: name, progress: nil) }
            }
            await withTaskGroup(of: Void.self) { watchers in
                for name in names { watchers.addTask { await self.watch(feed: name, signal: signal) } }
            }
            signal.finish()
        }
    }

    /// Holds `feed`'s event stream, telling `signal` of each event (and of each reconnection).
    private func watch(feed: String, signal: AsyncStream<String>.Continuation) async {
        var wait = 1
        while !Task.isCancelled {
            signal.yield(feed)
            do {
                var request = HTTPClientRequest(url: "\(source)/v1/feeds/\(Self.segment(feed))/events")
                authorize(&request)
                request.headers.add(name: "Accept", value: "text/event-stream")
                let response = try await client.execute(request, timeout: .hours(24 * 365))
                switch response.status {
                case .ok:
                    wait = 1
                    // The tail of the last chunk: an `event:` split between two chunks is seen.
                    var tail: [UInt8] = []
                    for try await chunk in response.body {
                        let bytes = tail + chunk.readableBytesView
                        if bytes.contains(UInt8(ascii: "\n")), String(decoding: bytes, as: UTF8.self).contains("event:")
                        {
                            signal.yield(feed)
                            tail = []
                        } else {
                            tail = Array(bytes.suffix(8))
                        }
                    }
                case .notFound, .unauthorized, .forbidden:
                    return
                default:
                    _ = try? await response.body.collect(upTo: 1 << 20)
                }
            } catch {}
            try? await Task.sleep(for: .seconds(wait))
            wait = min(wait * 2, 30)
        }
    }

    /// The names of the feeds the source lists to the key.
    private func sourceFeeds() async throws(WaterfallError) -> [String] {
        struct Listed: Decodable {
            struct Feed: Decodable { var name: String }
            var feeds: [Feed]
        }
        var request = HTTPClientRequest(url: "\(source)/v1/feeds")
        authorize(&request)
        let body = try await answer(request, what: "the list of feeds")
        do {
            return try JSONDecoder().decode(Listed.self, from: Data(buffer: body)).feeds.map(\.name)
        } catch {
            throw WaterfallError.invalidData(
                "\(source) answered the list of feeds with something else than a list of feeds.")
        }
    }

    private func authorize(_ request: inout HTTPClientRequest) {
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
    }

    /// A path segment, percent-encoded.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? text
    }

    /// A whole small answer (at most 16 MiB), or the failure that names it.
    private func answer(_ request: HTTPClientRequest, what: String) async throws(WaterfallError) -> ByteBuffer {
        do {
            let response = try await executeRetrying(request)
            guard response.status == .ok else {
                throw WaterfallError.unavailable("\(source) answered \(response.status.code) to \(what).")
            }
            return try await response.body.collect(upTo: 16 << 20)
        } catch let error as WaterfallError {
            throw error
        } catch {
            throw WaterfallError.unavailable("\(source) did not answer \(what): \(error).")
        }
    }

    /// Executes `request`, again after the `Retry-After` a busy server (503) gives, up to 10
    /// times, each wait at most 5 s; and again, up to 3 times, when the connection fails before
    /// an answer (a kept-alive connection the server closed as the request went out).
    func executeRetrying(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var (busy, failed) = (0, 0)
        while true {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: .hours(24))
            } catch {
                failed += 1
                if failed >= 3 || Task.isCancelled { throw error }
                try await Task.sleep(for: .milliseconds(100 * failed))
                continue
            }
            busy += 1
            guard response.status == .serviceUnavailable, busy < 10 else { return response }
            let wait = min(5, max(1, Int(response.headers.first(name: "Retry-After") ?? "") ?? 1))
            _ = try? await response.body.collect(upTo: 1 << 20)
            try await Task.sleep(for: .seconds(wait))
        }
    }
}
