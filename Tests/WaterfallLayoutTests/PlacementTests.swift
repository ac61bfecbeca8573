import Testing
import WaterfallLayout

/// Hand-worked examples of DESIGN section 2, one rule each. Unless said otherwise the layout is
/// `phoneLayout()`: 2 columns, width 320, contentWidth 300, itemWidth 145, columns at x = 10
/// and x = 10 + 1 × (145 + 10) = 165.
@Suite("Placement rules")
struct PlacementTests {
    @Test("shortest order: the lowest column wins, the lowest index on a tie")
    func shortestWithTie() throws {
        // Given the phone layout and four images
        let layout = try phoneLayout()
        let items = [
            LayoutItem(width: 100, height: 100),  // grid(145 × 100 / 100) = 145
            LayoutItem(width: 200, height: 100),  // grid(145 × 100 / 200) = grid(72.5) = 72
            LayoutItem(width: 100, height: 300),  // grid(145 × 300 / 100) = 435
            LayoutItem(width: 145, height: 10),  // grid(145 × 10 / 145) = 10
        ]

        // When they are placed in one section
        let run = runScalar(layout, [items])

        // Then: both columns start at y = 10, a tie, so image 0 goes left: (10, 10, 145, 145), bottoms [165, 10]
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 145, height: 145))
        // image 1 goes right (10 < 165): (165, 10, 145, 72), bottoms [165, 92]
        #expect(run.frames[1] == Frame(x: 165, y: 10, width: 145, height: 72))
        // image 2 goes right again (92 < 165): (165, 92, 145, 435), bottoms [165, 537]
        #expect(run.frames[2] == Frame(x: 165, y: 92, width: 145, height: 435))
        // image 3 goes left (165 < 537): (10, 165, 145, 10), bottoms [185, 537]
        #expect(run.frames[3] == Frame(x: 10, y: 165, width: 145, height: 10))
        // section end: max(185, 537) - 10 = 527, + sectionInset.bottom 10 = 537
        #expect(run.sectionEnds == [537])
        #expect(run.contentHeight == 537)
    }

    @Test("a tie after images: equal bottoms send the image to the lower index")
    func laterTie() throws {
        // Given two images of the same height, then a third
        let layout = try phoneLayout()
        let square = LayoutItem(width: 100, height: 100)  // 145 tall

        // When placed
        let run = runScalar(layout, [[square, square, square]])

        // Then bottoms are [165, 165] after two, and the third goes to column 0
        #expect(run.frames.map(\.x) == [10, 165, 10])
        #expect(run.frames[2].y == 165)
    }

    @Test("left-to-right is a round robin that ignores heights")
    func leftToRight() throws {
        // Given 3 columns, width 340: contentWidth 320, itemWidth grid((320 - 20) / 3) = 100, x = 10, 120, 230
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 3, width: 340, order: .leftToRight))
        let tall = LayoutItem(width: 100, height: 300)  // 300 tall
        let square = LayoutItem(width: 100, height: 100)  // 100 tall

        // When a tall image and four squares are placed
        let run = runScalar(layout, [[tall, square, square, square, square]])

        // Then columns go 0, 1, 2, 0, 1: image 3 sits under the tall one at y = 10 + 300 + 10 = 320,
        // although column 1 (bottom 120) is shorter
        #expect(run.frames.map(\.x) == [10, 120, 230, 10, 120])
        #expect(run.frames.map(\.y) == [10, 10, 10, 320, 120])
    }

    @Test("right-to-left is the mirrored round robin")
    func rightToLeft() throws {
        // Given the same 3 columns in right-to-left order
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 3, width: 340, order: .rightToLeft))
        let square = LayoutItem(width: 100, height: 100)

        // When four squares are placed
        let run = runScalar(layout, [Array(repeating: square, count: 4)])

        // Then columns go 2, 1, 0, 2 (columns - 1 - k % columns)
        #expect(run.frames.map(\.x) == [230, 120, 10, 230])
        #expect(run.frames.map(\.y) == [10, 10, 10, 120])
    }

    @Test("a full-span banner goes under the lowest column, across the content width")
    func fullSpanBanner() throws {
        // Given the phone layout in left-to-right order
        let layout = try phoneLayout(order: .leftToRight)
        let items = [
            LayoutItem(width: 100, height: 100),  // column 0: (10, 10, 145, 145), bottom 165
            LayoutItem(width: 100, height: 200),  // column 1: (165, 10, 145, 290), bottom 310
            LayoutItem(width: 300, height: 100, isFullSpan: true),  // grid(300 × 100 / 300) = 100
            LayoutItem(width: 100, height: 100),  // k = 2 (the banner does not count): column 0
        ]

        // When placed
        let run = runScalar(layout, [items])

        // Then the banner's top is max(165, 310) = 310: (10, 310, 300, 100); both bottoms become 420
        #expect(run.frames[2] == Frame(x: 10, y: 310, width: 300, height: 100))
        // and the next image starts a new row in column 2 % 2 = 0 at y = 420
        #expect(run.frames[3] == Frame(x: 10, y: 420, width: 145, height: 145))
    }

    @Test("captionHeight is added under every image, banners included")
    func caption() throws {
        // Given a 20-point caption strip
        let layout = try phoneLayout(captionHeight: 20)
        let items = [
            LayoutItem(width: 100, height: 100),  // 145 + 20 = 165
            LayoutItem(width: 300, height: 100, isFullSpan: true),  // 100 + 20 = 120
        ]

        // When placed
        let run = runScalar(layout, [items])

        // Then heights include the caption, and the banner starts at max(10 + 165 + 10, 10) = 185
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 145, height: 165))
        #expect(run.frames[1] == Frame(x: 10, y: 185, width: 300, height: 120))
        // end: 185 + 120 + 10 - 10 = 305, + 10 = 315
        #expect(run.contentHeight == 315)
    }

    @Test("item heights follow grid(itemWidth × h / w) at scale 2")
    func scaleTwoHeights() throws {
        // Given a phone layout at scale 2 (itemWidth still 145)
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 2, width: 320, scale: 2))

        // When a 200 × 100 image is placed: 145 × 100 / 200 = 72.5, × 2 = 145, floor 145, / 2 = 72.5
        // and a 300 × 100 one: 48.333…, × 2 = 96.67, floor 96, / 2 = 48
        let run = runScalar(layout, [[LayoutItem(width: 200, height: 100), LayoutItem(width: 300, height: 100)]])

        // Then
        #expect(run.frames.map(\.height) == [72.5, 48])
    }

    @Test("one column stacks everything")
    func oneColumn() throws {
        // Given one column, width 120: contentWidth 100, itemWidth 100
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 1, width: 120))
        let items = [LayoutItem(width: 100, height: 50), LayoutItem(width: 50, height: 100)]

        // When placed
        let run = runScalar(layout, [items])

        // Then (10, 10, 100, 50) and (10, 10 + 50 + 10 = 70, 100, 200); end 270 - 10 + 10 = 280
        #expect(
            run.frames == [Frame(x: 10, y: 10, width: 100, height: 50), Frame(x: 10, y: 70, width: 100, height: 200)])
        #expect(run.contentHeight == 280)
    }

    @Test("a panorama of 1,000,000 × 1 pixels is 0 points tall; a 1 × 1,000,000 needle is very tall")
    func extremeImages() throws {
        // Given the phone layout
        let layout = try phoneLayout()
        let items = [
            LayoutItem(width: 1_000_000, height: 1),  // grid(145 × 1 / 1,000,000) = grid(0.000145) = 0
            LayoutItem(width: 1, height: 1_000_000),  // grid(145 × 1,000,000 / 1) = 145,000,000
            LayoutItem(width: 1_000_000, height: 1),  // column 0 again: bottom 10 + 0 + 10 = 20
        ]

        // When placed
        let run = runScalar(layout, [items])

        // Then the panorama is a 0-height frame and the needle fills column 1
        #expect(run.frames[0] == Frame(x: 10, y: 10, width: 145, height: 0))
        #expect(run.frames[1] == Frame(x: 165, y: 10, width: 145, height: 145_000_000))
        #expect(run.frames[2] == Frame(x: 10, y: 20, width: 145, height: 0))
        // end: max(30, 145,000,020) - 10 + 10
        #expect(run.contentHeight == 145_000_020)
    }

    @Test("the bulk path gives the same frames and state as one-by-one placement")
    func bulkMatchesScalarExample() throws {
        // Given the shortest-order example above
        let layout = try phoneLayout()
        let items = [
            LayoutItem(width: 100, height: 100), LayoutItem(width: 200, height: 100),
            LayoutItem(width: 100, height: 300), LayoutItem(width: 145, height: 10),
            LayoutItem(width: 300, height: 100, isFullSpan: true),
        ]
        var scalarState = layout.initialState
        _ = layout.openSection(&scalarState)
        let scalar = items.map { layout.place($0, &scalarState) }

        // When the same items go through the bulk path
        var bulkState = layout.initialState
        _ = layout.openSection(&bulkState)
        var frames = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
        items.withUnsafeBufferPointer { input in
            frames.withUnsafeMutableBufferPointer { output in layout.place(input, into: output, &bulkState) }
        }

        // Then frames and states are identical
        #expect(frames == scalar)
        #expect(bulkState == scalarState)
        #expect(bulkState.placedInSection == 4)
        #expect(bulkState.imagesInSection == 5)
    }
}
