import Testing
import WaterfallLayout

@Suite("Sections, headers and footers")
struct SectionTests {
    /// One column, width 120 (contentWidth 100, itemWidth 100), a 44-point header with insets
    /// (5, 2, 3, 4) and a 30-point footer with insets (1, 6, 7, 8).
    func decoratedLayout(minimumContentHeight: Double = 0) throws -> WaterfallLayout {
        try WaterfallLayout(
            LayoutConfiguration(
                columns: 1, width: 120, headerHeight: 44, footerHeight: 30,
                headerInset: EdgeInsets(top: 5, left: 2, bottom: 3, right: 4),
                footerInset: EdgeInsets(top: 1, left: 6, bottom: 7, right: 8),
                minimumContentHeight: minimumContentHeight))
    }

    @Test("header and footer frames respect their insets")
    func headerAndFooter() throws {
        // Given the decorated layout and one 100 × 100 image
        let layout = try decoratedLayout()

        // When the section is laid out
        let run = runScalar(layout, [[LayoutItem(width: 100, height: 100)]])

        // Then y = 0 + 5 → header (2, 5, 120 - 2 - 4 = 114, 44); y = 5 + 44 + 3 = 52; + 10 = 62
        #expect(run.headers == [Frame(x: 2, y: 5, width: 114, height: 44)])
        // the image: (10, 62, 100, 100), bottom 172
        #expect(run.frames == [Frame(x: 10, y: 62, width: 100, height: 100)])
        // section end: 172 - 10 + 10 = 172; footer y = 172 + 1 = 173: (6, 173, 120 - 6 - 8 = 106, 30)
        #expect(run.sectionEnds == [172])
        #expect(run.footers == [Frame(x: 6, y: 173, width: 106, height: 30)])
        // y = 173 + 30 + 7 = 210
        #expect(run.contentHeight == 210)
    }

    @Test("an empty section with a header and a footer keeps its insets")
    func emptySectionWithDecorations() throws {
        // Given the decorated layout and an empty section
        let layout = try decoratedLayout()

        // When laid out
        let run = runScalar(layout, [[]])

        // Then header at y 5; y = 52 + 10 = 62 with no images; end 62 + 10 = 72; footer at 73; y = 110
        #expect(run.headers == [Frame(x: 2, y: 5, width: 114, height: 44)])
        #expect(run.sectionEnds == [72])
        #expect(run.footers == [Frame(x: 6, y: 73, width: 106, height: 30)])
        #expect(run.contentHeight == 110)
    }

    @Test("an empty section without decorations is its two insets tall")
    func emptySectionPlain() throws {
        // Given the phone layout (no header, no footer)
        let layout = try phoneLayout()

        // When an empty section is laid out
        let run = runScalar(layout, [[]])

        // Then y = 0 + 10 (top) + 10 (bottom) = 20, and there is no header or footer
        #expect(run.headers == [nil])
        #expect(run.footers == [nil])
        #expect(run.sectionEnds == [20])
        #expect(run.contentHeight == 20)
    }

    @Test("sections stack: each starts where the previous one's footer ended")
    func severalSections() throws {
        // Given the decorated layout and two one-image sections
        let layout = try decoratedLayout()
        let square = LayoutItem(width: 100, height: 100)

        // When laid out
        let run = runScalar(layout, [[square], [], [square]])

        // Then section 0 ends at y 210 (see headerAndFooter); section 1 (empty) starts there:
        // header 215, end 210 + 72 = 282, footer 283, y = 320; section 2: header 325, image 320 + 62 = 382
        #expect(run.headers.map { $0?.y } == [5, 215, 325])
        #expect(run.sectionEnds == [172, 282, 492])
        #expect(run.frames.map(\.y) == [62, 382])
        #expect(run.footers.map { $0?.y } == [173, 283, 493])
        // y = 493 + 30 + 7 = 530
        #expect(run.contentHeight == 530)
    }

    @Test("headerFrame(sectionStartY:) is the header openSection places")
    func headerFrameMatchesOpenSection() throws {
        // Given the decorated layout and a state at y = 100
        let layout = try decoratedLayout()
        var state = layout.initialState
        state.y = 100

        // When a section is opened there
        let header = layout.openSection(&state)

        // Then the header is (2, 105, 114, 44), the same as headerFrame(sectionStartY: 100)
        #expect(header == Frame(x: 2, y: 105, width: 114, height: 44))
        #expect(layout.headerFrame(sectionStartY: 100) == header)
        #expect(state.sectionStartY == 100)
        #expect(state.columnBottoms == [162])
        #expect(try phoneLayout().headerFrame(sectionStartY: 100) == nil)
    }

    @Test("minimumContentHeight is a floor for contentHeight")
    func minimumContentHeight() throws {
        // Given a 500-point minimum
        let layout = try decoratedLayout(minimumContentHeight: 500)

        // When a 210-point feed is laid out (see headerAndFooter)
        let run = runScalar(layout, [[LayoutItem(width: 100, height: 100)]])

        // Then contentHeight = max(210, 500)
        #expect(run.contentHeight == 500)
        // and an empty feed (y = 0) is also 500 tall
        #expect(runScalar(layout, []).contentHeight == 500)
    }

    @Test("an empty feed has content height 0")
    func emptyFeed() throws {
        let layout = try phoneLayout()
        #expect(runScalar(layout, []).contentHeight == 0)
        #expect(layout.layout([]).contentHeight == 0)
    }

    @Test("a pinned header sticks under the pin offset and is pushed up by its section's end")
    func pinnedHeader() throws {
        // Given a 44-point header whose natural frame is at y 0 and whose section ends at 300
        let layout = try phoneLayout(headerHeight: 44)
        let natural = Frame(x: 0, y: 0, width: 320, height: 44)

        // When the viewport is above, inside and past the section (pin offset 64)
        let above = layout.pinnedHeader(natural: natural, sectionEnd: 300, viewportY: -100, pinOffset: 64)
        let inside = layout.pinnedHeader(natural: natural, sectionEnd: 300, viewportY: 100, pinOffset: 64)
        let past = layout.pinnedHeader(natural: natural, sectionEnd: 300, viewportY: 280, pinOffset: 64)

        // Then: max(-36, 0) = 0, not pinned; min(max(164, 0), 256) = 164, pinned; min(344, 256) = 256, pinned
        #expect(above == PinnedHeader(frame: natural, isPinned: false))
        #expect(inside == PinnedHeader(frame: Frame(x: 0, y: 164, width: 320, height: 44), isPinned: true))
        #expect(past == PinnedHeader(frame: Frame(x: 0, y: 256, width: 320, height: 44), isPinned: true))
    }
}
