import Foundation
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// `waterfall locate`: by id and by `--date`, the service's JSON, and one sentence with the
/// documented exit status for what it cannot answer.
@Suite(.onOwnThreads(lane: .processes)) struct LocateCommandTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
    }

    @Test func anImageIsLocatedByIdOrByDateAndWhatCannotBeIsRefused() async throws {
        let feed = folder.path("dated.json")
        try #"""
        {"feed": "dated", "sectionBy": "day", "timeZone": "Europe/Paris", "images": [
          {"id": "a", "width": 300, "height": 200, "takenAt": "2024-05-02T09:00:00+02:00"},
          {"id": "b", "width": 200, "height": 300, "takenAt": "2024-05-01T23:30:00+02:00"},
          {"id": "c", "width": 300, "height": 300, "takenAt": "2024-05-01T08:00:00+02:00"},
          {"id": "d", "width": 300, "height": 100}
        ]}
        """#.write(toFile: feed, atomically: true, encoding: .utf8)
        #expect(try waterfall("import", feed).status == 0)
        let service = try WaterfallService.open(path: folder.path("test.sqlite"))
        let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 2, width: 375)))
        let byID = try waterfall("locate", "b", "--columns", "2", "--width", "375", "--limit", "2", "--json")
        #expect(byID.status == 0)
        let located = try await service.locate(feed: "dated", layout: layout, .id("b"), limit: 2)
        #expect(byID.standardOutput == String(decoding: try StableJSON.document(of: located), as: UTF8.self))
        #expect(
            byID.standardOutput.contains(#""index":1,"section":"2024-05-01""#)
                && byID.standardOutput.contains(#""offset":0,"limit":2"#))
        // 2024-05-02 is Paris's midnight: b (23:30 the day before) is the first taken by then
        let byDate = try waterfall("locate", "--date", "2024-05-02", "--columns", "2", "--width", "375", "--json")
        #expect(byDate.status == 0 && byDate.standardOutput.contains(#""id":"b""#))
        let table = try waterfall("locate", "--date", "2024-05-02T09:00", "--columns", "2", "--width", "375")
        #expect(
            table.status == 0 && table.standardOutput.contains(" a ") && table.standardOutput.contains("pages of 100"))

        let unknown = try waterfall("locate", "zz", "--columns", "2", "--width", "375")
        #expect(
            unknown.status == 65
                && unknown.standardError == "waterfall: error: unknown image id \"zz\" in feed \"dated\".\n")
        let early = try waterfall("locate", "--date", "2024-04-30", "--columns", "2", "--width", "375")
        #expect(early.status == 65)
        #expect(
            early.standardError
                == "waterfall: error: no image of feed \"dated\" was taken at or before 2024-04-30 (in the feed's time zone).\n"
        )
        let bad = try waterfall("locate", "--date", "2024-05-32", "--columns", "2", "--width", "375")
        #expect(bad.status == 64 && bad.standardError.hasPrefix("waterfall: error: --date must be a date YYYY-MM-DD"))
        #expect(try waterfall("locate", "--columns", "2", "--width", "375").status == 64)
        #expect(try waterfall("locate", "a", "--date", "2024-05-01", "--columns", "2", "--width", "375").status == 64)
    }
}
