/// The bulk fast path: the same frames as ``JustifiedLayout/append(_:_:_:)``, bit for bit, for
/// a run of images of one section, without per-image array, closure or state traffic.
///
/// How it stays exact and fast. The streaming path keeps the pending row in the state's array;
/// here the pending row is a range of the input and its `sum(a)` a local, and both paths call
/// the same inlined rule functions of ``JustifiedRules`` (`decide`, `close`, `lastRow`,
/// `banner`), so the decisions and every `Double` operation are the same, in the same order.
/// The differences are bookkeeping: each image's `a = w / h` is computed once, a block of
/// 1,024 at a time, into a scratch buffer (the streaming path computes it again when a row
/// closes: the same division, the same bits); a tight scan gathers a row's images before the
/// full decision runs; and scales 1 and 2 skip the division by the scale, exact for them.
///
/// What it costs. Each image needs one division for `a` and one for its width, each row one
/// for `H`; rows end at unpredictable places, so the scan's exit and the width loop's exit are
/// mispredicted about once a row each. About 8 ns an image for photo feeds here (10,000,000
/// images in 75 to 85 ms on one core, 56 ms when every row has the same length, when first
/// measured; docs/performance.md has the current figures), against 4 ns for the waterfall's bulk path, whose placements have no such
/// data-dependent exits.
extension JustifiedLayout {
    /// Appends a run of images, all in the open section, writing the frames it decides to
    /// `frames` and returning how many it wrote.
    ///
    /// `frames[0..<written]` receive, in catalog order and bit for bit as ``append(_:_:_:)``
    /// would report them, the frames of the section's images
    /// `state.imagesInSection - state.pendingCount` onwards (the images pending in `state`
    /// before the call come first, then `items`). The images still pending at the end stay in
    /// `state`, whose frames a later call or ``closeSection(_:_:)`` reports; `state` ends
    /// exactly as after the same ``append(_:_:_:)`` calls. `frames` must hold at least
    /// `state.pendingCount + items.count` frames; its memory is overwritten (`Frame` is a
    /// trivial type, so it need not be initialized). O(items + pending); a few nanoseconds an
    /// image for photo aspect ratios. Precondition: a section is open and `frames` is long
    /// enough.
    @discardableResult
    public func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout JustifiedState
    ) -> Int {
        precondition(state.isSectionOpen, "append called with no open section")
        precondition(
            frames.count >= state.pendingItems.count + items.count, "frames is shorter than the images to place")
        guard let input = items.baseAddress, let output = frames.baseAddress, !items.isEmpty else { return 0 }
        var written = 0
        var next = 0
        // Finish the row the state was gathering the streaming way, up to the next row start.
        while !state.pendingItems.isEmpty, next < items.count {
            append(input[next], &state) { _, frame in
                output[written] = frame
                written += 1
            }
            next += 1
        }
        guard next < items.count else { return written }
        var run = BulkRun(rowTop: state.rowTop, previous: state.previousRowHeight, rowStart: next, written: written)
        switch configuration.scale {
        case 1: placeRows(input, next, items.count, output, &run, FastGrid(scale: ScaleOne()))
        case 2: placeRows(input, next, items.count, output, &run, FastGrid(scale: ScaleTwo()))
        default: placeRows(input, next, items.count, output, &run, FastGrid(scale: GeneralScale(scale: rules.scale)))
        }
        state.rowTop = run.rowTop
        state.previousRowHeight = run.previous
        state.imagesInSection += items.count - next
        state.pendingItems.removeAll(keepingCapacity: true)
        state.pendingItems.append(contentsOf: UnsafeBufferPointer(rebasing: items[run.rowStart...]))
        state.pendingAspectSum = run.sum
        return run.written
    }

    /// The bulk loop's variables.
    private struct BulkRun {
        var rowTop: Double
        var previous: Double?
        /// Index of the pending row's first image in the input.
        var rowStart: Int
        /// Frames written so far.
        var written: Int
        /// `sum(a)` of the pending row.
        var sum = 0.0
    }

    /// Images per block whose aspect ratios are computed together (256: 2 KiB of ratios,
    /// 2–3% faster than 1,024 on the photo benchmark, 4,096 2% slower).
    private static let blockLength = 256

    /// Places `input[start..<end]`, starting at a row start.
    private func placeRows<Grid: JustifiedGrid>(
        _ input: UnsafePointer<LayoutItem>, _ start: Int, _ end: Int, _ output: UnsafeMutablePointer<Frame>,
        _ run: inout BulkRun, _ grid: Grid
    ) {
        // At each block's start, `aspects[0..<pending]` holds a(image) for the pending row,
        // `input[run.rowStart..<blockStart]`; the block's follow, so that `aspects[i -
        // run.rowStart]` is a(input[i]) throughout the block.
        var capacity = 2 * Self.blockLength
        var aspects = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        defer { aspects.deallocate() }
        let rules = rules
        let ideals = UnsafeMutablePointer<Double>.allocate(capacity: JustifiedRules.idealSumCount)
        defer { ideals.deallocate() }
        rules.writeIdealSums(ideals)
        var literal = false
        var blockStart = start
        while blockStart < end {
            // A block is at least as long as the pending row, so moves cost O(1) an image.
            let pending = blockStart - run.rowStart
            let blockEnd = min(end, blockStart + max(Self.blockLength, pending))
            if pending + (blockEnd - blockStart) > capacity {
                capacity = 2 * (pending + blockEnd - blockStart)
                let larger = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
                larger.update(from: aspects, count: pending)
                aspects.deallocate()
                aspects = larger
            }
            let contents = Self.computeAspects(input + blockStart, blockEnd - blockStart, aspects + pending)
            let base = run.rowStart
            // Sizes the catalog never holds (0, negative) make aspect ratios of 0, NaN or
            // infinity, which `FastGrid` may not be given: the literal grid from that block on
            // (its images may stay pending into the next blocks).
            literal = literal || contents.hasSizesBelowOne
            if literal {
                placeBlock(input, blockStart, blockEnd, output, aspects, &run, rules, rules.exactGrid)
            } else if contents.hasBanners {
                placeBlock(input, blockStart, blockEnd, output, aspects, &run, rules, grid)
            } else {
                placeRowsOnly(blockStart, blockEnd, output, aspects, ideals, &run, rules, grid)
            }
            // Move the new pending row's aspect ratios to the front (forwards: no overlap harm).
            let shift = run.rowStart - base
            if shift > 0 {
                for index in 0..<(blockEnd - run.rowStart) {
                    aspects[index] = aspects[index &+ shift]
                }
            }
            blockStart = blockEnd
        }
    }

    /// What a block holds besides photos.
    private struct BlockContents {
        /// Some image is full-span.
        var hasBanners: Bool
        /// Some image has a width or height below 1.
        var hasSizesBelowOne: Bool
    }

    /// Negative exactly when the image's width or height is below 1: a size `v` is below 1
    /// when `v` or `v - 1` is negative (`v - 1` alone would wrap for `Int32.min`).
    @inline(__always)
    private static func belowOne(_ item: LayoutItem) -> Int32 {
        item.width | (item.width &- 1) | item.height | (item.height &- 1)
    }

    /// Writes `a = w / h` of `count` images to `aspects` (two divisions at a time: each lane
    /// of a vector division is the same IEEE division as `JustifiedState.aspect`) and says
    /// whether any of them is a banner or has a size below 1, without a branch an image.
    @inline(__always)
    private static func computeAspects(
        _ input: UnsafePointer<LayoutItem>, _ count: Int, _ aspects: UnsafeMutablePointer<Double>
    ) -> BlockContents {
        var banners: UInt8 = 0
        var sizesBelowOne: Int32 = 0
        var index = 0
        while index &+ 1 < count {
            let first = input[index]
            let second = input[index &+ 1]
            let quotients =
                SIMD2(Double(first.width), Double(second.width))
                / SIMD2(Double(first.height), Double(second.height))
            aspects[index] = quotients[0]
            aspects[index &+ 1] = quotients[1]
            banners |=
                unsafeBitCast(first.isFullSpan, to: UInt8.self) | unsafeBitCast(second.isFullSpan, to: UInt8.self)
            sizesBelowOne |= Self.belowOne(first) | Self.belowOne(second)
            index &+= 2
        }
        if index < count {
            let last = input[index]
            aspects[index] = JustifiedState.aspect(last)
            banners |= unsafeBitCast(last.isFullSpan, to: UInt8.self)
            sizesBelowOne |= Self.belowOne(last)
        }
        return BlockContents(hasBanners: banners != 0, hasSizesBelowOne: sizesBelowOne < 0)
    }

    /// The loop over a block that holds a banner: `aspects[i - base]` is a(input[i]) from
    /// `base = run.rowStart` on.
    private func placeBlock<Grid: JustifiedGrid>(
        _ input: UnsafePointer<LayoutItem>, _ start: Int, _ end: Int, _ output: UnsafeMutablePointer<Frame>,
        _ aspects: UnsafeMutablePointer<Double>, _ run: inout BulkRun, _ rules: JustifiedRules, _ grid: Grid
    ) {
        var rowTop = run.rowTop
        var previous = run.previous
        var rowStart = run.rowStart
        var written = run.written
        var sum = run.sum
        let base = rowStart
        let minimum = rules.minimumAspectRatio
        let limit = rules.pendingLimit
        var index = start
        while index < end {
            let pendingCount = index &- rowStart
            if input[index].isFullSpan {
                if pendingCount > 0 {
                    rules.lastRow(
                        aspects + (rowStart &- base), pendingCount, sum, &rowTop, &previous, output + written, grid)
                    written &+= pendingCount
                }
                output[written] = rules.banner(input[index], &rowTop, &previous)
                written &+= 1
                index &+= 1
                rowStart = index
                sum = 0
                continue
            }
            let aspect = aspects[index &- base]
            let candidate = sum + aspect
            index &+= 1
            // The usual case first: the row keeps gathering (DESIGN's `A < minAR`).
            if pendingCount < limit, candidate < minimum {
                sum = candidate
                continue
            }
            switch rules.decide(pendingCount, sum, candidate) {
            case .gather:
                sum = candidate
            case .closeCandidate:
                rules.close(
                    aspects + (rowStart &- base), pendingCount &+ 1, candidate, &rowTop, &previous, output + written,
                    grid)
                written &+= pendingCount &+ 1
                rowStart = index
                sum = 0
            case .closePending:
                rules.close(aspects + (rowStart &- base), pendingCount, sum, &rowTop, &previous, output + written, grid)
                written &+= pendingCount
                if aspect >= minimum {
                    rules.close(aspects + (index &- 1 &- base), 1, aspect, &rowTop, &previous, output + written, grid)
                    written &+= 1
                    rowStart = index
                    sum = 0
                } else {
                    rowStart = index &- 1
                    sum = 0 + aspect
                }
            }
        }
        run.rowTop = rowTop
        run.previous = previous
        run.rowStart = rowStart
        run.written = written
        run.sum = sum
    }

    /// The hot loop over a block without banners (the usual case), row by row: a tight scan
    /// gathers images while DESIGN's `A < minAR` holds (and the row has room for another
    /// gap), then the image that stops it goes through the full decision
    /// (``JustifiedRules/decide(_:_:_:)``). These are the same decisions, image by image, as
    /// the streaming path's: `decide` gathers exactly when
    /// `pendingCount < pendingLimit && candidate < minAR`.
    @inline(__always)
    private func placeRowsOnly<Grid: JustifiedGrid>(
        _ start: Int, _ end: Int, _ output: UnsafeMutablePointer<Frame>,
        _ aspects: UnsafeMutablePointer<Double>, _ ideals: UnsafePointer<Double>, _ run: inout BulkRun,
        _ rules: JustifiedRules, _ grid: Grid
    ) {
        var rowTop = run.rowTop
        var previous = run.previous
        var rowStart = run.rowStart
        var written = run.written
        var sum = run.sum
        // aspects[i - base] is a(input[i]); offsets, not a pointer moved before the buffer.
        let base = rowStart
        let minimum = rules.minimumAspectRatio
        let limit = rules.pendingLimit
        var index = start
        while index < end {
            // Gather: images rowStart..<index are pending; stop before a row would hold `limit`.
            let scanEnd = limit >= end &- rowStart ? end : rowStart &+ limit
            while index < scanEnd {
                let candidate = sum + aspects[index &- base]
                if !(candidate < minimum) { break }
                sum = candidate
                index &+= 1
            }
            if index == end { break }
            let pendingCount = index &- rowStart
            let aspect = aspects[index &- base]
            let candidate = sum + aspect
            index &+= 1
            switch rules.decide(pendingCount, sum, candidate, ideals) {
            case .gather:
                sum = candidate
            case .closeCandidate:
                rules.closeInPairs(
                    aspects + (rowStart &- base), pendingCount &+ 1, candidate, &rowTop, &previous, output + written,
                    grid)
                written &+= pendingCount &+ 1
                rowStart = index
                sum = 0
            case .closePending:
                rules.closeInPairs(
                    aspects + (rowStart &- base), pendingCount, sum, &rowTop, &previous, output + written, grid)
                written &+= pendingCount
                if aspect >= minimum {
                    rules.closeInPairs(
                        aspects + (index &- 1 &- base), 1, aspect, &rowTop, &previous, output + written, grid)
                    written &+= 1
                    rowStart = index
                    sum = 0
                } else {
                    rowStart = index &- 1
                    sum = 0 + aspect
                }
            }
        }
        run.rowTop = rowTop
        run.previous = previous
        run.rowStart = rowStart
        run.written = written
        run.sum = sum
    }
}
