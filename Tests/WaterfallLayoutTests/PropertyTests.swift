import Testing
import WaterfallLayout
import WaterfallTestSupport

/// Invariants over random configurations and feeds. Every case is reproducible from its seed.
@Suite("Layout properties")
struct PropertyTests {
    static let seeds: [UInt64] = Array(1...300)

    @Test("no two images of a section overlap", arguments: seeds)
    func noOverlap(seed: UInt64) throws {
        // Given a random configuration and feed
        var generator = SeededGenerator(seed: seed)
        let layout = try WaterfallLayout(generator.configuration())
        let feed = generator.feed()

        // When laid out
        let run = runScalar(layout, feed)

        // Then within each section no two frames share any area (beyond rounding, 1e-9 points)
        var start = 0
        for items in feed {
            let frames = run.frames[start..<start + items.count]
            for (i, a) in zip(frames.indices, frames) {
                for b in frames[(i + 1)...] {
                    let overlapX = min(a.maxX, b.maxX) - max(a.minX, b.minX)
                    let overlapY = min(a.maxY, b.maxY) - max(a.minY, b.minY)
                    #expect(overlapX <= 1e-9 || overlapY <= 1e-9, "seed \(seed): \(a) overlaps \(b)")
                }
            }
            start += items.count
        }
    }

    @Test("every frame lies inside the content", arguments: seeds)
    func insideContent(seed: UInt64) throws {
        // Given a random configuration and feed
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.configuration()
        let layout = try WaterfallLayout(configuration)

        // When laid out
        let run = runScalar(layout, generator.feed())

        // Then images, headers and footers are within [0, width] × [0, contentHeight]
        let tolerance = 1e-9 * max(1, run.contentHeight)
        let all = run.frames + run.headers.compactMap { $0 } + run.footers.compactMap { $0 }
        for frame in all {
            #expect(frame.minX >= 0 && frame.maxX <= configuration.width + 1e-9, "seed \(seed): \(frame)")
            #expect(frame.minY >= 0 && frame.maxY <= run.contentHeight + tolerance, "seed \(seed): \(frame)")
        }
    }

    @Test("resuming from a state saved after any image gives the same layout", arguments: seeds)
    func resumeFromSerializedState(seed: UInt64) throws {
        // Given a random feed laid out in one go, saving the state after every image
        var generator = SeededGenerator(seed: seed)
        let layout = try WaterfallLayout(generator.configuration())
        let feed = generator.feed()
        let full = runScalar(layout, feed)
        var saved: [(section: Int, item: Int, bytes: [UInt8], frameIndex: Int, headers: Int)] = []
        var state = layout.initialState
        var placed = 0
        for (section, items) in feed.enumerated() {
            _ = layout.openSection(&state)
            for (item, image) in items.enumerated() {
                _ = layout.place(image, &state)
                placed += 1
                saved.append((section, item, state.serialized(), placed, section + 1))
            }
            _ = layout.closeSection(&state)
        }

        // When the layout resumes from a few of those states, decoded from bytes
        for checkpoint in saved.shuffled(using: &generator).prefix(5) {
            let resumed = resumeScalar(
                layout, feed, section: checkpoint.section, after: checkpoint.item,
                state: try LayoutState(serialized: checkpoint.bytes))

            // Then frames, headers, footers and contentHeight equal the uninterrupted run's
            #expect(resumed.frames == Array(full.frames[checkpoint.frameIndex...]), "seed \(seed)")
            #expect(resumed.headers == Array(full.headers[checkpoint.headers...]), "seed \(seed)")
            #expect(resumed.footers == Array(full.footers[checkpoint.section...]), "seed \(seed)")
            #expect(resumed.sectionEnds == Array(full.sectionEnds[checkpoint.section...]), "seed \(seed)")
            #expect(resumed.contentHeight == full.contentHeight, "seed \(seed)")
        }
    }

