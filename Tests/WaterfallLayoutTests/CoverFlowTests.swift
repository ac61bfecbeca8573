import Testing
import WaterfallLayout
import WaterfallTestSupport

@Suite("Cover flow")
struct CoverFlowTests {
    /// itemHeight 200, spacing 10, insets 10: images 200 tall, in a row starting at x = 10.
    func coverFlow(factor: Double = 0.003, scale: Int = 1) throws -> CoverFlowLayout {
        try CoverFlowLayout(CoverFlowConfiguration(itemHeight: 200, factor: factor, scale: scale))
    }

    @Test("frames sit in one row, grid(itemHeight × w / h) wide, spacing apart")
    func frames() throws {
        // Given three images
        let layout = try coverFlow()
        let items = [
            LayoutItem(width: 300, height: 200),  // grid(200 × 300 / 200) = 300
            LayoutItem(width: 100, height: 300),  // grid(66.67) = 66
            LayoutItem(width: 400, height: 400),  // 200
        ]

        // When laid out
        let frames = layout.frames(items)

        // Then x = 10, 10 + 300 + 10 = 320, 320 + 66 + 10 = 396; y = sectionInset.top = 10
        #expect(
            frames == [
                Frame(x: 10, y: 10, width: 300, height: 200), Frame(x: 320, y: 10, width: 66, height: 200),
                Frame(x: 396, y: 10, width: 200, height: 200),
            ])
        // contentWidth = 596 + 10; with no frames, the two insets
        #expect(layout.contentWidth(frames: frames) == 606)
        #expect(layout.contentWidth(frames: []) == 20)
        // nextFrame streams the same frames
        #expect(layout.nextFrame(after: frames[1], item: items[2]) == frames[2])
        #expect(layout.nextFrame(after: nil, item: items[0]) == frames[0])
    }

    @Test("at scale 2 widths snap to half points")
    func scaleTwo() throws {
        // 200 × 100 / 300 = 66.67 → × 2 = 133.3 → 133 → 66.5
        #expect(try coverFlow(scale: 2).frames([LayoutItem(width: 100, height: 300)])[0].width == 66.5)
    }

    @Test("scale is 1 / (1 + |centre distance| × factor)")
    func scaleFormula() throws {
        // Given a frame centred at 10 + 300 / 2 = 160 and a 320-wide viewport at x = 0 (centre 160)
        let layout = try coverFlow()
        let frame = Frame(x: 10, y: 10, width: 300, height: 200)

        // Then centred: 1; 100 points off: 1 / (1 + 100 × 0.003) = 1 / 1.3
        #expect(layout.scale(of: frame, x: 0, viewportWidth: 320) == 1)
        #expect(layout.scale(of: frame, x: 100, viewportWidth: 320) == 1 / 1.3)
        #expect(layout.scale(of: frame, x: -100, viewportWidth: 320) == 1 / 1.3)
        #expect(try coverFlow(factor: 0).scale(of: frame, x: 5_000, viewportWidth: 320) == 1)
    }

    @Test("snapping centres the nearest image, the lower index on a tie")
    func snapHandWorked() throws {
        // Given centres 160, 353, 496 (see frames())
        let layout = try coverFlow()
        let frames = layout.frames([
            LayoutItem(width: 300, height: 200), LayoutItem(width: 100, height: 300),
            LayoutItem(width: 400, height: 400),
        ])

        // Then a 100-wide viewport proposed at 250 (centre 300) snaps to centre 353: offset 303
        #expect(layout.snapOffset(frames, proposed: 250, viewportWidth: 100) == 303)
        // exactly between 160 and 353 (256.5) the lower index wins: offset 160 - 50 = 110
        #expect(layout.snapOffset(frames, proposed: 206.5, viewportWidth: 100) == 110)
        // far left and far right clamp to the first and last image (not to the content)
        #expect(layout.snapOffset(frames, proposed: -1_000, viewportWidth: 100) == 110)
        #expect(layout.snapOffset(frames, proposed: 9_000, viewportWidth: 100) == 446)
        // no frames: the proposal itself
        #expect(layout.snapOffset([], proposed: 42, viewportWidth: 100) == 42)
    }

    @Test("visible and snap equal brute force", arguments: Array(UInt64(1)...100))
    func equalsBruteForce(seed: UInt64) throws {
        // Given a random cover flow
        var generator = SeededGenerator(seed: seed)
        let layout = try CoverFlowLayout(
            CoverFlowConfiguration(
                itemHeight: generator.length(upTo: 400) + 1, spacing: generator.length(upTo: 20),
                sectionInset: EdgeInsets(all: generator.length(upTo: 20)),
                scale: Int.random(in: 1...3, using: &generator)))
        let frames = layout.frames((0..<Int.random(in: 0...50, using: &generator)).map { _ in generator.item() })
        let contentWidth = layout.contentWidth(frames: frames)

        for _ in 0..<20 {
            // When a random viewport is queried
            let x = Double.random(in: -200...(contentWidth + 200), using: &generator)
            let width = Double.random(in: 0...600, using: &generator)

            // Then visible is every frame meeting [x, x + width) horizontally
            let visible = frames.indices.filter { frames[$0].minX < x + width && frames[$0].maxX > x }
            #expect(layout.visible(frames, x: x, viewportWidth: width) == visible, "seed \(seed)")

            // and snap centres the first frame of least distance
            let target = x + width / 2
            let nearest = frames.indices.min { abs(frames[$0].midX - target) < abs(frames[$1].midX - target) }
            let expected = nearest.map { frames[$0].midX - width / 2 } ?? x
            #expect(layout.snapOffset(frames, proposed: x, viewportWidth: width) == expected, "seed \(seed)")
            #expect(layout.nearestIndex(frames, x: x, viewportWidth: width) == nearest, "seed \(seed)")
        }
    }

    @Test(
        "validation names the field, the range and the value",
        arguments: [
            (
                CoverFlowConfiguration(itemHeight: 0), "itemHeight",
                "itemHeight must be greater than 0 and at most 1000000 points, got 0."
            ),
            (
                CoverFlowConfiguration(itemHeight: 100, spacing: -1), "spacing",
                "spacing must be a number from 0 to 1000000 points, got -1."
            ),
            (
                CoverFlowConfiguration(itemHeight: 100, factor: .nan), "factor",
                "factor must be a finite number of 0 or more, got NaN."
            ),
            (CoverFlowConfiguration(itemHeight: 100, scale: 0), "scale", "scale must be 1, 2 or 3, got 0."),
        ])
    func validation(configuration: CoverFlowConfiguration, field: String, message: String) {
        #expect(throws: LayoutConfigurationError(field: field, message: message)) { try CoverFlowLayout(configuration) }
    }
}
