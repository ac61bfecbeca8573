import Testing
import WaterfallLayout

/// Hand-worked examples of DESIGN section 8, one rule each. Unless said otherwise the layout is
/// `bookLayout()`: width 420, sectionInset 10, so W = 400 and rows run from x = 10 to x = 410;
/// T = 100, tol = 0.25, s = 10, r = 10; minAR = 400 / 100 × 0.75 = 3, maxAR = 4 × 1.25 = 5.
@Suite("Justified rows: rules")
struct JustifiedRuleTests {
    @Test("a row closes as soon as its aspect ratios reach minAR, and spans exactly W")
    func toleranceClose() throws {
        // Given 4:3, 4:3, 1:1: sums 1.33 < 3 (gather), 2.67 < 3 (gather), 3.67 in [3, 5] (close)
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(4, 3), image(4, 3), image(1, 1)]])

        // Then close: available = 400 - 2 × 10 = 380; H = grid(380 / (11/3)) = grid(103.6) = 103
        // widths grid(380 × (4/3) / (11/3)) = grid(138.2) = 138 twice; x = 10, 10 + 148 = 158,
        // 158 + 148 = 306, and the last takes the rest: 410 - 306 = 104
        #expect(
            run.frames == [
                Frame(x: 10, y: 10, width: 138, height: 103),
                Frame(x: 158, y: 10, width: 138, height: 103),
                Frame(x: 306, y: 10, width: 104, height: 103),
            ])
        // rowTop = 10 + 103 + 10 = 123; section bottom 123 - 10 = 113, + 10 = 123
        #expect(run.sectionEnds == [123])
        #expect(run.contentHeight == 123)
    }

    @Test("too full and worse with the image: the pending row closes without it")
    func worseWithIt() throws {
        // Given 2.9 : 1 (pending, 2.9 < 3), then 2.5 : 1: A = 5.4 > 5, and
        // |5.4 - (400 - 10) / 100| = 1.5 > |2.9 - 400 / 100| = 1.1, so the image is worse in
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(290, 100), image(250, 100), image(1, 1)]])

        // Then the pending row [2.9] closes alone: H = grid(400 / 2.9) = grid(137.9) = 137,
        // one frame that takes the whole row: (10, 10, 400, 137); rowTop = 10 + 137 + 10 = 157
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 400, height: 137))
        // 2.5 < minAR, so it starts the next row; with 1:1, A = 3.5 closes it: available 390,
        // H = grid(390 / 3.5) = grid(111.4) = 111, widths grid(390 × 2.5 / 3.5) = grid(278.6) = 278
        // and 410 - (10 + 278 + 10) = 112
        #expect(run.frames[1] == Frame(x: 10, y: 157, width: 278, height: 111))
        #expect(run.frames[2] == Frame(x: 298, y: 157, width: 112, height: 111))
        // rowTop = 157 + 111 + 10 = 278; end 278 - 10 + 10 = 278
        #expect(run.sectionEnds == [278])
    }

    @Test("too full but closer to the ideal with the image: the candidate row closes")
    func tooFullButBetter() throws {
        // Given 2.5 : 1 (pending), then 2.8 : 1: A = 5.3 > 5, but
        // |5.3 - 3.9| = 1.4 < |2.5 - 4| = 1.5, so the row closes with the image
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(250, 100), image(280, 100)]])

        // Then H = grid(390 / 5.3) = grid(73.6) = 73; widths grid(390 × 2.5 / 5.3) = grid(183.96) = 183
        // and 410 - (10 + 183 + 10) = 207
        #expect(
            run.frames == [
                Frame(x: 10, y: 10, width: 183, height: 73),
                Frame(x: 203, y: 10, width: 207, height: 73),
            ])
    }

    @Test("when the pending row closes, an image that fills a row alone closes alone too")
    func worseThenAlone() throws {
        // Given 2 : 1 (pending), then 4 : 1: A = 6 > 5, |6 - 3.9| = 2.1 > |2 - 4| = 2 (worse)
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(2, 1), image(4, 1)]])

        // Then [2:1] closes: H = grid(clamp(400 / 2, 50, 200)) = 200: (10, 10, 400, 200); rowTop 220
        // and 4 ≥ minAR 3, so [4:1] closes alone: H = grid(400 / 4) = 100: (10, 220, 400, 100)
        #expect(
            run.frames == [
                Frame(x: 10, y: 10, width: 400, height: 200),
                Frame(x: 10, y: 220, width: 400, height: 100),
            ])
        // The state after the image is a row start: nothing pending
        var state = layout.initialState
        _ = layout.openSection(&state)
        layout.append(image(2, 1), &state) { _, _ in }
        #expect(state.pendingCount == 1)
        layout.append(image(4, 1), &state) { _, _ in }
        #expect(state.isAtRowStart)
        #expect(state.previousRowHeight == 100)
    }

    @Test("a panorama on an empty row is a row of its own")
    func panoramaAlone() throws {
        // Given a 6 : 1 panorama first: A = 6 > maxAR 5 with nothing pending
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(6, 1), image(4, 3), image(4, 3), image(1, 1)]])

        // Then close([panorama]): H = grid(clamp(400 / 6, 50, 200)) = grid(66.7) = 66, full width
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 400, height: 66))
        // and the next row starts at 10 + 66 + 10 = 86
        #expect(run.frames[1...].map(\.y) == [86, 86, 86])
    }

    @Test("the row height is clamped to 0.5 × T from below")
    func clampLow() throws {
        // Given a 10 : 1 panorama: 400 / 10 = 40 < 0.5 × 100
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(10, 1)]])

        // Then H = grid(50) = 50, and the width is still W (the image is drawn cropped)
        #expect(run.frames == [Frame(x: 10, y: 10, width: 400, height: 50)])
        #expect(run.contentHeight == 10 + 50 + 10)
    }

    @Test("the row height is clamped to 2 × T from above")
    func clampHigh() throws {
        // Given tolerance 0.75: minAR = 4 × 0.25 = 1, so a square closes a row alone,
        // and 400 / 1 = 400 > 2 × 100
        let layout = try bookLayout(rowHeightTolerance: 0.75)
        let run = runBoth(layout, [[image(1, 1)]])

        // Then H = 200, width W
        #expect(run.frames == [Frame(x: 10, y: 10, width: 400, height: 200)])
    }

    /// A full row (H = 103, see `toleranceClose`) then a widow of 1:1 and 3:2.
    let widowFeed = [[image(4, 3), image(4, 3), image(1, 1), image(1, 1), image(3, 2)]]

    @Test("a left widow keeps its aspect ratios at min(prevH, T), from the left edge")
    func widowLeft() throws {
        let run = runBoth(try bookLayout(lastRow: .left), widowFeed)

        // Then H = grid(min(103, 100)) = 100; widths grid(1 × 100) = 100, grid(1.5 × 100) = 150;
        // 100 + 150 + 10 = 260 ≤ 400; at rowTop 123, x = 10 and 10 + 110 = 120
        #expect(
            Array(run.frames[3...]) == [
                Frame(x: 10, y: 123, width: 100, height: 100),
                Frame(x: 120, y: 123, width: 150, height: 100),
            ])
        // rowTop = 123 + 100 + 10 = 233; end 233 - 10 + 10 = 233
        #expect(run.contentHeight == 233)
    }

    @Test("a centred widow starts grid((W - its width) / 2) after the left inset")
    func widowCenter() throws {
        let run = runBoth(try bookLayout(lastRow: .center), widowFeed)

        // Then as on the left, shifted by grid((400 - 260) / 2) = 70: x = 80 and 190
        #expect(
            Array(run.frames[3...]) == [
                Frame(x: 80, y: 123, width: 100, height: 100),
                Frame(x: 190, y: 123, width: 150, height: 100),
            ])
    }

    @Test("a justified widow is closed like any row")
    func widowJustify() throws {
        let run = runBoth(try bookLayout(lastRow: .justify), widowFeed)

        // Then close([1:1, 3:2]): available 390, H = grid(clamp(390 / 2.5, 50, 200)) = 156;
        // widths grid(390 × 1 / 2.5) = 156 and 410 - (10 + 156 + 10) = 234
        #expect(
            Array(run.frames[3...]) == [
                Frame(x: 10, y: 123, width: 156, height: 156),
                Frame(x: 176, y: 123, width: 234, height: 156),
            ])
        // rowTop = 123 + 156 + 10 = 289; end 289
        #expect(run.contentHeight == 289)
    }

    @Test("a widow after a short row takes that row's height")
    func widowAfterShortRow() throws {
        // Given the 73-point row of `tooFullButBetter`, then two squares (sum 2 < 3)
        let run = runBoth(try bookLayout(), [[image(250, 100), image(280, 100), image(1, 1), image(1, 1)]])

        // Then H = grid(min(73, 100)) = 73; squares 73 wide at x = 10 and 93, at rowTop 10 + 73 + 10 = 93
        #expect(
            Array(run.frames[2...]) == [
                Frame(x: 10, y: 93, width: 73, height: 73),
                Frame(x: 93, y: 93, width: 73, height: 73),
            ])
    }

    @Test(
        "a widow wider than W with its gaps is justified instead, whatever the style", arguments: LastRowStyle.allCases)
    func widowTooWide(style: LastRowStyle) throws {
        // Given spacing 60 and 1:1, 1:1, 9:10: sums 1, 2, 2.9, all < 3, so all three are pending
        // at the end; H = T = 100: widths 100 + 100 + 90 + 2 × 60 = 410 > 400
        let layout = try bookLayout(columnSpacing: 60, lastRow: style)
        let run = runBoth(layout, [[image(1, 1), image(1, 1), image(9, 10)]])

        // Then close(row): available 400 - 120 = 280, H = grid(280 / 2.9) = grid(96.6) = 96;
        // widths grid(280 / 2.9) = 96 twice; x = 10, 166, 322; the last 410 - 322 = 88
        #expect(
            run.frames == [
                Frame(x: 10, y: 10, width: 96, height: 96),
                Frame(x: 166, y: 10, width: 96, height: 96),
                Frame(x: 322, y: 10, width: 88, height: 96),
            ])
    }

    @Test("a banner closes the pending row as a last row, then resets prevH")
    func bannerMidRow() throws {
        // Given 4:3 and 1:1 pending (sum 2.33 < 3), a 2:1 banner, then 3:2 twice
        let layout = try bookLayout()
        let run = runBoth(layout, [[image(4, 3), image(1, 1), bannerImage(2, 1), image(3, 2), image(3, 2)]])

        // Then the pending row is a left widow at H = T = 100: widths grid(133.3) = 133 and 100
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 133, height: 100))
        #expect(run.frames[1] == Frame(x: 153, y: 10, width: 100, height: 100))
        // rowTop = 120; the banner: (10, 120, W = 400, grid(400 × 1 / 2) = 200); rowTop = 120 + 210 = 330
        #expect(run.frames[2] == Frame(x: 10, y: 120, width: 400, height: 200))
        // 1.5 + 1.5 = 3 = minAR closes: H = grid(390 / 3) = 130, widths 195 and 410 - 215 = 195
        #expect(run.frames[3] == Frame(x: 10, y: 330, width: 195, height: 130))
        #expect(run.frames[4] == Frame(x: 215, y: 330, width: 195, height: 130))
        // rowTop = 330 + 130 + 10 = 470; end 470 - 10 + 10 = 470
        #expect(run.contentHeight == 470)
    }

    @Test("a banner after a justified row forgets its height: the next widow is T tall")
    func bannerResetsPreviousHeight() throws {
        // Given the 73-point row, a banner, and one square
        let run = runBoth(try bookLayout(), [[image(250, 100), image(280, 100), bannerImage(4, 1), image(1, 1)]])

        // Then the banner sits at 10 + 73 + 10 = 93, grid(400 / 4) = 100 tall; rowTop = 203;
        // the square is a widow at grid(min(T, T)) = 100, not 73
        #expect(run.frames[2] == Frame(x: 10, y: 93, width: 400, height: 100))
        #expect(run.frames[3] == Frame(x: 10, y: 203, width: 100, height: 100))
    }

    @Test("captions are added under every image: rows, widows and banners")
    func captions() throws {
        // Given captionHeight 20: the row of `toleranceClose`, a 2:1 banner and a square widow
        let layout = try bookLayout(captionHeight: 20)
        let run = runBoth(layout, [[image(4, 3), image(4, 3), image(1, 1), bannerImage(2, 1), image(1, 1)]])

        // Then the row is 103 + 20 = 123 tall; rowTop = 10 + 103 + 20 + 10 = 143
        #expect(run.frames[0...2].map(\.height) == [123, 123, 123])
        // the banner is grid(200) + 20 = 220 tall at 143; rowTop = 143 + 230 = 373
        #expect(run.frames[3] == Frame(x: 10, y: 143, width: 400, height: 220))
        // the widow is T + 20 tall (prevH was reset by the banner)
        #expect(run.frames[4] == Frame(x: 10, y: 373, width: 100, height: 120))
        // rowTop = 373 + 120 + 10 = 503; end 503
        #expect(run.contentHeight == 503)
    }

    @Test("heights and widths snap to the pixel grid of scale 1, 2 and 3; the last width takes the rest")
    func scales() throws {
        // Given 3:2, 1:1, 1:1: sum 3.5, available 380; 380 / 3.5 = 108.57; 380 × 1.5 / 3.5 = 162.86
        let feed = [[image(3, 2), image(1, 1), image(1, 1)]]
        let one = runBoth(try bookLayout(scale: 1), feed).frames
        let two = runBoth(try bookLayout(scale: 2), feed).frames
        let three = runBoth(try bookLayout(scale: 3), feed).frames

        // Then scale 1: H 108, widths 162, 108, and 410 - (10 + 162 + 10 + 108 + 10) = 110
        #expect(
            one == [
                Frame(x: 10, y: 10, width: 162, height: 108), Frame(x: 182, y: 10, width: 108, height: 108),
                Frame(x: 300, y: 10, width: 110, height: 108),
            ])
        // scale 2: floor(217.1) / 2 = 108.5; floor(325.7) / 2 = 162.5; 108.5; last 410 - 301 = 109
        #expect(
            two == [
                Frame(x: 10, y: 10, width: 162.5, height: 108.5), Frame(x: 182.5, y: 10, width: 108.5, height: 108.5),
                Frame(x: 301, y: 10, width: 109, height: 108.5),
            ])
        // scale 3: floor(325.7) / 3 = 325 / 3; floor(488.6) / 3 = 488 / 3; last 410 - 301 = 109
        let h = 325.0 / 3
        let w0 = 488.0 / 3
        #expect(three.map(\.height) == [h, h, h])
        #expect(three.map(\.width)[0...1] == [w0, h])
        #expect(abs(three[1].x - (10 + w0 + 10)) < 1e-9)
        #expect(abs(three[2].x - 301) < 1e-9 && abs(three[2].maxX - 410) < 1e-9)
        #expect(abs(three[2].width - 109) < 1e-9)
    }

    @Test("a row never takes an image its gaps leave no width for")
    func spacingLimitsARow() throws {
        // Given W = 400, spacing 150 and needles of aspect 0.01 (sums stay far below minAR 3):
        // 400 - 2 × 150 = 100 > 0, but 400 - 3 × 150 < 0, so a row holds at most 3 images
        let layout = try bookLayout(columnSpacing: 150)
        let run = runBoth(layout, [Array(repeating: image(1, 100), count: 7)])

        // Then rows of 3, 3 and 1 images. A full row: available 400 - 2 × 150 = 100,
        // H = grid(clamp(100 / 0.03, 50, 200)) = 200; widths grid(100 × 0.01 / 0.03) = 33 twice,
        // x = 10, 10 + 33 + 150 = 193, 193 + 183 = 376, and the last 410 - 376 = 34
        #expect(
            run.frames[0...2] == [
                Frame(x: 10, y: 10, width: 33, height: 200), Frame(x: 193, y: 10, width: 33, height: 200),
                Frame(x: 376, y: 10, width: 34, height: 200),
            ])
        // rowTop = 10 + 200 + 10 = 220, then 430 for the widow: grid(min(200, 100)) = 100 tall,
        // grid(0.01 × 100) = 1 wide
        #expect(run.frames.map(\.y) == [10, 10, 10, 220, 220, 220, 430])
        #expect(run.frames[6] == Frame(x: 10, y: 430, width: 1, height: 100))
        #expect(run.frames.allSatisfy { $0.width >= 0 })
    }
}

/// Runs a hand example through the streaming path (the reference) and the bulk path, expects
/// them to agree bit for bit, and returns the streaming run.
func runBoth(_ layout: JustifiedLayout, _ sections: [[LayoutItem]]) -> StreamRun {
    let streaming = runStreaming(layout, sections)
    let bulk = runBulk(layout, sections)
    #expect(bulk.frames.count == streaming.frames.count)
    #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits), "the bulk path differs")
    #expect(bulk.contentHeight == streaming.contentHeight && bulk.sectionEnds == streaming.sectionEnds)
    return streaming
}
