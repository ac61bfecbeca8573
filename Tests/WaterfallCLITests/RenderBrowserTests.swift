import Foundation
import Testing
import WaterfallTestSupport

/// The programs the browser test runs, found once.
private enum BrowserTools {
    /// Headless Chromium, from `PATH` (`apt-get install -y chromium` on Debian).
    static let chromium: String? = executable(named: ["chromium", "chromium-browser", "google-chrome"])

    static func executable(named names: [String]) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in names {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }

}

/// A finished child process.
private struct Run {
    var status: Int32
    var output: String
    var errors: String
}

/// Runs `waterfall arguments…` in `directory`; fails the test when the binary was not built.
private func waterfall(_ arguments: [String], in directory: TemporaryDirectory) throws -> Run {
    try #require(
        FileManager.default.isExecutableFile(atPath: WaterfallProcess.executable.path),
        "the built waterfall binary is not beside the test bundle: \(WaterfallProcess.executable.path)")
    let result = try WaterfallProcess.run(arguments, in: directory.url)
    return Run(status: result.status, output: result.standardOutput, errors: result.standardError)
}

/// Runs `program` with `arguments`, its output in files of `directory` (no pipe to fill up);
/// kills it after `timeout` seconds.
private func run(_ program: String, _ arguments: [String], in directory: TemporaryDirectory, timeout: TimeInterval = 60)
    throws -> Run
{
    let name = UUID().uuidString
    let outputPath = directory.path("\(name).out")
    let errorPath = directory.path("\(name).err")
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.currentDirectoryURL = directory.url
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(20_000) }
    if process.isRunning {
        process.terminate()
        process.waitUntilExit()
        Issue.record("\(program) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s.")
    }
    return Run(
        status: process.terminationStatus,
        output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
        errors: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
}

/// A box from `page --json` or from the browser, relative to the container, in CSS px.
private struct Box: CustomStringConvertible {
    var x, y, width, height: Double

    init(_ object: Any?) throws {
        let values = try #require(object as? [String: Any])
        func number(_ key: String) throws -> Double {
            try #require((values[key] as? NSNumber)?.doubleValue, "no \(key) in \(values)")
        }
        (x, y, width, height) = (try number("x"), try number("y"), try number("width"), try number("height"))
    }

    init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// Whether every edge is within `tolerance` of `other`'s.
    func matches(_ other: Box, within tolerance: Double = 1) -> Bool {
        abs(x - other.x) <= tolerance && abs(y - other.y) <= tolerance
            && abs(width - other.width) <= tolerance && abs(height - other.height) <= tolerance
    }

    var description: String { "(\(x), \(y), \(width), \(height))" }
}

@Suite("render, laid out by headless Chromium", .serialized, .onOwnThreads(lane: .processes))
struct RenderBrowserTests {
    /// 4 columns, 800 points, headers, footers and captions, as the issue's check has them.
    private let layoutFlags = [
        "--columns", "4", "--width", "800", "--header-height", "40", "--footer-height", "24", "--caption-height", "28",
    ]

    /// A feed of three sections, a banner, relative urls and placeholders, odd ids and a hostile title.
    private func writeFeed(to directory: TemporaryDirectory) throws -> String {
        var random = SeededGenerator(seed: 2024)
        var images: [[String: Any]] = []
        for index in 0..<45 {
            var image: [String: Any] = [
                "id": index == 7 ? "odd \"id\" & <co>" : index == 8 ? "emoji-📷" : "p\(index)",
                "width": Int.random(in: 400...2400, using: &random),
                "height": Int.random(in: 400...2400, using: &random),
                "title": index == 3 ? "<script>alert(1)</script>\" onload=\"x" : "Photo \(index)",
                "section": ["2024-05", "2024-06", "2024-07"][index / 15],
            ]
            if index % 5 == 0 { image["url"] = "img/p\(index).jpg" }  // relative: fails to load, box unchanged
            if index == 16 { image["span"] = "full" }
            images.append(image)
        }
        let feed: [String: Any] = ["feed": "browser", "images": images]
        let data = try JSONSerialization.data(withJSONObject: feed)
        return try directory.write(String(decoding: data, as: UTF8.self), to: "feed.json")
    }

