import Foundation
import Testing
import Waterfall
import WaterfallJSON
import WaterfallTestSupport

/// `--dpr` of `page`, `viewport` and `coverflow`, and the placeholder, colour and renditions in
/// their JSON and in `images --json` (DESIGN section 16).
@Suite(.onOwnThreads(lane: .processes)) struct RenditionCommandTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
        try ##"""
        {"feed": "dressed", "images": [
          {"id": "a", "width": 1600, "height": 1200, "url": "https://x/a.jpg", "color": "#A0B1C2",
           "renditions": [{"width": 320, "url": "https://x/a-320.jpg"}, {"width": 640, "url": "https://x/a-640.jpg"},
                          {"width": 1280, "url": "https://x/a-1280.jpg"}]},
          {"id": "b", "width": 1000, "height": 750, "url": "https://x/b.jpg", "placeholder": "LEHV6nWB2yk8pyo0adR*.7kCMdnj", "urlTemplate": "https://x/b/{width}.jpg"}]}
        """##.write(toFile: folder.path("dressed.json"), atomically: true, encoding: .utf8)
    }

    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
    }

    @Test func dprPicksTheRenditionOfEachFrame() async throws {
        #expect(try waterfall("import", "dressed.json").status == 0)
        let service = try WaterfallService.open(path: folder.path("test.sqlite"))
        let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 2, width: 375)))
        func json(_ value: some Encodable) throws -> String {
            String(decoding: try StableJSON.document(of: value), as: UTF8.self)
        }

        // The fast lane (page, viewport) and ArgumentParser (coverflow) both take --dpr
        let page = try waterfall("page", "--columns", "2", "--width", "375", "--json", "--dpr", "4")
        #expect(page.status == 0)
        let expected = try await service.page(feed: nil, layout: layout, offset: 0, limit: 50).choosingRenditions(
            dpr: 4)
        #expect(page.standardOutput == (try json(expected)))
        #expect(page.standardOutput.contains(##""url":"https://x/a-1280.jpg","color":"#a0b1c2"}"##))
        let plain = try waterfall("page", "--columns", "2", "--width", "375", "--json")
        #expect(plain.standardOutput.contains(##""url":"https://x/a-320.jpg","color":"#a0b1c2"}"##))
        #expect(
            plain.standardOutput.contains(
                ##""url":"https://x/b/172.jpg","placeholder":"LEHV6nWB2yk8pyo0adR*.7kCMdnj"}"##))
        let viewport = try waterfall(
            "viewport", "--columns", "2", "--width", "375", "--y", "0", "--height", "900", "--dpr", "3", "--json")
        #expect(viewport.standardOutput.contains(##""url":"https://x/a-640.jpg""##))
        let cover = try waterfall(
            "coverflow", "--item-height", "300", "--viewport-width", "2000", "--x", "0", "--dpr", "2", "--json")
        #expect(cover.status == 0)
        #expect(cover.standardOutput.contains(##""url":"https://x/a-1280.jpg","color":"#a0b1c2"}"##))

        // images --json gives the feed's values
        let images = try waterfall("images", "--json")
        #expect(
            images.standardOutput.contains(
                ##""url":"https://x/a.jpg","title":null,"color":"#a0b1c2","renditions":[{"width":320,"url":"https://x/a-320.jpg"},"##
            ))
        #expect(
            images.standardOutput.contains(
                ##""placeholder":"LEHV6nWB2yk8pyo0adR*.7kCMdnj","urlTemplate":"https://x/b/{width}.jpg"}"##))
    }

    @Test func aBadDPRIsOneSentenceAndExit64() throws {
        #expect(try waterfall("import", "dressed.json").status == 0)
        for arguments in [
            ["page", "--columns", "2", "--width", "375", "--dpr", "0"],
            ["viewport", "--columns", "2", "--width", "375", "--y", "0", "--height", "9", "--dpr", "9"],
            ["coverflow", "--item-height", "300", "--viewport-width", "2000", "--x", "0", "--dpr", "-1"],
        ] {
            let result = try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
            #expect(result.status == 64, "\(arguments)")
            #expect(
                result.standardError.contains(
                    "--dpr must be a number of device pixels a point above 0 and at most 8, got"),
                "\(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
    }
}
