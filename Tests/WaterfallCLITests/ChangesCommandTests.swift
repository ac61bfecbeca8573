import Foundation
import Testing
import Waterfall
import WaterfallTestSupport

/// `waterfall changes --since R --limit N`, the exit status of a pruned log, and
/// `serve --keep-changes`'s refusals.
@Suite(.onOwnThreads(lane: .processes)) struct ChangesCommandTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
    }

    @Test func changesArePagedByWholeRevisionsAndAPrunedLogExits65() async throws {
        let travel = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appending(path: "SampleData/travel.json").path
        #expect(try waterfall("import", travel).status == 0)
        #expect(try waterfall("move", "belem", "--to", "0", "--feed", "travel").status == 0)
        // A limit below the import's 13 rows still lists the import whole, and says where to go on
        let first = try waterfall("changes", "--since", "0", "--limit", "5", "--json")
        #expect(first.status == 0)
        #expect(first.standardOutput.hasPrefix(#"{"feed":"travel","revision":2,"nextSince":1,"changes":["#))
        let table = try waterfall("changes", "--since", "0", "--limit", "5")
        #expect(
            table.standardOutput.hasSuffix(
                "feed travel is at revision 2; 13 changes since revision 0; more with --since 1\n"))
        let rest = try waterfall("changes", "--since", "1", "--limit", "5", "--json")
        #expect(!rest.standardOutput.contains("nextSince") && rest.standardOutput.contains(#""kind":"move""#))
        #expect(
            try waterfall("changes", "--since", "0", "--limit", "0").standardError
                == "waterfall: error: --limit must be between 1 and 100000, got 0. See 'waterfall help'.\n")

        // When the log is pruned (as a server with --keep-changes does), an older since exits 65
        let service = try WaterfallService.open(path: folder.path("test.sqlite"))
        for step in 0..<256 {
            _ = try await service.move(feed: "travel", id: step % 2 == 0 ? "tram-28" : "belem", to: .index(0))
        }
        #expect(try await service.pruneChanges(keeping: .revisions(256)) == 14)
        let gone = try waterfall("changes", "--since", "1")
        #expect(gone.status == 65)
        #expect(
            gone.standardError
                == "waterfall: error: the change log of feed \"travel\" is kept from revision 2 on, so the changes since revision 1 are gone; list the feed again and follow its changes since revision 2 or later.\n"
        )
    }

    @Test(arguments: ["10", "30w", "0d", "forever"])
    func serveRefusesABadKeepChanges(value: String) throws {
        let result = try waterfall("serve", "--port", "0", "--keep-changes", value)
        #expect(result.status == 64)
        #expect(result.standardError.hasPrefix("waterfall: error: --keep-changes takes a count of revisions"))
        #expect(result.standardError.hasSuffix("got \"\(value)\". See 'waterfall help'.\n"))
        #expect(result.standardError.split(separator: "\n").count == 1)
    }
}
