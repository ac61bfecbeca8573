import Testing
import WaterfallLayout
import WaterfallTestSupport

/// Invariants of justified rows over random configurations and feeds (typical photos, or the
/// waterfall tests' odd sizes: needles, 1-pixel images, banners). Reproducible from the seed.
@Suite("Justified rows: properties")
struct JustifiedPropertyTests {
    static let seeds: [UInt64] = Array(1...300)

    /// A row as the frames show it: consecutive images of a section with the same top.
    struct Row {
        var frames: [Frame]
        var isBanner: Bool
        /// Followed by a banner or the section's end: placed by lastRowOf.
        var isLast: Bool
    }

    /// Splits each section's frames into rows and banners.
    static func rows(_ run: StreamRun, _ feed: [[LayoutItem]]) -> [[Row]] {
        var start = 0
        return feed.map { items in
            defer { start += items.count }
            var rows: [Row] = []
            for (offset, item) in items.enumerated() {
                let frame = run.frames[start + offset]
                if item.isFullSpan {
                    if !rows.isEmpty, !rows[rows.count - 1].isBanner { rows[rows.count - 1].isLast = true }
                    rows.append(Row(frames: [frame], isBanner: true, isLast: false))
                } else if let last = rows.last, !last.isBanner, last.frames[0].y == frame.y {
                    rows[rows.count - 1].frames.append(frame)
                } else {
                    rows.append(Row(frames: [frame], isBanner: false, isLast: false))
                }
            }
            if !rows.isEmpty, !rows[rows.count - 1].isBanner { rows[rows.count - 1].isLast = true }
            return rows
        }
    }

    @Test("no two frames overlap", arguments: seeds)
    func noOverlap(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let layout = try JustifiedLayout(generator.justifiedConfiguration())
        let feed = generator.justifiedFeed()
        let run = runStreaming(layout, feed)

        // Then no two images anywhere share any area (beyond rounding, 1e-9 points)
        let frames = run.frames
        for i in frames.indices {
            for j in (i + 1)..<frames.count {
                let a = frames[i]
                let b = frames[j]
                if b.minY >= a.maxY { continue }
                let overlapX = min(a.maxX, b.maxX) - max(a.minX, b.minX)
                let overlapY = min(a.maxY, b.maxY) - max(a.minY, b.minY)
                #expect(overlapX <= 1e-9 || overlapY <= 1e-9, "seed \(seed): \(a) overlaps \(b)")
            }
        }
    }

