import AsyncHTTPClient
import Foundation
import NIOCore
import Waterfall
import WaterfallSync

extension WaterfallMirror {
    /// What the source answered a mirror's read of a feed.
    enum Fetched {
        /// The head, and the image lines spooled at a path (the caller removes the file).
        case lines(MirrorHead, String)
        /// 410: list the feed again.
        case gone
        /// 404: the source has no such feed.
        case missing
    }

    /// The most bytes a head line may take (a feed's sections, layouts and views; a catch-up's
    /// change log of at most 100,000 rows).
    static let maximumHeadBytes = 64 << 20
    /// The most bytes an image line may take (a feed's image is well under 200 KB at most).
    static let maximumLineBytes = 1 << 20

    /// Reads the feed's listing (`query` nil) or catch-up from the source, spooling its image
    /// lines to a temporary file as they come: the memory held is a chunk's.
    func fetch(feed: String, query: String?, progress: (@Sendable (String, Int, Int) -> Void)?)
        async throws(WaterfallError) -> Fetched
    {
        let url = "\(source)/v1/feeds/\(Self.segment(feed))/mirror" + (query.map { "?" + $0 } ?? "")
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent(
            "waterfall-mirror-\(UUID().uuidString).ndjson"
        ).path
        var keepSpool = false
        defer { if !keepSpool { try? FileManager.default.removeItem(atPath: spool) } }
        do {
            var request = HTTPClientRequest(url: url)
            if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
            let response = try await executeRetrying(request)
            switch response.status {
            case .ok: break
            case .gone:
                _ = try? await response.body.collect(upTo: 1 << 20)
                return .gone
            case .notFound:
                _ = try? await response.body.collect(upTo: 1 << 20)
                return .missing
            default:
                let body = try? await response.body.collect(upTo: 1 << 16)
                let detail = body.flatMap { Self.problemDetail($0) }.map { ": " + $0 } ?? "."
                throw WaterfallError.unavailable(
                    "\(source) answered \(response.status.code) to a read of feed \(feed.quoted)\(detail)")
            }
            guard FileManager.default.createFile(atPath: spool, contents: nil, attributes: [.posixPermissions: 0o600]),
                let file = FileHandle(forWritingAtPath: spool)
            else { throw WaterfallError.cannotCreate("cannot write the lines of feed \(feed.quoted) to \(spool).") }
            defer { try? file.close() }
            var head: MirrorHead?
            var pending: [UInt8] = []
            var lines = 0
            var lineBytes = 0
            var lastReport = 0
            // Counts the lines of `bytes`, refusing more than the head gives or a line too long.
            func count(_ bytes: some Collection<UInt8>, _ head: MirrorHead) throws(WaterfallError) {
                for byte in bytes {
                    if byte == UInt8(ascii: "\n") {
                        lines += 1
                        lineBytes = 0
                    } else {
                        lineBytes += 1
                        if lineBytes > Self.maximumLineBytes {
                            throw WaterfallError.invalidData(
                                "\(source) sent an image line over \(Self.maximumLineBytes) bytes.")
                        }
                    }
                }
                let expected = head.since == nil ? head.totalItems : head.after.count
                if lines > expected {
                    throw WaterfallError.invalidData(
                        "\(source) sent more image lines of feed \(feed.quoted) than the \(expected) its head gives.")
                }
            }
            for try await chunk in response.body {
                if let head {
                    try count(chunk.readableBytesView, head)
                    try file.write(contentsOf: chunk.readableBytesView)
                } else {
                    pending += chunk.readableBytesView
                    guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else {
                        if pending.count > Self.maximumHeadBytes {
                            throw WaterfallError.invalidData(
                                "\(source) sent a first line over \(Self.maximumHeadBytes) bytes.")
                        }
                        continue
                    }
                    let first = try Self.head(Array(pending[..<newline]), source: source)
                    head = first
                    let rest = pending[(newline + 1)...]
                    try count(rest, first)
                    try file.write(contentsOf: rest)
                    pending = []
                }
                if let progress, let head, lines - lastReport >= 10_000 {
                    progress(feed, lines, head.totalItems)
                    lastReport = lines
                }
            }
            guard let head else {
                throw WaterfallError.unavailable("\(source) stopped before the first line of feed \(feed.quoted).")
            }
            guard ExactString(head.feed) == ExactString(feed) else {
                throw WaterfallError.invalidData(
                    "\(source) answered a read of feed \(feed.quoted) with feed \(head.feed.quoted).")
            }
            let expected = head.since == nil ? head.totalItems : head.after.count
            guard lines == expected else {
                throw WaterfallError.unavailable(
                    "\(source) stopped after \(lines) of the \(expected) image lines of feed \(feed.quoted); the mirror keeps the revision it had."
                )
            }
            progress?(feed, lines, head.totalItems)
            keepSpool = true
            return .lines(head, spool)
        } catch let error as WaterfallError {
            throw error
        } catch {
            throw WaterfallError.unavailable("\(source) did not answer a read of feed \(feed.quoted): \(error).")
        }
    }

    /// The `detail` of a problem document, when the body is one.
    static func problemDetail(_ body: ByteBuffer) -> String? {
        struct Problem: Decodable { var detail: String }
        return try? JSONDecoder().decode(Problem.self, from: Data(buffer: body)).detail
    }

    /// Reads a head line (``MirrorHead``'s JSON), refusing anything out of its bounds.
    static func head(_ bytes: [UInt8], source: String) throws(WaterfallError) -> MirrorHead {
        struct Section: Decodable {
            var id: String?
            var title: String?
            var declared: Bool
        }
        struct Named: Decodable {
            var name: String
            var json: String
        }
        struct Change: Decodable {
            var revision: Int64
            var kind: String
            var id: String
            var section: String?
        }
        struct Head: Decodable {
            var catalog: String
            var feed: String
            var incarnation: Int64
            var revision: Int64
            var since: Int64?
            var totalItems: Int
            var sectionBy: String?
            var timeZone: String?
            var sections: [Section]
            var layouts: [Named]
            var views: [Named]
            var changes: [Change]
            var removed: [String]
            var after: [String]
        }
        let head: Head
        do {
            head = try JSONDecoder().decode(Head.self, from: Data(bytes))
        } catch {
            throw WaterfallError.invalidData("\(source) sent a first line that is not a mirror's head: \(error).")
        }
        guard head.revision >= 0, head.incarnation > 0, head.totalItems >= 0, head.totalItems <= 100_000_000,
            (head.since ?? 0) >= 0, (head.since ?? 0) <= head.revision
        else {
            throw WaterfallError.invalidData("\(source) sent a mirror's head whose numbers are out of their bounds.")
        }
        guard !head.catalog.isEmpty, head.catalog.utf8.count <= 64 else {
            throw WaterfallError.invalidData("\(source) sent a mirror's head without its catalog's identity.")
        }
        return MirrorHead(
            catalog: head.catalog, feed: head.feed, incarnation: head.incarnation, revision: head.revision,
            since: head.since,
            totalItems: head.totalItems, sectionBy: head.sectionBy, timeZone: head.timeZone,
            sections: head.sections.map { .init(id: $0.id, title: $0.title, declared: $0.declared) },
            layouts: head.layouts.map { .init(name: $0.name, json: $0.json) },
            views: head.views.map { .init(name: $0.name, json: $0.json) },
            changes: head.changes.map {
                ChangeList.Change(revision: $0.revision, kind: $0.kind, id: $0.id, section: $0.section)
            },
            removed: head.removed, after: head.after.map { $0.isEmpty ? nil : $0 })
    }
}
