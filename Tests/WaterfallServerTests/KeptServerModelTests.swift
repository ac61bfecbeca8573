import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Waterfall
import WaterfallTestSupport

@testable import WaterfallServer

/// Issue 37's model test at the server's door (DESIGN section 15): a server that keeps answers
/// and feeds in memory, beside one that keeps nothing (`--hot-memory 0`, no kept answers), over
/// the same catalog, while another instance writes at random and readers run throughout. On
/// PostgreSQL the servers' listening connections are terminated now and then
/// (`pg_terminate_backend`, as an administrator or a connection reaper would). After each write,
/// once the keeping server has heard of it (another instance's commit reaches it a moment
/// later, DESIGN section 12), each of its answers is byte for byte the other server's; no
/// request fails or hangs.
///
/// "Hangs" is a reader's request taking more than ``hangsAfter``: a wait without an end, not a
/// latency. Every wait on a request's way ends within 10 s (a connection's lease; a statement's
/// deadline; another reader's work on the kept feed, 3 s), and the serving figures are measured
/// by `Benchmarks/serve.sh`, never asserted in a test. A full run here holds a hundred and more
/// threads of other tests' work on two cores: a test that takes 0.3 s alone took 18 s in a run
/// of six suites, and on the CI host two of this test's requests took 11 and 12 s (PostgreSQL,
/// revision 2, milliseconds alone), which a bound at 10 s failed.
@Suite(.onOwnThreads) struct KeptServerModelTests {
    static let quiet = Logger(label: "waterfall", factory: { _ in SwiftLogNoOpLogHandler() })
    /// How long a reader's request may take before it is taken for hung.
    static let hangsAfter: Double = 30

