import Foundation
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// `view add|list|remove`, `--view` on reads and moves, and `share add|list|remove` (DESIGN
/// section 20), as a user types them.
@Suite(.onOwnThreads(lane: .processes)) struct ViewCommandTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
        try #"""
        {"feed": "t", "sections": [{"id": "s1", "title": "One"}, {"id": "s2", "title": "Two"}], "images": [
          {"id": "a", "width": 100, "height": 100, "section": "s1", "tags": ["beach"], "takenAt": "2020-01-02T10:00:00Z"},
          {"id": "b", "width": 300, "height": 200, "section": "s1", "takenAt": "2020-05-02T10:00:00Z"},
          {"id": "c", "width": 300, "height": 100, "section": "s2", "tags": ["beach"]},
          {"id": "d", "width": 300, "height": 100, "section": "s2", "tags": ["be"], "takenAt": "2021-05-02T10:00:00Z"}]}
        """#.write(toFile: folder.path("t.json"), atomically: true, encoding: .utf8)
    }

    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
    }

    @Test func viewsAreSavedByFlagsOrRuleAndEveryReadAndMoveTakesThem() async throws {
        #expect(try waterfall("import", "t.json").status == 0)
        let beach = try waterfall("view", "add", "beach", "--tag", "beach")
        #expect(beach.status == 0 && beach.standardOutput == "saved view beach: 2 images in 2 sections\n")
        #expect(try waterfall("view", "add", "wide", "--min-aspect", "1.2", "--from", "2020-03-01").status == 0)
        #expect(try waterfall("view", "add", "s2", "--rule", #"{"where": {"sections": ["s2"]}}"#).status == 0)

        let list = try waterfall("view", "list", "--json")
        #expect(
            list.standardOutput
                == #"{"feed":"t","revision":1,"views":[{"name":"beach","rule":{"where":{"tags":{"all":["beach"]}}},"images":2,"sections":2},{"name":"s2","rule":{"where":{"sections":["s2"]}},"images":2,"sections":1},{"name":"wide","rule":{"where":{"takenAt":{"from":"2020-03-01"},"aspect":{"min":1.2}}},"images":2,"sections":2}]}"#
                + "\n")

        // Reads answer as the service does for the view; a move in the view is one in the feed
        let service = try WaterfallService.open(path: folder.path("test.sqlite"))
        let images = try waterfall("images", "--view", "wide", "--json")
        let expected = try await service.inView("wide").images(feed: nil, offset: 0, limit: 50)
        #expect(images.standardOutput == String(decoding: try StableJSON.document(of: expected), as: UTF8.self))
        let page = try waterfall("page", "--view", "beach", "--columns", "2", "--width", "300", "--json")
        #expect(page.status == 0 && page.standardOutput.contains(#""totalItems":2"#))
        #expect(try waterfall("move", "c", "--before", "a", "--view", "beach").status == 0)
        let order = try waterfall("images", "--view", "beach", "--json")
        #expect(order.standardOutput.contains(#""index":0,"id":"c""#))
        let changes = try waterfall("changes", "--since", "1", "--view", "beach", "--json")
        #expect(changes.standardOutput.contains(#""kind":"move","id":"c""#))

        // Bad rules and unknown views: one sentence each, exit 65
        let bad = try waterfall("view", "add", "bad", "--rule", #"{"where": {"tags": {"al": ["x"]}}}"#)
        #expect(bad.status == 65)
        #expect(
            bad.standardError
                == #"waterfall: error: --rule: where.tags: expected only the fields "all", "any", "none", found "al"."#
                + "\n")
        let unknown = try waterfall("images", "--view", "nope")
        #expect(unknown.status == 65)
        #expect(unknown.standardError.contains(#"unknown view "nope" of feed "t""#))
        #expect(try waterfall("view", "add", "both", "--tag", "x", "--rule", "{}").status == 64)

        #expect(try waterfall("view", "remove", "s2").status == 0)
        #expect(try waterfall("images", "--view", "s2").status == 65)
        #expect(try waterfall("feeds", "--json").standardOutput.contains(#""feeds":[{"name":"t""#))
    }

    @Test func shareLinksAreMadeListedAndRemoved() throws {
        #expect(try waterfall("import", "t.json").status == 0)
        #expect(try waterfall("view", "add", "beach", "--tag", "beach").status == 0)
        let made = try waterfall("share", "add", "--view", "beach", "--expires", "7d")
        #expect(made.status == 0)
        #expect(made.standardOutput.hasPrefix("/s/") && made.standardOutput.count == 3 + 24 + 1)
        let list = try waterfall("share", "list", "--json")
        #expect(list.standardOutput.contains(#""feed":"t","view":"beach","layout":null"#))
        #expect(!list.standardOutput.contains(String(made.standardOutput.dropFirst(3).dropLast())))
        #expect(try waterfall("share", "add", "--view", "nope").status == 65)
        #expect(try waterfall("share", "remove", "1").status == 0)
        let again = try waterfall("share", "remove", "1")
        #expect(again.status != 0 && again.standardError.contains("no share link has id 1"))
    }
}
