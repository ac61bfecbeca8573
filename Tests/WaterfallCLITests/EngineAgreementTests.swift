import Foundation
import Testing
import WaterfallTestSupport

/// The same commands on an SQLite file and on a PostgreSQL database print the same bytes and
/// exit the same way: imports, layouts of both kinds, pages, viewports, moves, reorders,
/// removals, the change log and the errors of bad input. Runs when `$WATERFALL_TEST_POSTGRES`
/// names a server (`.ci/run` starts one).
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct EngineAgreementTests {
    static let sampleData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "SampleData")

    /// The commands, in order, with the exit status they must have; each runs on both engines
    /// before the next.
    static let script: [(status: Int32, arguments: [String])] = {
        let data = sampleData.path
        return [
            (0, ["import", "\(data)/travel.json", "--json"]),
            (0, ["import", "\(data)/coco-val2017.json", "--json"]),
            (0, ["import", "\(data)/coco-sample.ndjson", "--feed", "sample", "--json"]),
            (0, ["import", "\(data)/coco-sample.ndjson", "--feed", "sample", "--append", "--json"]),
            (0, ["feeds", "--json"]),
            (
                0,
                [
                    "layout", "add", "phone", "--feed", "coco-val2017", "--columns", "2", "--width", "375",
                    "--header-height", "44", "--footer-height", "12",
                ]
            ),
            (
                0,
                [
                    "layout", "add", "rows", "--feed", "coco-val2017", "--kind", "justified", "--width", "1024",
                    "--row-height", "180", "--last-row", "center",
                ]
            ),
            (0, ["layout", "list", "--feed", "coco-val2017", "--json"]),
            (
                0,
                ["page", "--feed", "coco-val2017", "--layout", "phone", "--offset", "4990", "--limit", "10", "--json"]
            ),
            (0, ["page", "--feed", "coco-val2017", "--layout", "rows", "--offset", "2500", "--limit", "60", "--json"]),
            (
                0,
                [
                    "viewport", "--feed", "coco-val2017", "--layout", "phone", "--y", "90000", "--height", "900",
                    "--pin-headers", "--pin-offset", "64", "--json",
                ]
            ),
            (
                0,
                [
                    "viewport", "--feed", "coco-val2017", "--layout", "rows", "--y", "30000", "--height", "1200",
                    "--pin-headers", "--json",
                ]
            ),
            (
                0,
                [
                    "page", "--feed", "travel", "--columns", "3", "--width", "600", "--order", "left-to-right",
                    "--page", "0", "--json",
                ]
            ),
            (0, ["move", "305609", "--feed", "coco-val2017", "--to", "0", "--json"]),
            (0, ["move", "139", "--feed", "coco-val2017", "--after", "565597", "--json"]),
            (64, ["move", "139", "--feed", "coco-val2017", "--before", "139", "--json"]),
            (65, ["move", "no-such-image", "--feed", "coco-val2017", "--to", "0"]),
            (0, ["reorder", "\(data)/coco-reorder.json", "--json"]),
            (0, ["reorder", "\(data)/travel-order.json", "--json"]),
            (0, ["remove", "--feed", "travel", "belem", "--json"]),
            (0, ["page", "--feed", "coco-val2017", "--layout", "phone", "--offset", "0", "--limit", "40", "--json"]),
            (
                0,
                ["page", "--feed", "coco-val2017", "--layout", "rows", "--offset", "4900", "--limit", "100", "--json"]
            ),
            (
                0,
                [
                    "coverflow", "--feed", "coco-val2017", "--item-height", "200", "--viewport-width", "800", "--x",
                    "150000", "--json",
                ]
            ),
            (0, ["images", "--feed", "travel", "--json"]),
            (0, ["changes", "--feed", "coco-val2017", "--since", "1", "--json"]),
            (0, ["changes", "--feed", "travel", "--since", "0", "--json"]),
            (0, ["import", "\(data)/travel.json", "--reset-order", "--json"]),
            (0, ["images", "--feed", "travel", "--json"]),
            (0, ["layout", "remove", "rows", "--feed", "coco-val2017"]),
            (65, ["page", "--feed", "nowhere", "--layout", "phone", "--page", "0"]),
            (0, ["feed", "remove", "sample"]),
            (0, ["feeds", "--json"]),
        ]
    }()

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "WATERFALL_TEST_POSTGRES names no PostgreSQL server"))
    func everyCommandAnswersTheSameOnBothEngines() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let schema = try PostgresScratchSchema()
        let file = folder.path("agreement.sqlite")
        for (status, command) in Self.script {
            let sqlite = try WaterfallProcess.run(["--db", file] + command, in: folder.url)
            let postgres = try WaterfallProcess.run(["--db", schema.url] + command, in: folder.url)
            let shown = command.joined(separator: " ")
            #expect(sqlite.status == status, "\(shown): exit \(sqlite.status) on SQLite: \(sqlite.standardError)")
            #expect(
                postgres.status == sqlite.status,
                "\(shown): exit \(postgres.status) on PostgreSQL, \(sqlite.status) on SQLite")
            #expect(postgres.standardOutput == sqlite.standardOutput, "\(shown): the outputs differ")
            #expect(postgres.standardError == sqlite.standardError, "\(shown): the errors differ")
        }
    }

    /// A PostgreSQL URL that cannot be used is one sentence naming it (without its password)
    /// and exit status 74, like a database file that cannot be opened; no server is needed.
    @Test func anUnusablePostgreSQLURLIsOneSentence() throws {
        let cases: [(url: String, message: String)] = [
            (
                "postgres://w:secret@127.0.0.1:1/catalog",
                "waterfall: error: postgres://w@127.0.0.1:1/catalog: no PostgreSQL server answers at 127.0.0.1:1.\n"
            ),
            (
                "postgres://127.0.0.1/catalog",
                "waterfall: error: postgres://127.0.0.1/catalog is not a usable PostgreSQL URL: it names no user; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.\n"
            ),
            (
                "postgres://w:secret@127.0.0.1/catalog?sslmode=allow",
                "waterfall: error: postgres://w:***@127.0.0.1/catalog?sslmode=allow is not a usable PostgreSQL URL: sslmode 'allow' is not supported (use disable or require); expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE.\n"
            ),
        ]
        for (url, message) in cases {
            let result = try WaterfallProcess.run(["--db", url, "feeds"])
            #expect(result.status == 74, "\(url)")
            #expect(result.standardError == message)
            #expect(result.standardOutput.isEmpty)
        }
    }
}