    /// What `chromium --dump-dom` shows of a page drawn with `--measure`.
    private func measure(_ page: String, in directory: TemporaryDirectory) throws -> [String: Any] {
        let chromium = try #require(BrowserTools.chromium)
        let result = try run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(directory.path("chromium-profile"))", "--hide-scrollbars",
                "--run-all-compositor-stages-before-draw", "--virtual-time-budget=3000", "--window-size=1200,2000",
                "--dump-dom", URL(fileURLWithPath: page).absoluteString,
            ], in: directory, timeout: 90)
        #expect(result.status == 0, "chromium failed: \(result.errors.suffix(2000))")
        let start = try #require(result.output.range(of: "<pre id=\"measure\">"), "no measurement in the dumped DOM")
        let rest = result.output[start.upperBound...]
        let end = try #require(rest.range(of: "</pre>"))
        let encoded = rest[..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        let decoded = try #require(
            Data(base64Encoded: encoded), "the measurement is not base64: \(encoded.prefix(200))")
        return try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
    }

    /// Checks every measured `[data-id]`, header and footer box against `expected` (the
    /// `page --json` or `viewport --json` answer), shifted up by `top`.
    private func compare(_ measured: [String: Any], with expected: [String: Any], top: Double) throws {
        let items = try #require(expected["items"] as? [[String: Any]])
        let boxes = try #require(measured["items"] as? [[String: Any]])
        #expect(boxes.count == items.count, "one [data-id] element per image")
        #expect(!items.isEmpty)
        var worst = 0.0
        for item in items {
            let id = try #require(item["id"] as? String)
            let matching = boxes.filter { $0["key"] as? String == id }
            #expect(matching.count == 1, "one [data-id=\(id)] element")
            guard let box = matching.first else { continue }
            let frame = try Box(item)
            let want = Box(x: frame.x, y: frame.y - top, width: frame.width, height: frame.height)
            let got = try Box(box)
            worst = max(
                worst, abs(got.x - want.x), abs(got.y - want.y), abs(got.width - want.width),
                abs(got.height - want.height))
            #expect(got.matches(want), "image \(id): Chromium laid it out at \(got), the layout says \(want)")
        }
        for (kind, key) in [("headers", "headers"), ("footers", "footers")] {
            let supplements = try #require(expected[kind] as? [[String: Any]])
            let drawn = try #require(measured[key] as? [[String: Any]])
            #expect(drawn.count == supplements.count, "one element per \(kind.dropLast())")
            for supplement in supplements {
                let section = supplement["section"] as? String ?? ""
                guard let box = drawn.first(where: { $0["key"] as? String == section }) else {
                    Issue.record("no element for the \(kind.dropLast()) of \(section)")
                    continue
                }
                let frame = try Box(supplement)
                let want = Box(x: frame.x, y: frame.y - top, width: frame.width, height: frame.height)
                let got = try Box(box)
                #expect(
                    got.matches(want),
                    "\(kind.dropLast()) of \(section): Chromium laid it out at \(got), the layout says \(want)")
            }
        }
        #expect(worst <= 1, "largest difference \(worst) px")
    }

    @Test(
        "every [data-id] box of a rendered page equals its page --json frame within 1 px",
        .enabled(
            if: BrowserTools.chromium != nil,
            "Chromium is not installed (apt-get install -y chromium); the browser check was skipped"))
    func pageBoxes() throws {
        // Given a feed with three sections and the built binary
        let directory = try TemporaryDirectory(prefix: "waterfall-browser")
        defer { directory.remove() }
        let database = directory.path("browser.sqlite")
        let imported = try waterfall(["--db", database, "import", try writeFeed(to: directory)], in: directory)
        try #require(imported.status == 0, "import failed: \(imported.errors)")

        // When page 0 is asked for as JSON and drawn as HTML, then laid out by Chromium
        let query = ["--db", database, "page"] + layoutFlags + ["--page", "0", "--page-size", "40"]
        let json = try waterfall(query + ["--json"], in: directory)
        try #require(json.status == 0, "page failed: \(json.errors)")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let path = directory.path("page.html")
        let rendered = try waterfall(
            ["--db", database, "render"] + layoutFlags + [
                "--page", "0", "--page-size", "40", "--out", path, "--measure",
            ], in: directory)
        try #require(rendered.status == 0, "render failed: \(rendered.errors)")
        #expect(
            rendered.output.hasPrefix(
                "wrote page 0 of feed browser (40 of 45 images, 3 headers, 2 footers) as HTML to "))
        let measured = try measure(path, in: directory)

        // Then the container is the layout's width and reaches the lowest element, and every
        // image, header and footer is where the layout put it
        let container = try #require(measured["container"] as? [String: Any])
        var frames: [Box] = []
        for key in ["items", "headers", "footers"] {
            frames += try #require(expected[key] as? [[String: Any]]).map { try Box($0) }
        }
        #expect((container["width"] as? NSNumber)?.doubleValue == 800)
        let lowest = frames.map { $0.y + $0.height }.max() ?? 0
        #expect(abs(((container["height"] as? NSNumber)?.doubleValue ?? -1) - lowest) <= 1)
        try compare(measured, with: expected, top: 0)
    }

    @Test(
        "a rendered viewport with pinned headers matches viewport --json, shifted to the band",
        .enabled(
            if: BrowserTools.chromium != nil,
            "Chromium is not installed (apt-get install -y chromium); the browser check was skipped"))
    func viewportBoxes() throws {
        // Given a feed and the built binary
        let directory = try TemporaryDirectory(prefix: "waterfall-browser")
        defer { directory.remove() }
        let database = directory.path("browser.sqlite")
        let imported = try waterfall(["--db", database, "import", try writeFeed(to: directory)], in: directory)
        try #require(imported.status == 0, "import failed: \(imported.errors)")

        // When a band in the middle is asked for with pinned headers, drawn and laid out
        let band = ["--y", "900", "--height", "700", "--pin-headers", "--pin-offset", "20"]
        let json = try waterfall(["--db", database, "viewport"] + layoutFlags + band + ["--json"], in: directory)
        try #require(json.status == 0, "viewport failed: \(json.errors)")
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let path = directory.path("viewport.html")
        let rendered = try waterfall(
            ["--db", database, "render"] + layoutFlags + band + ["--out", path, "--measure"], in: directory)
        try #require(rendered.status == 0, "render failed: \(rendered.errors)")
        let measured = try measure(path, in: directory)

        // Then the container is the band, and every element sits at its frame minus the band's top
        let container = try #require(measured["container"] as? [String: Any])
        #expect((container["width"] as? NSNumber)?.doubleValue == 800)
        #expect((container["height"] as? NSNumber)?.doubleValue == 700)
        try compare(measured, with: expected, top: 900)
    }

    @Test("render refuses an --out it cannot draw, and says where it cannot write")
    func renderErrors() throws {
        // Given a feed and the built binary
        let directory = try TemporaryDirectory(prefix: "waterfall-browser")
        defer { directory.remove() }
        let database = directory.path("browser.sqlite")
        _ = try waterfall(["--db", database, "import", try writeFeed(to: directory)], in: directory)
        let render = ["--db", database, "render"] + layoutFlags

        // When the extension is unknown, the modes are mixed, or the folder does not exist
        let png = try waterfall(render + ["--out", directory.path("page.png")], in: directory)
        let mixed = try waterfall(
            render + ["--page", "0", "--y", "0", "--height", "10", "--out", directory.path("a.svg")], in: directory)
        let missing = directory.path("no/such/folder/page.svg")
        let unwritable = try waterfall(render + ["--out", missing], in: directory)

        // Then each fails with its status and one sentence, and nothing is left behind
        #expect(png.status == 64)
        #expect(png.errors.contains("--out must name a file ending in .html, .htm or .svg"))
        #expect(mixed.status == 64)
        #expect(unwritable.status == 73)
        #expect(unwritable.errors == "waterfall: error: cannot write \(missing): no such file or directory.\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!left.contains { $0.hasSuffix(".tmp") || $0.hasSuffix(".png") || $0.hasSuffix(".svg") })
    }
}
