import Foundation
import Testing
import WaterfallStore
import WaterfallTestSupport

@testable import Waterfall

/// A server's kept feed (DESIGN section 12) read by several readers at once while another
/// instance writes: moves, reorders, appends, removals and re-imports too large to follow. Every
/// answer equals a fresh layout of the catalog at the revision the answer names, and every read
/// comes back (issue 37: one owner per kept feed, every wait with an end). Alone, the slowest
/// read takes well under a second; beside the whole suite on two cores, a read may wait long for
/// a thread or a connection, so the bound here is a minute: a hang, not a slow read.
@Suite(.onOwnThreads) struct KeptFeedConcurrencyTests {
    static let configurations: [AnyLayoutConfiguration] = [
        .waterfall(LayoutConfiguration(columns: 3, width: 390, headerHeight: 30, footerHeight: 12)),
        .justified(JustifiedConfiguration(width: 400, rowHeight: 90, headerHeight: 20, scale: 3)),
    ]

    /// One answer a reader got, with what it asked.
    struct Read: Sendable {
        let configuration: Int
        let offset: Int
        let limit: Int
        let page: LayoutPage
        let seconds: Double
    }

    @Test(arguments: TestEngine.all)
    func readersThroughoutWritesGetWhatAFreshLayoutGivesAtTheirRevision(engine: TestEngine) async throws {
        var random = SeededGenerator(seed: 37)
        let catalog = try TestCatalog(engine, stride: 4, onDisk: true)
        var nextID = 0
        func newSpec() -> String {
            nextID += 1
            let section = ["s1", "s2", "s3"][nextID % 3]
            return "i\(nextID)@\(section):\(50 + nextID * 37 % 500)x\(60 + nextID * 53 % 400)"
        }
        try await catalog.importFeed((0..<120).map { _ in newSpec() })
        let server = try catalog.otherInstance()
        defer { server.closeWhenDone() }
        let hot = WaterfallService(database: server, stride: 4).keepingFeeds(KeptFeeds(budget: 1 << 24))
        // Room for the feed's geometry and a layout at first, and for less once it grows.
        let tight = WaterfallService(database: server, stride: 4).keepingFeeds(KeptFeeds(budget: 20_000))

        var fresh: [Int64: FreshLayouts] = [:]
        func recordFresh() async throws {
            fresh[try await catalog.service.feeds().feeds[0].revision] = try await FreshLayouts(catalog: catalog)
        }
        try await recordFresh()

        // Readers: two tasks reading through the store's transactions, and a task reading the
        // kept feed with awaited statements (PostgreSQL answers so; SQLite leaves it to the
        // others).
        let reads = Locked<[Read]>([])
        let failures = Locked<[String]>([])
        let stop = Locked(false)
        let finished = Locked(0)
        for reader in 0..<2 {
            let service = reader == 0 ? hot : tight
            Task {
                var random = SeededGenerator(seed: UInt64(100 + reader))
                while !stop.withLockedValue({ $0 }) {
                    let configuration = Int.random(in: 0..<Self.configurations.count, using: &random)
                    let offset = Int.random(in: 0...400, using: &random)
                    let limit = Int.random(in: 1...12, using: &random)
                    let start = Date.now
                    do {
                        let page = try await service.page(
                            feed: "f", layout: .inline(Self.configurations[configuration]), offset: offset, limit: limit
                        )
                        let read = Read(
                            configuration: configuration, offset: offset, limit: limit, page: page,
                            seconds: Date.now.timeIntervalSince(start))
                        reads.withLockedValue { $0.append(read) }
                    } catch {
                        failures.withLockedValue { $0.append("\(error)") }
                    }
                    try? await Task.sleep(for: .milliseconds(2))
                }
                finished.withLockedValue { $0 += 1 }
            }
        }
        let unblocked = Task {
            var random = SeededGenerator(seed: 200)
            while !stop.withLockedValue({ $0 }) {
                let configuration = Int.random(in: 0..<Self.configurations.count, using: &random)
                let offset = Int.random(in: 0...400, using: &random)
                let limit = Int.random(in: 1...12, using: &random)
                let start = Date.now
                do {
                    let answer = try await hot.keptPage(
                        feed: "f", layout: .inline(Self.configurations[configuration]), offset: offset, limit: limit)
                    if let page = answer {
                        let read = Read(
                            configuration: configuration, offset: offset, limit: limit, page: page,
                            seconds: Date.now.timeIntervalSince(start))
                        reads.withLockedValue { $0.append(read) }
                    }
                    try await Task.sleep(for: .milliseconds(answer == nil ? 5 : 2))
                } catch {
                    failures.withLockedValue { $0.append("\(error)") }
                }
            }
        }

        // The writer: another instance's commits, one revision each.
        for _ in 0..<40 {
            let ids = try await catalog.order().map { String($0.split(separator: "/", maxSplits: 1)[1]) }
            switch Int.random(in: 0..<6, using: &random) {
            case 0, 1:
                let id = ids.randomElement(using: &random)!
                let other = ids.filter { $0 != id }.randomElement(using: &random)!
                _ = try await catalog.service.move(
                    feed: "f", id: id, to: Bool.random(using: &random) ? .before(other) : .index(0))
            case 2:
                _ = try await catalog.service.reorder(
                    .init(feed: "f", operations: .order(Array(ids.shuffled(using: &random).prefix(40)))), feed: "f")
            case 3:
                try await catalog.importFeed(
                    (0..<Int.random(in: 1...20, using: &random)).map { _ in newSpec() }, mode: .append)
            case 4:
                _ = try await catalog.service.remove(feed: "f", ids: Array(ids.shuffled(using: &random).prefix(5)))
            default:
                // Too large to follow: 300 images more, or all but a few fewer.
                if ids.count > 300 {
                    try await catalog.importFeed(ids.prefix(30).map { id in "\(id)@s2:\(100 + id.count * 31)x200" })
                } else {
                    try await catalog.importFeed((0..<300).map { _ in newSpec() }, mode: .append)
                }
            }
            try await recordFresh()
            // Readers between writes: on a busy host the readers' tasks may wait for a thread
            // (up to ten seconds here) while the writer goes on.
            let before = reads.withLockedValue { $0.count }
            for _ in 0..<1000 where reads.withLockedValue({ $0.count }) < before + 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        stop.withLockedValue { $0 = true }
        await unblocked.value
        for _ in 0..<1200 where finished.withLockedValue({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(100)) }
        #expect(finished.withLockedValue { $0 } == 2, "a reader never came back")

        #expect(failures.withLockedValue { $0 }.isEmpty, "\(failures.withLockedValue { $0.prefix(3) })")
        var checked = 0
        for read in reads.withLockedValue({ $0 }) {
            #expect(read.seconds < 60, "a read waited \(read.seconds) s")
            guard let layouts = fresh[read.page.revision] else { continue }
            checked += 1
            let expected = layouts.layout(Self.configurations[read.configuration])
            let reference = layouts.page(expected, offset: read.offset, limit: read.limit)
            let context =
                "revision \(read.page.revision), layout \(read.configuration), offset \(read.offset), limit \(read.limit)"
            #expect(read.page.contentHeight == expected.contentHeight, "\(context)")
            #expect(read.page.totalItems == layouts.itemCount, "\(context)")
            #expect(read.page.items.map(\.id) == reference.items.map(\.id), "\(context)")
            #expect(read.page.items.map(\.frame) == reference.items.map(\.frame), "\(context)")
            #expect(read.page.headers == reference.headers, "\(context)")
            #expect(read.page.footers == reference.footers, "\(context)")
        }
        #expect(checked > 20, "only \(checked) reads were checked")
    }
}
