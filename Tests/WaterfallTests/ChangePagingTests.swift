import Foundation
import Testing
import WaterfallTestSupport

@testable import Waterfall

/// Resumable sync (DESIGN section 16): the change log read in pages of whole revisions adds up
/// to the whole log, and a log pruned by `serve --keep-changes` says where to start again.
@Suite(.onOwnThreads(lane: .database)) struct ChangePagingTests {
    /// A feed whose revisions log 13, 1, 3, 1, … and 6 rows: an import, moves, a reorder of
    /// three, removals and an append.
    static func feedWithManyRevisions(_ engine: TestEngine) async throws -> TestCatalog {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed((0..<13).map { "i\($0)" })
        for index in 0..<5 { _ = try await catalog.service.move(feed: "f", id: "i\(index)", to: .index(12)) }
        _ = try await catalog.service.reorder(
            Array(#"{"order": ["i9", "i8", "i7"]}"#.utf8), source: "order.json", feed: "f")
        _ = try await catalog.service.remove(feed: "f", ids: ["i10"])
        try await catalog.importFeed((20..<26).map { "n\($0)" }, mode: .append)
        _ = try await catalog.service.move(feed: "f", id: "n20", to: .index(0))
        return catalog
    }

    @Test(arguments: TestEngine.all)
    func pagesFromAnyRevisionAddUpToTheWholeLogAndNeverCutARevision(engine: TestEngine) async throws {
        let catalog = try await Self.feedWithManyRevisions(engine)
        let service = catalog.service
        let revision = try await service.changes(feed: "f", since: 0).revision
        for since in Int64(0)...revision {
            // Given the whole log after `since`
            let whole = try await service.changes(feed: "f", since: since)
            #expect(whole.nextSince == nil)
            let rowsOf = Dictionary(grouping: whole.changes, by: \.revision).mapValues(\.count)
            for limit in [1, 2, 3, 4, 7, 13, 14, 100] {
                // When it is read in pages of `limit`, each from the last one's nextSince
                var read: [ChangeList.Change] = []
                var from = since
                var pages = 0
                while true {
                    let page = try await service.changes(feed: "f", since: from, limit: limit)
                    pages += 1
                    #expect(pages < 100, "the pages never end")
                    // Then every page holds whole revisions, at most `limit` rows unless one revision has more
                    for (revision, rows) in Dictionary(grouping: page.changes, by: \.revision) {
                        #expect(rows.count == rowsOf[revision], "revision \(revision) cut in half at limit \(limit)")
                    }
                    #expect(page.changes.count <= limit || Set(page.changes.map(\.revision)).count == 1)
                    #expect(page.revision == revision)
                    read += page.changes
                    guard let next = page.nextSince else { break }
                    #expect(next == page.changes.last?.revision)
                    from = next
                }
                // and they add up to the whole log, in order
                #expect(read == whole.changes, "since \(since), limit \(limit)")
            }
        }
        // A first revision larger than the limit comes whole, with where to go on
        let first = try await service.changes(feed: "f", since: 0, limit: 5)
        #expect(first.changes.count == 13 && first.nextSince == 1)
        await #expect(try service.changes(feed: "f", since: revision, limit: 5).changes.isEmpty)
        await #expect(throws: WaterfallError.invalidValue(.limit, "must be between 1 and 100000, got 0.")) {
            try await service.changes(feed: "f", since: 0, limit: 0)
        }
    }

    @Test(arguments: TestEngine.all)
    func aPrunedLogAnswersGoneBeforeWhatItKeeps(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importFeed((0..<4).map { "i\($0)" })
        for step in 0..<299 { _ = try await catalog.service.move(feed: "f", id: "i\(step % 4)", to: .index(3)) }
        let service = catalog.service
        await #expect(try service.changes(feed: "f", since: 0).revision == 300)

        // When the log is kept for its last 256 revisions
        await #expect(try service.pruneChanges(keeping: .revisions(256)) == 4 + 43)
        // Then asking since a revision before 44 is gone, naming 44; from 44 on it is whole
        await #expect(throws: WaterfallError.changesPruned(feed: "f", since: 43, from: 44)) {
            try await service.changes(feed: "f", since: 43)
        }
        await #expect(throws: WaterfallError.changesPruned(feed: "f", since: 0, from: 44)) {
            try await service.changes(feed: "f", since: 0, limit: 10)
        }
        let kept = try await service.changes(feed: "f", since: 44)
        #expect(kept.changes.map(\.revision) == Array(45...300))
        // A second round finds nothing to prune
        await #expect(try service.pruneChanges(keeping: .revisions(256)) == 0)
        // A duration keeps at least the last 256 revisions too: everything here is older than a
        // day from now, so a day's retention prunes as far as the 256 revisions allow
        await #expect(
            try service.pruneChanges(keeping: .duration(seconds: 86_400), now: Date().addingTimeInterval(2 * 86_400))
                == 0)
        await #expect(try service.pruneChanges(keeping: .duration(seconds: 60)) == 0)
        try await catalog.importFeed((0..<4).map { "i\($0)" } + ["j"], mode: .append)
        await #expect(
            try service.pruneChanges(keeping: .duration(seconds: 86_400), now: Date().addingTimeInterval(2 * 86_400))
                == 1)
        await #expect(throws: WaterfallError.changesPruned(feed: "f", since: 44, from: 45)) {
            try await service.changes(feed: "f", since: 44)
        }
    }

    @Test(arguments: [
        ("100000", ChangeRetention.revisions(100_000)), ("256", .revisions(256)),
        ("30d", .duration(seconds: 30 * 86_400)),
        ("12h", .duration(seconds: 43_200)), ("45s", .duration(seconds: 45)),
    ])
    func retentionIsACountOrADuration(text: String, expected: ChangeRetention) throws {
        #expect(try ChangeRetention(parsing: text) == expected)
    }

    @Test(arguments: ["", "10", "255", "0d", "30 d", "30w", "-5", "1.5d", "36501d", "d"])
    func badRetentionsAreRefusedWithOneSentence(text: String) {
        #expect {
            try ChangeRetention(parsing: text)
        } throws: { error in
            let sentence = (error as? WaterfallError)?.sentence(naming: { _ in "--keep-changes" }) ?? ""
            return sentence.hasPrefix("--keep-changes takes a count of revisions")
                && sentence.hasSuffix("got \"\(text)\".")
                && !sentence.dropLast().contains(".\n")
        }
    }
}
