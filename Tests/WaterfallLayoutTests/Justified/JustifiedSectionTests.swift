import Testing
import WaterfallLayout

@Suite("Justified rows: sections, headers and footers")
struct JustifiedSectionTests {
    /// Width 120 (W = 100), T = 100, a 44-point header with insets (5, 2, 3, 4) and a 30-point
    /// footer with insets (1, 6, 7, 8): the decorated layout of the waterfall's SectionTests.
    /// minAR = 1 × 0.75 = 0.75, maxAR = 1.25, so a square closes a row alone.
    func decoratedLayout(minimumContentHeight: Double = 0) throws -> JustifiedLayout {
        try JustifiedLayout(
            JustifiedConfiguration(
                width: 120, rowHeight: 100, headerHeight: 44, footerHeight: 30,
                headerInset: EdgeInsets(top: 5, left: 2, bottom: 3, right: 4),
                footerInset: EdgeInsets(top: 1, left: 6, bottom: 7, right: 8),
                minimumContentHeight: minimumContentHeight))
    }

    @Test("header and footer frames respect their insets, exactly as in a waterfall")
    func headerAndFooter() throws {
        // Given the decorated layout and one square
        let run = runBoth(try decoratedLayout(), [[image(100, 100)]])

        // Then y = 0 + 5 → header (2, 5, 120 - 2 - 4 = 114, 44); y = 5 + 44 + 3 = 52; + 10 = 62
        #expect(run.headers == [Frame(x: 2, y: 5, width: 114, height: 44)])
        // the square closes alone: H = grid(100 / 1) = 100: (10, 62, 100, 100); rowTop 172
        #expect(run.frames == [Frame(x: 10, y: 62, width: 100, height: 100)])
        // section end: 172 - 10 + 10 = 172; footer at 173: (6, 173, 120 - 6 - 8 = 106, 30)
        #expect(run.sectionEnds == [172])
        #expect(run.footers == [Frame(x: 6, y: 173, width: 106, height: 30)])
        // y = 173 + 30 + 7 = 210
        #expect(run.contentHeight == 210)
        // and the same as the waterfall gives with one 100-point column
        let waterfall = runScalar(
            try WaterfallLayout(
                LayoutConfiguration(
                    columns: 1, width: 120, headerHeight: 44, footerHeight: 30,
                    headerInset: EdgeInsets(top: 5, left: 2, bottom: 3, right: 4),
                    footerInset: EdgeInsets(top: 1, left: 6, bottom: 7, right: 8))),
            [[image(100, 100)]])
        #expect(run.frames == waterfall.frames && run.headers == waterfall.headers && run.footers == waterfall.footers)
    }

    @Test("an empty section with a header and a footer keeps its insets")
    func emptySectionWithDecorations() throws {
        // Given an empty section
        let run = runBoth(try decoratedLayout(), [[]])

        // Then header at 5; y = 52 + 10 = 62, no images so the bottom is y; end 72; footer at 73; y = 110
        #expect(run.headers == [Frame(x: 2, y: 5, width: 114, height: 44)])
        #expect(run.frames.isEmpty)
        #expect(run.sectionEnds == [72])
        #expect(run.footers == [Frame(x: 6, y: 73, width: 106, height: 30)])
        #expect(run.contentHeight == 110)
    }

    @Test("empty sections are their two insets tall and sections stack")
    func emptySectionsStack() throws {
        // Given the book layout (no header or footer): empty, the 103-point row, empty
        let run = runBoth(try bookLayout(), [[], [image(4, 3), image(4, 3), image(1, 1)], []])

        // Then section 0 ends at 0 + 10 + 10 = 20; section 1's row starts at 30 and ends at
        // 30 + 103 = 133, end 143; section 2 ends at 143 + 20 = 163
        #expect(run.sectionEnds == [20, 143, 163])
        #expect(run.frames.map(\.y) == [30, 30, 30])
        #expect(run.headers == [nil, nil, nil])
        #expect(run.contentHeight == 163)
    }

    @Test("prevH is reset at each section start")
    func previousHeightPerSection() throws {
        // Given the 73-point row in section 0, then one square in section 1
        let run = runBoth(try bookLayout(), [[image(250, 100), image(280, 100)], [image(1, 1)]])

        // Then section 0 ends at 10 + 73 = 83 + 10 = 93; section 1's widow is T = 100 tall
        // (not 73), at 93 + 10 = 103
        #expect(run.frames[2] == Frame(x: 10, y: 103, width: 100, height: 100))
    }

    @Test("a section of banners only ends under its last banner")
    func bannersOnly() throws {
        // Given two 4:1 banners: grid(400 / 4) = 100 tall each
        let run = runBoth(try bookLayout(), [[bannerImage(4, 1), bannerImage(4, 1)]])

        // Then at 10 and 120; rowTop 230; end 230 - 10 + 10 = 230
        #expect(run.frames.map(\.y) == [10, 120])
        #expect(run.sectionEnds == [230])
    }

    @Test("minimumContentHeight is a floor on the content height")
    func minimumContentHeight() throws {
        // Given a floor of 500 and one square (content 210 without it)
        let run = runBoth(try decoratedLayout(minimumContentHeight: 500), [[image(100, 100)]])

        // Then contentHeight = max(210, 500)
        #expect(run.contentHeight == 500)
        #expect(run.sectionEnds == [172])
    }

    @Test("the whole-feed layout answers viewports like the waterfall's feed layout")
    func viewport() throws {
        // Given the decorated layout, sections of one, zero and three squares (one row each)
        let layout = try decoratedLayout()
        let feed = layout.layout([[image(1, 1)], [], [image(1, 1), image(1, 1), image(1, 1)]])

        // Then section 0: header 5...49, image 62...162, footer 173...203; section 1 starts at
        // 210: header 215...259, footer 283...313; section 2 starts at 320: header 325...369,
        // squares at 382, 492, 602 (each 100 tall)
        #expect(feed.itemFrames.map(\.y) == [62, 382, 492, 602])
        let band = feed.viewport(y: 250, height: 150)
        #expect(band.items == [1])
        #expect(band.headers.map(\.section) == [1, 2])
        #expect(band.footers == [1])
        // with pinned headers under a 20-point bar at y = 500: section 2's header moves to 520
        let pinned = feed.viewport(y: 500, height: 50, pinOffset: 20)
        #expect(pinned.items == [2])
        #expect(
            pinned.headers == [
                ViewportHeader(section: 2, frame: Frame(x: 2, y: 520, width: 114, height: 44), isPinned: true)
            ])
    }
}