    /// A feed file of `images` (`id`, width, height, section) with sections `s0`…`s3`.
    static func feedFile(
        _ images: [(id: String, width: Int, height: Int, section: String)], in folder: TemporaryDirectory
    )
        throws -> String
    {
        let lines = images.map {
            #"{"id":"\#($0.id)","width":\#($0.width),"height":\#($0.height),"section":"\#($0.section)"}"#
        }
        let sections = (0..<4).map { #"{"id":"s\#($0)","title":"Section \#($0)"}"# }
        let path = folder.path("feed-\(UUID().uuidString).json")
        let document =
            #"{"feed":"f","sections":[\#(sections.joined(separator: ","))],"#
            + #""images":[\#(lines.joined(separator: ","))]}"#
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: TestEngine.all, 1...2)
    func aKeepingServerAnswersAsOneKeepingNothing(engine: TestEngine, seed: UInt64) async throws {
        let folder = try TemporaryDirectory()
        let schema = engine == .postgres ? try PostgresScratchSchema() : nil
        let location = schema?.url ?? folder.path("model.sqlite")
        // Another instance, which makes every write.
        let writer = try WaterfallService.open(path: location)
        let keeping = try await WaterfallServer(
            service: try WaterfallService.openForServing(path: location), configuration: ServerConfiguration(),
            logger: Self.quiet)
        var keepsNothing = ServerConfiguration()
        keepsNothing.hotMemory = 0
        let plain = try await WaterfallServer(
            service: try WaterfallService.openForServing(path: location), configuration: keepsNothing,
            keepsAnswers: false, logger: Self.quiet)

        try await keeping.application().test(.router) { kept in
            try await plain.application().test(.router) { fresh in
                try await Self.model(
                    kept: kept, fresh: fresh, writer: writer, schema: schema, folder: folder, seed: seed)
            }
        }
    }

    /// A server's own write over HTTP on PostgreSQL returns with its kept feed at the write's
    /// revision (followed, its named layouts placed: ``WaterfallService/keepAlong(_:for:)``),
    /// as its watcher leaves its own commits out and the server counts the write only then.
    /// On SQLite, whose readers see a commit at once, the first reader brings it along instead
    /// (the writer only raced it there). Either way the next page is the new revision's.
    @Test(arguments: TestEngine.all)
    func aServersOwnWriteBringsItsKeptFeedAlongOnPostgreSQL(engine: TestEngine) async throws {
        let served = try await ServedFeed(engine, images: 40)
        let (writer, server) = (served.writer, served.server)
        try await server.application().test(.router) { client in
            @Sendable func keptRevisions() async throws -> [Int] {
                try await client.execute(uri: "/v1/stats", method: .get) { response in
                    let hot = response.object["hot"] as? [[String: Any]] ?? []
                    return hot.compactMap { $0["revision"] as? Int }
                }
            }
            let page = "/v1/feeds/f/layouts/phone/page?offset=30&limit=5"
            _ = try await client.execute(uri: page, method: .get) { $0.text }
            #expect(try await keptRevisions() == [1])
            let revision = try await client.execute(
                uri: "/v1/feeds/f/reorder", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(#"{"moves": [{"id": "i33", "to": 2}]}"#)
            ) { $0.object["revision"] as? Int }
            #expect(revision == 2)
            #expect(try await keptRevisions() == (engine == .postgres ? [2] : [1]))
            let answer = try await client.execute(uri: page, method: .get) { $0.text }
            #expect(
                answer
                    == (try document(try await writer.page(feed: "f", layout: .named("phone"), offset: 30, limit: 5))))
            #expect(try await keptRevisions() == [2])
        }
    }

    /// A server on PostgreSQL answers pages after the first of a catalog version from the
    /// records it keeps for it (``KeptRecords``), reading only their rows; one on SQLite keeps
    /// none and reads each page in a transaction. Either way every page is a fresh
    /// computation's, before and after a move through the server.
    @Test(arguments: TestEngine.all)
    func aServerOnPostgreSQLAnswersPagesFromTheRecordsItKeeps(engine: TestEngine) async throws {
        let served = try await ServedFeed(engine, images: 60)
        let (writer, server) = (served.writer, served.server)
        let records = server.runner.service.keptRecords
        #expect((records != nil) == (engine == .postgres))
        try await server.application().test(.router) { client in
            @Sendable func expectFreshPages() async throws {
                for offset in stride(from: 0, through: 55, by: 5) {
                    let answer = try await client.execute(
                        uri: "/v1/feeds/f/layouts/phone/page?offset=\(offset)&limit=5", method: .get
                    ) { $0.text }
                    let fresh = try await writer.page(feed: "f", layout: .named("phone"), offset: offset, limit: 5)
                    #expect(answer == (try document(fresh)), "page at \(offset)")
                }
            }
            try await expectFreshPages()
            let first = records?.answers ?? 0
            if engine == .postgres { #expect(first > 0, "pages after the first read their rows alone") }
            _ = try await client.execute(
                uri: "/v1/feeds/f/reorder", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(#"{"moves": [{"id": "i43", "to": 2}]}"#)
            ) { $0.text }
            try await expectFreshPages()
            if engine == .postgres { #expect(records!.answers > first, "and after the move") }
        }
    }

    /// A feed `f` of `images` images `i0`… in sections of ten, with a layout `phone`, written
    /// by `writer` and served by `server` (keeping answers and feeds), on `engine`; the folder
    /// or schema lives as long as it.
    struct ServedFeed {
        let folder: TemporaryDirectory
        let schema: PostgresScratchSchema?
        let writer: WaterfallService
        let server: WaterfallServer

        init(_ engine: TestEngine, images count: Int) async throws {
            folder = try TemporaryDirectory()
            schema = engine == .postgres ? try PostgresScratchSchema() : nil
            let location = schema?.url ?? folder.path("served.sqlite")
            writer = try WaterfallService.open(path: location)
            let images = (0..<count).map { ("i\($0)", 100 + $0 * 7, 100 + $0 * 3, "s\($0 / 10)") }
            _ = try await writer.importFeed(
                contentsOf: try KeptServerModelTests.feedFile(images, in: folder), options: .init())
            try await writer.addLayout(
                feed: "f", name: "phone", configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375)))
            server = try await WaterfallServer(
                service: try WaterfallService.openForServing(path: location), configuration: ServerConfiguration(),
                logger: KeptServerModelTests.quiet)
        }
    }

    /// The model's steps, through `writer`, with `kept` (the keeping server) against `fresh`.
    static func model(
        kept: any TestClientProtocol, fresh: any TestClientProtocol, writer: WaterfallService,
        schema: PostgresScratchSchema?, folder: TemporaryDirectory, seed: UInt64
    ) async throws {
        var random = SeededGenerator(seed: seed)
        var nextID = 0
        func newImage() -> (id: String, width: Int, height: Int, section: String) {
            nextID += 1
            return (
                "i\(nextID)-é", Int.random(in: 1...3000, using: &random), Int.random(in: 1...3000, using: &random),
                "s\(Int.random(in: 0..<4, using: &random))"
            )
        }
        var images = (0..<400).map { _ in newImage() }
        var terminations = 0
        _ = try await writer.importFeed(contentsOf: try Self.feedFile(images, in: folder), options: .init())
        try await writer.addLayout(
            feed: "f", name: "phone",
            configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375, headerHeight: 44, footerHeight: 10)))
        try await writer.addLayout(
            feed: "f", name: "rows", configuration: .justified(JustifiedConfiguration(width: 600, rowHeight: 90)))

        /// The status and body of `uri`, and how long it took.
        @Sendable func get(_ client: any TestClientProtocol, _ uri: String) async throws -> (
            status: HTTPResponse.Status, body: String, seconds: Double
        ) {
            let start = Date.now
            return try await client.execute(uri: uri, method: .get) { response in
                (response.status, response.text, Date.now.timeIntervalSince(start))
            }
        }
        // Readers throughout, on the keeping server: every answer a page or a feed that
        // is not there (while it is made anew), none hung.
        let stop = Locked(false)
        let readers = (0..<3).map { reader in
            Task {
                var outcomes: [String] = []
                var count = 0
                var random = SeededGenerator(seed: seed * 10 + UInt64(reader))
                while !stop.withLockedValue({ $0 }) {
                    let layout = Bool.random(using: &random) ? "phone" : "rows"
                    let offset = Int.random(in: 0...500, using: &random)
                    let answer = try await get(
                        kept, "/v1/feeds/f/layouts/\(layout)/page?offset=\(offset)&limit=20")
                    count += 1
                    if ![.ok, .notFound].contains(answer.status) || answer.seconds > Self.hangsAfter {
                        outcomes.append("\(answer.status.code) after \(answer.seconds) s: \(answer.body)")
                    }
                }
                return (count, outcomes)
            }
        }

        for step in 0..<16 {
            let ids = images.map(\.id)
            switch Int.random(in: 0..<7, using: &random) {
            case 0:
                // A move.
                let id = ids.randomElement(using: &random)!
                let other = ids.filter { $0 != id }.randomElement(using: &random)!
                _ = try await writer.move(feed: "f", id: id, to: .before(other))
            case 1:
                // A reorder of up to 300 images.
                let chosen = Array(ids.shuffled(using: &random).prefix(Int.random(in: 2...300, using: &random)))
                _ = try await writer.reorder(.init(feed: "f", operations: .order(chosen)), feed: "f")
            case 2:
                // A re-import that shrinks the feed by half and resizes some.
                images = images.filter { _ in Bool.random(using: &random) }
                for index in images.indices where Int.random(in: 0..<5, using: &random) == 0 {
                    images[index].width = Int.random(in: 1...3000, using: &random)
                }
                if images.isEmpty { images = [newImage()] }
                _ = try await writer.importFeed(
                    contentsOf: try Self.feedFile(images, in: folder), options: .init())
            case 3:
                // A re-import that grows it.
                images += (0..<Int.random(in: 1...400, using: &random)).map { _ in newImage() }
                _ = try await writer.importFeed(
                    contentsOf: try Self.feedFile(images, in: folder), options: .init())
            case 4:
                // Images removed.
                guard images.count > 3 else { continue }
                let gone = Set(ids.shuffled(using: &random).prefix(3))
                _ = try await writer.remove(feed: "f", ids: Array(gone))
                images.removeAll { gone.contains($0.id) }
            case 5:
                // The feed removed and made anew, with its layouts.
                try await writer.removeFeed(named: "f")
                images = (0..<Int.random(in: 1...200, using: &random)).map { _ in newImage() }
                _ = try await writer.importFeed(
                    contentsOf: try Self.feedFile(images, in: folder), options: .init())
                try await writer.addLayout(
                    feed: "f", name: "phone",
                    configuration: .waterfall(LayoutConfiguration(columns: 3, width: 375)))
                try await writer.addLayout(
                    feed: "f", name: "rows",
                    configuration: .justified(JustifiedConfiguration(width: 600, rowHeight: 90)))
            default:
                // The layout changed.
                try await writer.addLayout(
                    feed: "f", name: "phone",
                    configuration: .waterfall(
                        LayoutConfiguration(columns: Int.random(in: 1...4, using: &random), width: 375)))
            }
            if let schema, Int.random(in: 0..<3, using: &random) == 0 {
                // The servers' listening connections terminated (each server has one).
                let terminated = try PostgresScratchSchema.psql(
                    schema.url,
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'waterfall watcher \(schema.name)'"
                )
                terminations += terminated.split(separator: "\n").filter { $0 == "t" }.count
            }
            let count = images.count
            let queries = [
                "/v1/feeds/f/layouts/phone/page?offset=\(Int.random(in: 0...count, using: &random))&limit=30",
                "/v1/feeds/f/layouts/rows/page?offset=\(Int.random(in: 0...count, using: &random))&limit=30",
                "/v1/feeds/f/layouts/phone/viewport?y=\(Int.random(in: 0...20_000, using: &random))&height=800",
                "/v1/feeds/f/layouts/rows/sections",
                "/v1/feeds/f",
            ]
            for uri in queries {
                let expected = try await get(fresh, uri)
                #expect(expected.status == .ok, "\(uri): \(expected.body)")
                // Within 10 s of the write, the keeping server has heard of it.
                let deadline = Date.now.addingTimeInterval(10)
                var answer = try await get(kept, uri)
                while answer.body != expected.body && Date.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    answer = try await get(kept, uri)
                }
                #expect(answer.status == expected.status, "seed \(seed) step \(step) \(uri)")
                #expect(answer.body == expected.body, "seed \(seed) step \(step) \(uri)")
            }
        }
        stop.withLockedValue { $0 = true }
        if schema != nil { #expect(terminations > 0, "no listening connection was terminated") }
        for reader in readers {
            let (count, failures) = try await reader.value
            #expect(count > 0, "a reader never read")
            #expect(failures.isEmpty, "seed \(seed): \(failures.prefix(5))")
        }
    }
}