    @Test("every frame lies inside the content, no size is negative", arguments: seeds)
    func insideContent(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.justifiedConfiguration()
        let layout = try JustifiedLayout(configuration)
        let run = runStreaming(layout, generator.justifiedFeed())

        let tolerance = 1e-9 * max(1, run.contentHeight)
        let left = configuration.sectionInset.left
        for frame in run.frames {
            #expect(frame.width >= 0 && frame.height >= 0, "seed \(seed): \(frame)")
            #expect(
                frame.minX >= left - 1e-9 && frame.maxX <= left + configuration.contentWidth + 1e-9,
                "seed \(seed): \(frame)")
            #expect(frame.minY >= 0 && frame.maxY <= run.contentHeight + tolerance, "seed \(seed): \(frame)")
        }
        for frame in run.headers.compactMap({ $0 }) + run.footers.compactMap({ $0 }) {
            #expect(frame.minX >= 0 && frame.maxX <= configuration.width + 1e-9, "seed \(seed): \(frame)")
            #expect(frame.minY >= 0 && frame.maxY <= run.contentHeight + tolerance, "seed \(seed): \(frame)")
        }
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // T, H and W are DESIGN's letters for the row height, a row's height and the content width.
    @Test("rows share a top and a height, stack r apart, and every justified row spans exactly W", arguments: seeds)
    func rowsSpanTheWidth(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.justifiedConfiguration()
        let layout = try JustifiedLayout(configuration)
        let feed = generator.justifiedFeed()
        let run = runStreaming(layout, feed)

        let left = configuration.sectionInset.left
        let right = left + configuration.contentWidth
        let s = configuration.columnSpacing
        let caption = configuration.captionHeight
        let T = configuration.rowHeight
        for rows in Self.rows(run, feed) {
            var previous: Row?
            for row in rows {
                let first = row.frames[0]
                // rows share a top and a height
                #expect(row.frames.allSatisfy { $0.y == first.y && $0.height == first.height }, "seed \(seed)")
                // x advances by width + s
                for (a, b) in zip(row.frames, row.frames.dropFirst()) {
                    #expect(abs(b.minX - (a.maxX + s)) <= 1e-9 * max(1, right), "seed \(seed): \(a) \(b)")
                }
                // each row starts r below the previous one
                if let previous {
                    let expected = previous.frames[0].maxY + configuration.rowSpacing
                    #expect(abs(first.y - expected) <= 1e-9 * max(1, expected), "seed \(seed)")
                }
                previous = row
                guard !row.isBanner else {
                    #expect(first.x == left && first.width == configuration.contentWidth, "seed \(seed)")
                    continue
                }
                let H = first.height - caption
                let spansW = first.x == left && abs(row.frames.last!.maxX - right) <= 1e-9
                if !row.isLast || configuration.lastRow == .justify {
                    // every non-last row is justified: from the left inset to left + W
                    #expect(spansW, "seed \(seed): \(row.frames)")
                    // (H is read back as height - caption, so allow rounding)
                    let slack = 1e-9 * max(1, first.height)
                    #expect(
                        H >= configuration.grid(0.5 * T) - slack && H <= 2 * T + slack,
                        "seed \(seed): H \(H), T \(T), caption \(caption)")
                } else if !spansW {
                    // an unjustified last row: at most T tall and inside the content
                    #expect(H <= T, "seed \(seed)")
                    if configuration.lastRow == .left {
                        #expect(first.x == left, "seed \(seed)")
                    } else {
                        let leftGap = first.x - left
                        let rightGap = right - row.frames.last!.maxX
                        #expect(
                            leftGap >= -1e-9 && leftGap <= rightGap + 1e-9,
                            "seed \(seed): centred \(leftGap) \(rightGap)")
                    }
                }
            }
        }
    }

    // swift-format-ignore: AlwaysUseLowerCamelCase
    // T, H and W are DESIGN's letters for the row height, a row's height and the content width.
    /// DESIGN's `close(row)` written out literally, with its divisions: the frames of a row
    /// of `items` at `top`.
    static func literalRow(_ items: [LayoutItem], top: Double, _ configuration: JustifiedConfiguration) -> [Frame] {
        let W = configuration.contentWidth
        let s = configuration.columnSpacing
        let aspects = items.map { Double($0.width) / Double($0.height) }
        let sum = aspects.reduce(0, +)
        let available = W - Double(items.count - 1) * s
        let T = configuration.rowHeight
        let H = configuration.grid(min(max(available / sum, 0.5 * T), 2 * T))
        var frames: [Frame] = []
        var x = configuration.sectionInset.left
        for a in aspects.dropLast() {
            let width = configuration.grid((available * a) / sum)
            frames.append(Frame(x: x, y: top, width: width, height: H + configuration.captionHeight))
            x += width + s
        }
        frames.append(
            Frame(x: x, y: top, width: configuration.sectionInset.left + W - x, height: H + configuration.captionHeight)
        )
        return frames
    }

    /// Shapes whose row widths often come out as whole pixels: where a fast path that skips
    /// a division could land on the wrong side of a pixel boundary.
    static func roundFeed(_ generator: inout SeededGenerator) -> [[LayoutItem]] {
        let shapes: [(Int32, Int32)] = [
            (1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (4, 3), (3, 4), (16, 9), (5, 1), (100, 100),
        ]
        return (0..<Int.random(in: 1...3, using: &generator)).map { _ in
            let shape = shapes.randomElement(using: &generator)!
            let mixed = Bool.random(using: &generator)
            return (0..<Int.random(in: 0...120, using: &generator)).map { _ in
                let (w, h) = mixed ? shapes.randomElement(using: &generator)! : shape
                return LayoutItem(width: w, height: h)
            }
        }
    }

    @Test("every justified row is DESIGN's close(row) bit for bit, divisions and all, on both paths", arguments: seeds)
    func rowsAreLiteral(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var configuration = generator.justifiedConfiguration()
        let feed: [[LayoutItem]]
        if Bool.random(using: &generator) {
            // Whole-pixel lengths, so that exact quotients are common.
            configuration.width = Double(Int.random(in: 1...16, using: &generator) * 100)
            configuration.columnSpacing = Double(Int.random(in: 0...8, using: &generator))
            configuration.sectionInset.left = Double(Int.random(in: 0...2, using: &generator) * 10)
            configuration.sectionInset.right = configuration.sectionInset.left
            configuration.rowHeight = Double([50, 100, 120, 200, 240, 300].randomElement(using: &generator)!)
            feed = Self.roundFeed(&generator)
        } else {
            feed = generator.justifiedFeed()
        }
        guard (try? configuration.validate()) != nil else { return }
        let layout = try JustifiedLayout(configuration)
        for run in [runStreaming(layout, feed), runBulk(layout, feed)] {
            var start = 0
            for (items, rows) in zip(feed, Self.rows(run, feed)) {
                var next = start
                for row in rows {
                    defer { next += row.frames.count }
                    // (a left or centred last row that overflowed is justified too, but one
                    // that fits could also end at the right edge: last rows count when justified by style)
                    guard !row.isBanner, !row.isLast || configuration.lastRow == .justify else { continue }
                    let expected = Self.literalRow(
                        Array(items[(next - start)..<(next - start + row.frames.count)]), top: row.frames[0].y,
                        configuration)
                    #expect(
                        zip(row.frames, expected).allSatisfy(sameBits),
                        "seed \(seed): \(row.frames) against \(expected)")
                }
                start += items.count
            }
        }
    }

    @Test("resuming from any row-start state, decoded from bytes, gives the same layout", arguments: seeds)
    func resumeFromRowStarts(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let layout = try JustifiedLayout(generator.justifiedConfiguration())
        let feed = generator.justifiedFeed()
        let full = runStreaming(layout, feed)
        let saved = savedStates(layout, feed)

        // When the layout resumes from every row start (and a few mid-row states)
        let rowStarts = saved.filter(\.isAtRowStart)
        let midRow = saved.filter { !$0.isAtRowStart }.shuffled(using: &generator).prefix(3)
        for checkpoint in rowStarts + midRow {
            let state = try JustifiedState(serialized: checkpoint.bytes)
            if checkpoint.isAtRowStart { #expect(checkpoint.bytes.count < 48) }
            let resumed = resumeStreaming(
                layout, feed, section: checkpoint.section, after: checkpoint.item, state: state)

            // Then frames, headers, footers and contentHeight equal the uninterrupted run's, bit for bit
            #expect(zip(resumed.frames, full.frames[checkpoint.framesSoFar...]).allSatisfy(sameBits), "seed \(seed)")
            #expect(resumed.frames.count == full.frames.count - checkpoint.framesSoFar, "seed \(seed)")
            #expect(resumed.headers == Array(full.headers[(checkpoint.section + 1)...]), "seed \(seed)")
            #expect(resumed.footers == Array(full.footers[checkpoint.section...]), "seed \(seed)")
            #expect(resumed.sectionEnds == Array(full.sectionEnds[checkpoint.section...]), "seed \(seed)")
            #expect(resumed.contentHeight.bitPattern == full.contentHeight.bitPattern, "seed \(seed)")
        }
    }

    @Test("the same input always gives the same frames", arguments: seeds.prefix(50))
    func deterministic(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.justifiedConfiguration()
        let feed = generator.justifiedFeed()
        let first = runStreaming(try JustifiedLayout(configuration), feed)
        let second = runStreaming(try JustifiedLayout(configuration), feed)
        #expect(first.frames.count == second.frames.count)
        #expect(zip(first.frames, second.frames).allSatisfy(sameBits), "seed \(seed)")
        #expect(first == second)
    }

    @Test("the bulk path equals the streaming path bit for bit, in any chunking", arguments: seeds)
    func bulkEqualsStreaming(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let layout = try JustifiedLayout(generator.justifiedConfiguration())
        let feed =
            Bool.random(using: &generator) ? generator.photoFeed(maximumItems: 200) : generator.feed(maximumItems: 80)
        let streaming = runStreaming(layout, feed)

        // When the whole feed goes through layout(_:) (bulk, one call per section)
        let bulk = runBulk(layout, feed)

        // Then everything is identical
        #expect(bulk.frames.count == streaming.frames.count)
        #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits), "seed \(seed)")
        #expect(bulk.headers == streaming.headers && bulk.footers == streaming.footers)
        #expect(bulk.sectionEnds == streaming.sectionEnds)
        #expect(bulk.contentHeight.bitPattern == streaming.contentHeight.bitPattern)

        // And when each section is fed to the bulk path in random chunks (so chunks start
        // mid-row), frames and states match the streaming path after every chunk
        var streamState = layout.initialState
        var bulkState = layout.initialState
        for items in feed {
            _ = layout.openSection(&streamState)
            _ = layout.openSection(&bulkState)
            var start = 0
            while start < items.count {
                let end = min(items.count, start + Int.random(in: 1...20, using: &generator))
                var expected: [Frame] = []
                for item in items[start..<end] {
                    layout.append(item, &streamState) { expected.append($1) }
                }
                var frames = [Frame](
                    repeating: Frame(x: -1, y: -1, width: -1, height: -1), count: bulkState.pendingCount + end - start)
                let written = items[start..<end].withUnsafeBufferPointer { input in
                    frames.withUnsafeMutableBufferPointer { layout.append(contentsOf: input, into: $0, &bulkState) }
                }
                #expect(written == expected.count, "seed \(seed)")
                #expect(zip(frames.prefix(written), expected).allSatisfy(sameBits), "seed \(seed)")
                #expect(bulkState == streamState, "seed \(seed)")
                #expect(bulkState.serialized() == streamState.serialized(), "seed \(seed)")
                start = end
            }
            var streamTail: [Frame] = []
            var bulkTail: [Frame] = []
            #expect(
                layout.closeSection(&bulkState) { bulkTail.append($1) }
                    == layout.closeSection(&streamState) { streamTail.append($1) })
            #expect(zip(bulkTail, streamTail).allSatisfy(sameBits) && bulkTail.count == streamTail.count)
        }
    }

    @Test("long sections of photos: bulk and streaming agree, and rows look like photo rows")
    func longSections() throws {
        var generator = SeededGenerator(seed: 99)
        for scale in 1...3 {
            for lastRow in LastRowStyle.allCases {
                let layout = try JustifiedLayout(
                    JustifiedConfiguration(
                        width: 1170, rowHeight: 240, lastRow: lastRow, captionHeight: 3, scale: scale))
                let feed = [(0..<5_000).map { _ in generator.photo() }, (0..<1_500).map { _ in generator.photo() }]
                let bulk = runBulk(layout, feed)
                let streaming = runStreaming(layout, feed)
                #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits), "scale \(scale) \(lastRow)")
                #expect(bulk.contentHeight == streaming.contentHeight)
            }
        }
    }

    /// The bulk path's row loop runs only over blocks without a banner, which the random
    /// feeds above seldom have (a banner in 40 photos): here long runs of photos and panoramas
    /// without banners, then the same with a banner now and then, so that blocks with and
    /// without banners alternate and rows stay pending across them.
    @Test(
        "photo runs without banners: bulk and streaming agree at every scale, last-row style and tolerance",
        arguments: [1, 2, 3])
    func photoRunsWithoutBanners(scale: Int) throws {
        var generator = SeededGenerator(seed: 2_024 &+ UInt64(scale))
        let photos = (0..<3_000).map { _ in generator.photo() }.map { LayoutItem(width: $0.width, height: $0.height) }
        var mixed = photos
        for index in stride(from: 500, to: mixed.count, by: 700) {
            mixed[index] = bannerImage(1200, 400 + Int32(index % 97))
        }
        for tolerance in [0.05, 0.15, 0.25] {
            for lastRow in LastRowStyle.allCases {
                // Given the side-by-side benchmark's options (1,000 wide, 235-point rows, spacing
                // 2, no insets) and a phone's, with captions and insets
                let configurations = [
                    JustifiedConfiguration(
                        width: 1_000, rowHeight: 235, rowHeightTolerance: tolerance, columnSpacing: 2, rowSpacing: 2,
                        lastRow: lastRow, sectionInset: .zero, scale: scale),
                    JustifiedConfiguration(
                        width: 390, rowHeight: 120, rowHeightTolerance: tolerance, columnSpacing: 2, rowSpacing: 3,
                        lastRow: lastRow, captionHeight: 3.5, scale: scale),
                ]
                for configuration in configurations {
                    let layout = try JustifiedLayout(configuration)

                    // When both paths lay out a section of photos, then one with banners
                    let bulk = runBulk(layout, [photos, mixed])
                    let streaming = runStreaming(layout, [photos, mixed])

                    // Then every frame is the same, bit for bit
                    let label = "scale \(scale), \(lastRow), tolerance \(tolerance), width \(configuration.width)"
                    #expect(bulk.frames.count == streaming.frames.count, "\(label)")
                    #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits), "\(label)")
                    #expect(bulk.contentHeight.bitPattern == streaming.contentHeight.bitPattern, "\(label)")
                }
            }
        }
    }

    @Test("rows longer than the bulk path's blocks: bulk and streaming agree", arguments: [0.0, 0.001])
    func rowsAcrossBlocks(spacing: Double) throws {
        // Given needles of aspect 0.001 and no (or almost no) spacing: minAR = 4 × 0.75 = 3,
        // so a row gathers about 3,000 images, more than a block of 1,024 (and than the
        // scratch buffer's first capacity, 2,048); some banners and chunk boundaries mid-row
        var generator = SeededGenerator(seed: 5)
        let layout = try JustifiedLayout(
            JustifiedConfiguration(width: 420, rowHeight: 100, columnSpacing: spacing, lastRow: .justify))
        let items = (0..<20_000).map { index -> LayoutItem in
            index % 7_919 == 7_000 ? bannerImage(4, 1) : image(1, 1_000 + Int32.random(in: 0...9, using: &generator))
        }

        // When laid out by both paths, whole and in chunks
        let streaming = runStreaming(layout, [items])
        let bulk = runBulk(layout, [items])
        var state = layout.initialState
        _ = layout.openSection(&state)
        var chunked: [Frame] = []
        var start = 0
        while start < items.count {
            let end = min(items.count, start + 2_500)
            var frames = [Frame](
                repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: state.pendingCount + end - start)
            let written = items[start..<end].withUnsafeBufferPointer { input in
                frames.withUnsafeMutableBufferPointer { layout.append(contentsOf: input, into: $0, &state) }
            }
            chunked += frames.prefix(written)
            start = end
        }
        _ = layout.closeSection(&state) { chunked.append($1) }

        // Then all agree bit for bit
        #expect(Set(streaming.frames.map(\.y)).count > 5)
        #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits) && bulk.frames.count == streaming.frames.count)
        #expect(zip(chunked, streaming.frames).allSatisfy(sameBits) && chunked.count == streaming.frames.count)
    }

    @Test("sizes outside 1...1,000,000 never trap, and both paths still agree bit for bit", arguments: [1, 2, 3])
    func invalidSizes(scale: Int) throws {
        let layout = try JustifiedLayout(JustifiedConfiguration(width: 600, rowHeight: 150, scale: scale))
        let odd: [LayoutItem] = [
            image(0, 100), image(0, 0), image(-5, 100), image(100, -5), image(1, .max), image(100, 100),
            LayoutItem(width: 0, height: 10, isFullSpan: true), image(.max, 1),
        ]
        let items = (0..<3_000).map { odd[$0 % odd.count] }
        let bulk = runBulk(layout, [items])
        let streaming = runStreaming(layout, [items])
        #expect(bulk.frames.count == streaming.frames.count)
        #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits))
    }

    @Test("a size below 1 pending across the bulk path's blocks: bulk and streaming agree", arguments: [1, 2, 3])
    func invalidSizePendingAcrossBlocks(scale: Int) throws {
        // Given photos with a negative width just before the first block ends (its aspect
        // ratio is negative, so its row is still gathering when the next block, all photos,
        // begins), and a zero width in the same place of another section
        var generator = SeededGenerator(seed: 7)
        let layout = try JustifiedLayout(JustifiedConfiguration(width: 1200, rowHeight: 240, scale: scale))
        var feed: [[LayoutItem]] = []
        for odd in [image(-5, 100), image(0, 100)] {
            var items = (0..<3_000).map { _ in generator.photo() }.map {
                LayoutItem(width: $0.width, height: $0.height)
            }
            items[1_023] = odd
            feed.append(items)
        }

        // When both paths lay them out
        let bulk = runBulk(layout, feed)
        let streaming = runStreaming(layout, feed)

        // Then the frames agree bit for bit (negative widths included: flooring, not
        // truncating, them) and nothing traps
        #expect(bulk.frames.count == streaming.frames.count)
        #expect(zip(bulk.frames, streaming.frames).allSatisfy(sameBits))
        #expect(streaming.frames.contains { $0.width < 0 })
    }
}
