// The web gallery (`GET /` of `waterfall serve`, issue 13) in a real browser.
//
// `Tests/Browser/gallery_test.py` drives headless Chromium through chromedriver and Selenium
// against the built server on a catalog of the sample feeds plus a generated feed of 1,000,000
// images, and holds the page against the API and the command line: every box where the
// viewport API says, the last image of the million reachable by scrolling, a drag persisted
// exactly as `move --before`, a command-line move (and another tab's drag) live in the page
// within 2 s, a keyboard move, a stale move refused with 412 and said, the section scrubber
// (keys, click, End to the last images), wheel and page scrolls of their usual amounts deep in
// the million, the lightbox, a live badge that says "Live" only while the stream is open, a
// header that fits at 1280 and 375 px, the image at the top kept across a reload, a layout or
// kind change and a resize, a deep link `#feed=F&id=ID`, the scrubber's year and month labels
// jumping where `locate?date=` says (on COCO and on a three-year feed by month that the script
// imports as "timeline"), no console errors.
// Debian: `apt-get install -y chromium chromium-driver` and `python3 -m pip install selenium`;
// without them the test is skipped, and says so.
//
// WATERFALL_GALLERY_SCREENSHOTS=DIR also saves the screenshots of docs/gallery.md there.

import Foundation
import Testing
import WaterfallTestSupport

/// What the browser test needs, found once.
enum GalleryBrowser {
    static let script = ServeEndToEndTests.repository.appending(path: "Tests/Browser/gallery_test.py").path

    static let chromium = executable(["chromium", "chromium-browser", "google-chrome"])
    static let chromedriver = executable(
        ["chromedriver"], extra: ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
    static let python = executable(["python3"])

    /// Whether Chromium, chromedriver and Selenium (for python3) are all there.
    static let available: Bool = {
        guard chromium != nil, chromedriver != nil, let python else { return false }
        guard
            let probe = try? run(
                python, ["-c", "import selenium"], in: FileManager.default.temporaryDirectory, timeout: 30)
        else { return false }
        return probe.status == 0
    }()

    static func executable(_ names: [String], extra: [String] = []) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in names {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return extra.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    struct Finished {
        var status: Int32
        var output: String
        var errors: String
        var timedOut: Bool
    }

    /// Runs `program arguments…` in `folder`, its output in files (no pipe to fill up); kills it
    /// after `timeout` seconds.
    static func run(
        _ program: String, _ arguments: [String], in folder: URL, timeout: TimeInterval,
        environment extra: [String: String] = [:]
    ) throws -> Finished {
        let name = UUID().uuidString
        let outputURL = folder.appending(path: "\(name).out")
        let errorURL = folder.appending(path: "\(name).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "WATERFALL_DB")
        environment["PYTHONUNBUFFERED"] = "1"
        environment.merge(extra) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let timedOut = process.isRunning
        if timedOut {
            process.terminate()
            process.waitUntilExit()
        }
        return Finished(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "",
            timedOut: timedOut)
    }
}

extension ServeEndToEndTests {
    /// Adds the feed "million": 1,000,000 small NDJSON records (sections of 5,000, varied
    /// aspect ratios), about 54 million points tall in a 5-column layout.
    func addMillionImageFeed(_ database: String) throws {
        let python = try #require(GalleryBrowser.python)
        let feed = folder.path("million.ndjson")
        let made = try GalleryBrowser.run(
            python, [GalleryBrowser.script, "--make-feed", feed, "1000000"], in: folder.url, timeout: 120)
        try #require(made.status == 0, "generating the feed: \(made.errors)")
        try cli(database, ["import", feed, "--feed", "million"])
        try? FileManager.default.removeItem(atPath: feed)
    }
}

@Suite(
    .serialized, .onOwnThreads(lane: .processes),
    .enabled(if: GalleryBrowser.available, "needs chromium, chromedriver, and selenium for python3"))
struct GalleryBrowserTests {
    @Test func theGalleryPassesEveryCheckInARealBrowser() throws {
        let serve = try ServeEndToEndTests()
        defer { serve.folder.remove() }
        let database = try serve.makeCatalog("gallery.sqlite")
        try serve.addMillionImageFeed(database)
        let server = try ServeProcess(database: database, in: serve.folder)
        defer { server.stop() }

        var arguments = [
            GalleryBrowser.script, "http://127.0.0.1:\(server.port)", WaterfallProcess.executable.path, database,
            "--feed", ServeEndToEndTests.coco, "--big-feed", "million",
        ]
        if let folder = ProcessInfo.processInfo.environment["WATERFALL_GALLERY_SCREENSHOTS"], !folder.isEmpty {
            arguments += ["--screenshots", folder]
        }
        var environment: [String: String] = [:]
        if let chromium = GalleryBrowser.chromium { environment["CHROMIUM"] = chromium }
        if let driver = GalleryBrowser.chromedriver { environment["CHROMEDRIVER"] = driver }
        let started = Date()
        let run = try GalleryBrowser.run(
            try #require(GalleryBrowser.python), arguments, in: serve.folder.url, timeout: 480, environment: environment
        )
        let seconds = Date().timeIntervalSince(started)

        #expect(!run.timedOut, "the browser test did not finish within 480 s (a hang):\n\(run.output)\(run.errors)")
        #expect(
            run.status == 0, "the browser test failed (exit \(run.status)):\n\(run.output)\n\(run.errors.suffix(4000))")
        for check in [
            "ok: a. image boxes and headers are where the viewport API says",
            "ok: g. justified rows are where the viewport API says",
            "ok: b. the end of the",
            "ok: c. dragging position 3",
            "ok: c. a touch long-press drag moves an image",
            "ok: cover flow snapped",
            "ok: d. a command-line move showed in the open page",
            "ok: d. a drag in another tab showed",
            "ok: e. Alt+ArrowLeft and Space, arrows, Space move the focused image",
            "ok: h. the scrubber (role=slider, aria-valuetext the section's title)",
            "ok: i. deep in the",
            "ok: j. Enter and a click open an image in a role=dialog",
            "ok: k. the live badge says 'Connecting…' while the stream is held",
            "ok: l. the header fits at 1280 and 375 px wide",
            "ok: m. the image at the top",
            "ok: m. a deep link",
            "ok: n. the scrubber labels years and months",
            "ok: f. no console errors",
            "all gallery checks passed",
        ] {
            #expect(
                run.output.contains(check), "the browser test did not say \(check.debugDescription):\n\(run.output)")
        }
        // How long it took is printed, not asserted: a shared 2-core machine may be slow.
        print("the browser checks took \(Int(seconds)) s")
        #expect(
            server.isRunning,
            "the server stopped during the browser test: \(server.exitDescription)\n\(server.errorTail)")
    }
}
