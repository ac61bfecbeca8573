import Foundation
import Testing
import WaterfallTestSupport

/// End to end: the built `waterfall` binary, its output, its errors and its exit statuses.
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct CommandLineTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func waterfall(_ arguments: String..., input: String? = nil) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(
            ["--db", folder.path("test.sqlite")] + arguments, in: folder.url, input: input.map { Data($0.utf8) })
    }

    func travel() throws -> String {
        try folder.write(
            """
            {"feed": "travel", "sections": [{"id": "2024-05", "title": "May 2024"}],
             "images": [{"id": "a1", "width": 1200, "height": 800, "url": "https://example.com/a1.jpg", "title": "Lisbon", "section": "2024-05"},
                        {"id": "a2", "width": 800, "height": 1200, "section": "2024-05"},
                        {"id": "b1", "width": 1000, "height": 1000, "section": "2024-06"}]}
            """, to: "travel.json")
    }

    @Test func helpListsEveryCommand() throws {
        let result = try WaterfallProcess.run(["--help"])
        #expect(result.status == 0)
        for command in [
            "import", "move", "reorder", "remove", "feeds", "images", "changes", "layout", "page", "viewport",
            "coverflow", "stats", "demo",
        ] {
            #expect(result.standardOutput.contains("\n  \(command) "), "missing \(command)")
        }
        #expect(try WaterfallProcess.run(["--version"]).standardOutput == "1.0.0\n")
    }

    @Test func importPrintsTheChangeSummaryAndIsIdempotent() throws {
        let file = try travel()
        let first = try waterfall("import", file, "--json")
        #expect(first.status == 0)
        #expect(
            first.standardOutput
                == #"{"feed":"travel","revision":1,"inserted":3,"updated":0,"moved":0,"removed":0,"unchanged":0}"#
                + "\n")
        let second = try waterfall("import", file)
        #expect(
            second.standardOutput
                == "feed travel at revision 1: 0 inserted, 0 updated, 0 moved, 0 removed, 3 unchanged\n")
    }

    @Test func pageJSONFollowsTheContract() throws {
        _ = try waterfall("import", try travel())
        #expect(
            try waterfall("layout", "add", "phone", "--columns", "2", "--width", "375", "--header-height", "44").status
                == 0)
        let page = try waterfall("page", "--layout", "phone", "--page", "0", "--page-size", "2", "--json")
        #expect(page.status == 0)
        // itemWidth = floor((375 - 20 - 10) / 2) = 172; a1: floor(172 * 800 / 1200) = 114; a2: 172 * 1200 / 800 = 258.
        // Section 2024-05: header 0…44, images from 54; it ends at max(54+114, 54+258) + 10 = 322.
        // Section 2024-06: header 322…366, b1 at 376, 172 tall, ends at 548 + 10 = 558 = contentHeight.
        #expect(
            page.standardOutput == """
                {"feed":"travel","revision":1,"layout":"phone","contentHeight":558,"totalItems":3,"nextOffset":2,\
                "items":[{"index":0,"id":"a1","section":"2024-05","x":10,"y":54,"width":172,"height":114,"url":"https://example.com/a1.jpg"},\
                {"index":1,"id":"a2","section":"2024-05","x":192,"y":54,"width":172,"height":258,"url":null}],\
                "headers":[{"section":"2024-05","x":0,"y":0,"width":375,"height":44,"pinned":false}],"footers":[]}

                """)
    }

    @Test func justifiedPageJSONFollowsSection8() throws {
        _ = try waterfall("import", try travel())
        let add = try waterfall(
            "layout", "add", "rows", "--kind", "justified", "--width", "300", "--row-height", "100", "--header-height",
            "44")
        #expect(add.status == 0, "\(add.standardError)")
        // W = 300 - 20 = 280, T = 100: minAR 2.1, maxAR 3.5. a1 (1.5) waits; a1 + a2 (2.1667) closes
        // the row: H = grid(270 / 2.1667) = 124, a1 grid(270 × 1.5 / 2.1667) = 186, a2 the rest, 84,
        // ending at 10 + 280. Section 2024-05 ends at 54 + 124 + 10 = 188. b1 alone is the last
        // row of 2024-06: H = T (prevH starts over in each section), left-aligned.
        let expected = """
            {"feed":"travel","revision":1,"layout":"rows","contentHeight":352,"totalItems":3,"nextOffset":null,\
            "items":[{"index":0,"id":"a1","section":"2024-05","x":10,"y":54,"width":186,"height":124,"url":"https://example.com/a1.jpg"},\
            {"index":1,"id":"a2","section":"2024-05","x":206,"y":54,"width":84,"height":124,"url":null},\
            {"index":2,"id":"b1","section":"2024-06","x":10,"y":242,"width":100,"height":100,"url":null}],\
            "headers":[{"section":"2024-05","x":0,"y":0,"width":300,"height":44,"pinned":false},\
            {"section":"2024-06","x":0,"y":188,"width":300,"height":44,"pinned":false}],"footers":[]}

            """
        #expect(
            try waterfall("page", "--layout", "rows", "--offset", "0", "--limit", "3", "--json").standardOutput
                == expected)
        // Inline, the same frames; a page of one image reads on to the end of its row.
        let inline = try waterfall(
            "page", "--kind", "justified", "--width", "300", "--row-height", "100", "--header-height", "44",
            "--offset", "0", "--limit", "1", "--json")
        #expect(
            inline.standardOutput.contains(
                #""items":[{"index":0,"id":"a1","section":"2024-05","x":10,"y":54,"width":186,"height":124,"#))
        let list = try waterfall("layout", "list", "--json")
        #expect(
            list.standardOutput.contains(
                #"{"name":"rows","configuration":{"kind":"justified","width":300,"rowHeight":100,"rowHeightTolerance":0.25,"#
            ))
        // A flag of the other kind is refused with a sentence, and nothing is saved.
        for (arguments, sentence) in [
            (
                ["--kind", "justified", "--width", "300", "--row-height", "100", "--columns", "3"],
                "--columns does not apply to a justified layout"
            ),
            (
                ["--kind", "justified", "--width", "300", "--row-height", "100", "--order", "left-to-right"],
                "--order does not apply to a justified layout"
            ),
            (
                ["--columns", "3", "--width", "300", "--row-height", "100"],
                "--row-height does not apply to a waterfall layout"
            ),
            (
                ["--kind", "justified", "--width", "300"],
                "a justified layout needs --row-height (or --layout NAME for a saved one)."
            ),
            (["--kind", "justified", "--width", "300", "--row-height", "100", "--last-row", "right"], "--last-row"),
            (
                ["--kind", "justified", "--width", "300", "--row-height", "100", "--row-height-tolerance", "2"],
                "rowHeightTolerance must be a number from 0 to 1"
            ),
            (["--kind", "rows", "--width", "300"], "--kind"),
        ] {
            let result = try WaterfallProcess.run(
                ["--db", folder.path("test.sqlite"), "layout", "add", "bad"] + arguments, in: folder.url)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(sentence), "\(arguments): \(result.standardError)")
        }
        #expect(try !waterfall("layout", "list").standardOutput.contains("bad"))
    }

    @Test func aNamedLayoutSurvivesReopening() throws {
        _ = try waterfall("import", try travel())
        _ = try waterfall("layout", "add", "tablet", "--columns", "4", "--width", "768")
        let list = try waterfall("layout", "list", "--json")
        #expect(list.standardOutput.contains(#""name":"tablet""#))
        #expect(list.standardOutput.contains(#""columns":4"#))
    }

    @Test func sectionIndexFollowsSection14() throws {
        _ = try waterfall("import", try travel())
        #expect(
            try waterfall("layout", "add", "phone", "--columns", "2", "--width", "375", "--header-height", "44").status
                == 0)
        // As in pageJSONFollowsTheContract: 2024-05 (titled) from 0 to 322, then 2024-06 (named by
        // its image only, so its title is its id) to 558.
        let expected = """
            {"revision":1,"contentHeight":558,"sections":[\
            {"section":"2024-05","title":"May 2024","index":0,"count":2,"y":0,"height":322},\
            {"section":"2024-06","title":"2024-06","index":2,"count":1,"y":322,"height":236}]}

            """
        let named = try waterfall("sections", "--feed", "travel", "--layout", "phone", "--json")
        #expect(named.status == 0, "\(named.standardError)")
        #expect(named.standardOutput == expected)
        let inline = try waterfall("sections", "--columns", "2", "--width", "375", "--header-height", "44", "--json")
        #expect(inline.standardOutput == expected)
        #expect(
            try waterfall("sections", "--layout", "phone").standardOutput == """
                SECTION  TITLE     INDEX  IMAGES    Y  HEIGHT
                2024-05  May 2024      0       2    0     322
                2024-06  2024-06       2       1  322     236
                feed travel, revision 1, layout phone: 2 sections, 3 images, content height 558

                """)
        // Without a layout, `sections` still lists the catalog's sections.
        #expect(
            try waterfall("sections", "--json").standardOutput.hasPrefix(
                #"{"feed":"travel","revision":1,"sections":[{"id":"2024-05""#))
        for (arguments, status, fragment) in [
            (["sections", "--layout", "nope"], 65, "unknown layout \"nope\""),
            (["sections", "--feed", "nope", "--layout", "phone"], 65, "unknown feed \"nope\""),
            (
                ["sections", "--layout", "phone", "--columns", "2"], 64,
                "give either --layout NAME or configuration flags"
            ),
        ] as [([String], Int32, String)] {
            let result = try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(fragment), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test func sectionOverridesFollowSection14() throws {
        _ = try waterfall("import", try travel())
        let add = try waterfall(
            "layout", "add", "steer", "--columns", "3", "--width", "375",
            "--section", "2024-06:kind=justified,row-height=100,inset=0,5,0,5", "--section", "2024-05:columns=1")
        #expect(add.status == 0, "\(add.standardError)")
        // Kept as given, in the order given.
        let list = try waterfall("layout", "list", "--json").standardOutput
        #expect(
            list.contains(
                #""sections":[{"section":"2024-06","kind":"justified","rowHeight":100,"sectionInset":{"top":0,"left":5,"bottom":0,"right":5}},{"section":"2024-05","columns":1}]"#
            ), "\(list)")
        struct Page: Decodable {
            struct Item: Decodable {
                var section: String?
                var x: Double
                var y: Double
                var width: Double
                var height: Double
            }
            var items: [Item]
        }
        struct Index: Decodable {
            struct Section: Decodable {
                var section: String?
                var y: Double
                var height: Double
            }
            var sections: [Section]
        }
        let page = try JSONDecoder().decode(
            Page.self, from: Data(try waterfall("page", "--layout", "steer", "--json").standardOutput.utf8))
        let index = try JSONDecoder().decode(
            Index.self, from: Data(try waterfall("sections", "--layout", "steer", "--json").standardOutput.utf8))
        // 2024-05: one column across the content width; 2024-06: a justified row from its own
        // inset, starting where 2024-05 ends.
        let may = page.items.filter { $0.section == "2024-05" }
        let june = page.items.filter { $0.section == "2024-06" }
        #expect(may.count == 2 && may.allSatisfy { $0.x == 10 && $0.width == 355 })
        #expect(may[1].y == may[0].y + may[0].height + 10)
        #expect(index.sections.map(\.section) == ["2024-05", "2024-06"])
        #expect(index.sections[1].y == may[1].y + may[1].height + 10)
        #expect(june.count == 1 && june[0].x == 5 && june[0].y == index.sections[1].y && june[0].height <= 200)
        for (arguments, fragment) in [
            (
                ["--section", "2024-05:columns=1", "--section", "2024-05:columns=2"],
                "--section 2024-05:columns=2: sections[1].section names \"2024-05\" again"
            ),
            (["--section", "2024-05:width=300"], "sections[0].width cannot differ per section"),
            (["--section", "2024-05:row-height=100"], "sections[0].rowHeight does not apply to a waterfall section"),
            (["--section", "2024-05:kind=justified"], "sections[0].rowHeight is required"),
            (["--section", "2024-05:columns=65"], "sections[0].columns must be a whole number from 1 to 64, got 65."),
            (["--section", "2024-05:columns=two"], "expected a number, got \"two\""),
            (["--section", "columns=1"], "expected ID:KEY=VALUE"),
            (["--section", "2024-05:colums=1"], "\"colums\" is not a layout setting"),
        ] as [([String], String)] {
            let result = try WaterfallProcess.run(
                ["--db", folder.path("test.sqlite"), "layout", "add", "bad", "--columns", "3", "--width", "375"]
                    + arguments, in: folder.url)
            #expect(result.status == 64, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(fragment), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        #expect(!(try waterfall("layout", "list").standardOutput.contains("bad")))
    }

    @Test func badInputGetsOneSentenceAndTheDocumentedStatus() throws {
        let file = try travel()
        _ = try waterfall("import", file)
        let cases: [([String], Int32, String)] = [
            (["page", "--columns", "0", "--width", "375"], 64, "columns must be a whole number from 1 to 64, got 0."),
            (
                ["page", "--columns", "65", "--width", "375"], 64,
                "columns must be a whole number from 1 to 64, got 65."
            ),
            (["page", "--columns", "3", "--width", "-1"], 64, "width"),
            (["page", "--columns", "3", "--width", "375", "--column-spacing", "400"], 64, "itemWidth"),
            (
                ["page", "--columns", "3", "--width", "375", "--offset=-1", "--limit", "5"], 64,
                "--offset must be 0 or more, got -1."
            ),
            (["page", "--columns", "3", "--width", "375", "--scale", "4"], 64, "scale"),
            (["page", "--layout", "nope"], 65, "unknown layout \"nope\""),
            (["page", "--feed", "nope", "--columns", "2", "--width", "300"], 65, "unknown feed \"nope\""),
            (["move", "a1", "--before", "a1"], 64, "cannot move \"a1\" next to itself."),
            (["move", "zz", "--to", "0"], 65, "unknown image id \"zz\" in feed \"travel\"."),
            (["move", "a1", "--to", "9"], 65, "index 9 is outside section \"2024-05\""),
            (["import", "missing.json"], 66, "missing.json: cannot be read"),
        ]
        for (arguments, status, fragment) in cases {
            let result = try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
            #expect(result.status == status, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(fragment), "\(arguments): \(result.standardError)")
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
        #expect(try waterfall("images", "--json").standardOutput.contains(#""revision":1"#))
    }

    @Test func negativeNumbersAreValuesNotFlags() throws {
        _ = try waterfall("import", try travel())
        // A band above the content and a cover flow scrolled left are valid questions.
        let band = try waterfall(
            "viewport", "--columns", "2", "--width", "375", "--y", "-50", "--height", "100", "--json")
        #expect(band.status == 0, "\(band.standardError)")
        #expect(band.standardOutput.contains(#""y":-50,"height":100"#))
        #expect(try waterfall("coverflow", "--item-height", "100", "--viewport-width", "300", "--x", "-20").status == 0)
        // A negative width is refused for what it is, not as a missing value.
        let width = try waterfall("page", "--columns", "2", "--width", "-1")
        #expect(width.status == 64)
        #expect(width.standardError.contains("width must be greater than 0"))
    }

    @Test func aBadFeedExits65AndChangesNothing() throws {
        _ = try waterfall("import", try travel())
        let bad = try folder.write(
            #"{"feed": "travel", "images": [{"id": "a1", "width": 0, "height": 10}]}"#, to: "bad.json")
        let result = try waterfall("import", bad)
        #expect(result.status == 65)
        #expect(
            result.standardError
                == "waterfall: error: \(bad): images[0].width: expected an integer from 1 to 1000000, found 0.\n")
        #expect(try waterfall("images", "--json").standardOutput.contains(#""totalItems":3"#))
    }

    @Test func foreignFilesAreRefusedAndLeftUntouched() throws {
        let text = try folder.write("just some notes\n", to: "notes.txt")
        let before = try Data(contentsOf: URL(fileURLWithPath: text))
        let result = try WaterfallProcess.run(["--db", text, "feeds"])
        #expect(result.status == 74)
        #expect(result.standardError.contains("is not a SQLite database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == before)
        let directory = try WaterfallProcess.run(["--db", folder.url.path, "feeds"])
        #expect(directory.status == 74)
        #expect(directory.standardError.contains("is a directory"))
        let missingFolder = try WaterfallProcess.run(["--db", folder.path("no/such/dir/x.sqlite"), "feeds"])
        #expect(missingFolder.status == 73)
    }

    @Test func importReadsStandardInput() throws {
        let json = #"{"images": [{"id": 1, "width": 10, "height": 20}]}"#
        let result = try waterfall("import", "-", "--feed", "piped", input: json)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try waterfall("images", "--json").standardOutput.contains(#""id":"1""#))
        let unnamed = try waterfall("import", "-", input: json)
        #expect(unnamed.status == 64)
    }

    @Test func demoRunsFromTheRepository() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let result = try WaterfallProcess.run(
            ["--db", folder.path("demo.sqlite"), "demo", "--html", folder.path("demo.html")], in: repository)
        #expect(result.status == 0, "\(result.standardError)")
        let html = try String(contentsOfFile: folder.path("demo.html"), encoding: .utf8)
        // By day, newest first: the last photo taken (2013-11-25T21:34:58Z) opens the page.
        #expect(html.contains("data-waterfall") && html.contains("data-id=\"25394\""))
        #expect(result.standardOutput.contains("feed coco-val2017 at revision 1: 5000 inserted"))
        #expect(result.standardOutput.contains("header                 25 November 2013"))
    }
}

/// DESIGN section 17 on the command line: `import --section-by --time-zone`, what the import
/// says, the dates in answers, and the refused inputs with their exit statuses.
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct DateSectionCommandLineTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", folder.path("test.sqlite")] + arguments, in: folder.url)
    }

    func photos() throws -> String {
        try folder.write(
            """
            {"feed": "photos", "sectionBy": "year",
             "images": [{"id": "a", "width": 100, "height": 100, "takenAt": "2017-11-14T16:28:13+01:00", "section": "x"},
                        {"id": "b", "width": 100, "height": 100, "takenAt": "2017-11-14T23:30:00-05:00"},
                        {"id": "c", "width": 100, "height": 100, "section": "y"}]}
            """, to: "photos.json")
    }

    @Test func flagsOverrideTheFileAndTheAnswerCountsIgnoredSectionFields() throws {
        let file = try photos()
        let first = try waterfall("import", file, "--section-by", "day", "--time-zone", "America/New_York", "--json")
        #expect(first.status == 0)
        #expect(
            first.standardOutput
                == #"{"feed":"photos","revision":1,"inserted":3,"updated":0,"moved":0,"removed":0,"unchanged":0,"sectionFieldsIgnored":2}"#
                + "\n")
        let again = try waterfall("import", file, "--section-by", "day", "--time-zone", "America/New_York")
        #expect(
            again.standardOutput
                == "feed photos at revision 1: 0 inserted, 0 updated, 0 moved, 0 removed, 3 unchanged; sections by date, 2 section fields ignored\n"
        )
        // b, 23:30 in New York on the 14th, is the 15th in UTC; a is 10:28 on the 14th there
        let images = try waterfall("images", "--feed", "photos", "--json")
        #expect(
            images.standardOutput == """
                {"feed":"photos","revision":1,"totalItems":3,"nextOffset":null,"images":[\
                {"index":0,"id":"b","section":"2017-11-14","width":100,"height":100,"url":null,"title":null,"takenAt":"2017-11-15T04:30:00Z"},\
                {"index":1,"id":"a","section":"2017-11-14","width":100,"height":100,"url":null,"title":null,"takenAt":"2017-11-14T15:28:13Z"},\
                {"index":2,"id":"c","section":"undated","width":100,"height":100,"url":null,"title":null}]}

                """)
        let sections = try waterfall("sections", "--feed", "photos", "--columns", "2", "--width", "375", "--json")
        #expect(
            sections.standardOutput.contains(#""section":"2017-11-14","title":"14 November 2017","index":0,"count":2,"#)
        )
        #expect(
            sections.standardOutput.contains(
                #""firstTakenAt":"2017-11-14T15:28:13Z","lastTakenAt":"2017-11-15T04:30:00Z"}"#))
    }

    @Test func aMoveIntoAnotherDateSectionAndAnUnknownZoneAreRefused() throws {
        let file = try photos()
        #expect(try waterfall("import", file).status == 0)
        let move = try waterfall("move", "c", "--before", "a", "--feed", "photos")
        #expect(move.status == 65)
        #expect(
            move.standardError
                == "waterfall: error: cannot move \"c\" from section \"undated\" into section \"2017\": feed \"photos\" has sections by year, so an image's date decides its section.\n"
        )
        let zone = try waterfall("import", file, "--time-zone", "Mars/Olympus")
        #expect(zone.status == 64)
        #expect(
            zone.standardError
                == "waterfall: error: --time-zone must be an IANA time zone name such as Europe/Paris or UTC, got \"Mars/Olympus\".\n"
        )
        #expect(try waterfall("import", file, "--section-by", "week").status == 64)
    }
}