    @Test("the bulk path equals the scalar path bit for bit, in any chunking", arguments: seeds)
    func bulkEqualsScalar(seed: UInt64) throws {
        // Given a random configuration and feed
        var generator = SeededGenerator(seed: seed)
        let layout = try WaterfallLayout(generator.configuration())
        let feed = generator.feed(maximumItems: 80)
        let scalar = runScalar(layout, feed)

        // When the whole feed goes through layout(_:) (bulk, one call per section)
        let feedLayout = layout.layout(feed)

        // Then the frames, sections and content height are identical
        #expect(feedLayout.itemFrames.count == scalar.frames.count)
        #expect(zip(feedLayout.itemFrames, scalar.frames).allSatisfy(sameBits), "seed \(seed)")
        #expect(feedLayout.sections.map(\.header) == scalar.headers)
        #expect(feedLayout.sections.map(\.footer) == scalar.footers)
        #expect(feedLayout.sections.map(\.sectionEnd) == scalar.sectionEnds)
        #expect(feedLayout.contentHeight.bitPattern == scalar.contentHeight.bitPattern)

        // And when each section is fed to the bulk path in random chunks, frames and states match
        var scalarState = layout.initialState
        var bulkState = layout.initialState
        for items in feed {
            _ = layout.openSection(&scalarState)
            _ = layout.openSection(&bulkState)
            var start = 0
            while start < items.count {
                let end = min(items.count, start + Int.random(in: 1...20, using: &generator))
                let expected = items[start..<end].map { layout.place($0, &scalarState) }
                var frames = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: end - start)
                items[start..<end].withUnsafeBufferPointer { input in
                    frames.withUnsafeMutableBufferPointer { layout.place(input, into: $0, &bulkState) }
                }
                #expect(zip(frames, expected).allSatisfy(sameBits), "seed \(seed)")
                #expect(bulkState == scalarState, "seed \(seed)")
                start = end
            }
            #expect(layout.closeSection(&bulkState) == layout.closeSection(&scalarState))
        }
    }

    @Test("left-to-right puts ordinary image k of a section in column k % columns", arguments: seeds.prefix(100))
    func roundRobin(seed: UInt64) throws {
        // Given a random configuration in each round-robin order
        var generator = SeededGenerator(seed: seed)
        for order in [PlacementOrder.leftToRight, .rightToLeft] {
            var configuration = generator.configuration()
            configuration.order = order
            let layout = try WaterfallLayout(configuration)
            let feed = generator.feed()

            // When laid out
            let run = runScalar(layout, feed)

            // Then the k-th ordinary image of each section is in the expected column
            let step = configuration.itemWidth + configuration.columnSpacing
            var index = 0
            for items in feed {
                var k = 0
                for item in items {
                    defer { index += 1 }
                    guard !item.isFullSpan else { continue }
                    let column =
                        order == .leftToRight
                        ? k % configuration.columns : configuration.columns - 1 - k % configuration.columns
                    #expect(
                        run.frames[index].x == configuration.sectionInset.left + Double(column) * step, "seed \(seed)")
                    k += 1
                }
            }
        }
    }

    @Test(
        "long sections take the integer fast path and its fallbacks exactly", arguments: [1, 2, 3, 4, 5, 7, 8, 9, 13])
    func longSections(columns: Int) throws {
        // Given long sections (several runs of 1,024) with banners, in every scale
        var generator = SeededGenerator(seed: UInt64(columns))
        for scale in 1...3 {
            for rowSpacing in [10, 0.5, 0.1] {
                let layout = try WaterfallLayout(
                    LayoutConfiguration(
                        columns: columns, width: 1000, rowSpacing: rowSpacing, captionHeight: 3, scale: scale))
                let feed = [(0..<3_000).map { _ in generator.item() }, (0..<1_500).map { _ in generator.item() }]

                // When laid out by both paths
                let bulk = layout.layout(feed)
                let scalar = runScalar(layout, feed)

                // Then they agree bit for bit
                #expect(zip(bulk.itemFrames, scalar.frames).allSatisfy(sameBits), "columns \(columns) scale \(scale)")
                #expect(bulk.contentHeight == scalar.contentHeight)
            }
        }
    }

    @Test("content beyond 2^52 pixels leaves the integer path without changing a bit")
    func beyondExactIntegers() throws {
        // Given needles of 1 × 1,000,000 pixels in a 1,000,000-point column: 10^12 points each,
        // so after about 4,504 of them positions pass 2^52 and Double sums start rounding
        let layout = try WaterfallLayout(
            LayoutConfiguration(columns: 2, width: 1_000_000, columnSpacing: 0, sectionInset: .zero, scale: 2))
        let feed = [Array(repeating: LayoutItem(width: 1, height: 1_000_000), count: 20_000)]

        // When laid out by both paths
        let bulk = layout.layout(feed)
        let scalar = runScalar(layout, feed)

        // Then they agree bit for bit
        #expect(zip(bulk.itemFrames, scalar.frames).allSatisfy(sameBits))
        #expect(bulk.contentHeight == scalar.contentHeight)
        #expect(bulk.contentHeight > 4_503_599_627_370_496)
    }

    @Test("a state resumed with fractional bottoms uses the exact slow path")
    func fractionalResumedState() throws {
        // Given a scale-1 layout and a state whose bottoms are not whole pixels
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 3, width: 600))
        let items = (0..<50).map { LayoutItem(width: 100 + Int32($0), height: 77) }
        var scalarState = layout.initialState
        _ = layout.openSection(&scalarState)
        scalarState.columnBottoms = [10.25, 10.1, 10.3]
        var bulkState = scalarState

        // When both paths continue from it
        let expected = items.map { layout.place($0, &scalarState) }
        var frames = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
        items.withUnsafeBufferPointer { input in
            frames.withUnsafeMutableBufferPointer { layout.place(input, into: $0, &bulkState) }
        }

        // Then they agree
        #expect(zip(frames, expected).allSatisfy(sameBits))
        #expect(bulkState == scalarState)
    }

    @Test("sizes outside 1...1,000,000 never trap, and both paths still agree bit for bit", arguments: [1, 2, 3])
    func invalidSizes(scale: Int) throws {
        // Given images with zero, negative and huge sizes among normal ones (outside the contract)
        let layout = try WaterfallLayout(LayoutConfiguration(columns: 3, width: 600, scale: scale))
        let odd: [LayoutItem] = [
            LayoutItem(width: 0, height: 100), LayoutItem(width: 0, height: 0), LayoutItem(width: -5, height: 100),
            LayoutItem(width: 100, height: -5), LayoutItem(width: 1, height: .max), LayoutItem(width: 100, height: 100),
            LayoutItem(width: 0, height: 10, isFullSpan: true),
        ]
        let items = (0..<3_000).map { odd[$0 % odd.count] }

        // When placed by both paths
        var scalarState = layout.initialState
        _ = layout.openSection(&scalarState)
        let expected = items.map { layout.place($0, &scalarState) }
        var bulkState = layout.initialState
        _ = layout.openSection(&bulkState)
        var frames = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
        items.withUnsafeBufferPointer { input in
            frames.withUnsafeMutableBufferPointer { layout.place(input, into: $0, &bulkState) }
        }

        // Then the (meaningless) frames and states agree bit for bit
        #expect(zip(frames, expected).allSatisfy(sameBits))
        #expect(bulkState.serialized() == scalarState.serialized())
    }
}
