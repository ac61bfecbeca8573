/// The bulk fast path: the same placements as ``WaterfallLayout/place(_:_:)``, bit for bit,
/// for a run of images of one section, without per-image array or state traffic.
///
/// How it stays exact and fast. In `shortest` order with scale 1 or 2, when the row spacing,
/// caption height and column bottoms are whole multiples of the pixel (`1 / scale`) and every
/// length stays below 2^52 pixels, all of DESIGN's additions are exact in `Double`, so they can
/// be done on integers (pixels) with the same result. Each column bottom then becomes one
/// integer key, `pixels << 6 | column`: the smallest key is the shortest column, lowest index
/// on ties, and the keys are kept sorted so the next column is always the first key. That
/// removes the floating-point dependency chain and every unpredictable branch from the loop.
/// Heights are still computed in `Double` exactly as DESIGN says, with a branch-free floor.
/// Runs of 128 images are checked afterwards (every image size gave a finite, non-negative
/// length below 2^44 pixels and the content stayed below 2^52 pixels); a run that fails is
/// redone by the floating-point loop, which follows ``WaterfallLayout/place(_:_:)`` literally.
extension WaterfallLayout {
    /// Places a run of images, all in the open section, writing their frames to `frames`.
    ///
    /// `frames[i]` receives the frame of `items[i]`, bit for bit the frame ``place(_:_:)``
    /// would return, and `state` ends exactly as after those calls. `frames` must be at least
    /// as long as `items`; its memory is overwritten (`Frame` is a trivial type, so it need not
    /// be initialized). O(items × columns); a few nanoseconds an image in `shortest` order at
    /// scale 1 or 2 with whole-pixel spacings (about 4 ns with 3 columns here), more otherwise.
    /// Precondition: a section is open and `frames.count >= items.count`.
    public func place(
        _ items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout LayoutState
    ) {
        precondition(state.isSectionOpen, "place called with no open section")
        precondition(state.columnBottoms.count == configuration.columns, "state has another column count")
        precondition(frames.count >= items.count, "frames is shorter than items")
        guard let input = items.baseAddress, let output = frames.baseAddress, !items.isEmpty else { return }
        let count = items.count
        let placedBefore = state.placedInSection
        let ordinary = state.columnBottoms.withUnsafeMutableBufferPointer { bottoms in
            let bottoms = bottoms.baseAddress!
            if configuration.order == .shortest {
                switch configuration.scale {
                case 1: return placeShortest(input, output, count, bottoms, ScaleOne())
                case 2: return placeShortest(input, output, count, bottoms, ScaleTwo())
                default: break
                }
            }
            return placeFloating(input, output, count, bottoms, placedBefore)
        }
        state.placedInSection += ordinary
        state.imagesInSection += count
    }

    // MARK: - Integer keys (shortest order, scale 1 or 2)

    /// Bits of a key that hold the column index (64 columns at most).
    private static let columnBits: Int64 = 6
    /// Images checked together before their frames are accepted. Also the two passes of
    /// ``placeKeyedRun`` run over this many frames: 128 (4 KiB of frames) keep the second pass
    /// in L1; 1,024 were 10% slower, 64 and 256 3–5%.
    private static let runLength = 128
    /// Largest pixel position the key path accepts: 2^52, where `Double` stops being exact.
    private static let largestPixels: Int64 = 1 << 52

    /// Places a run in `shortest` order on integer keys where that is exact, on the
    /// floating-point loop otherwise. Returns the number of ordinary images.
    private func placeShortest<Grid: PixelGrid>(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ bottoms: UnsafeMutablePointer<Double>, _ grid: Grid
    ) -> Int {
        switch configuration.columns {
        case 1: return placeKeyed(input, output, count, bottoms, grid, KeysOfOne.self)
        case 2: return placeKeyed(input, output, count, bottoms, grid, KeysOfTwo.self)
        case 3: return placeKeyed(input, output, count, bottoms, grid, KeysOfThree.self)
        case 4: return placeKeyed(input, output, count, bottoms, grid, KeysOfFour.self)
        case 5: return placeKeyed(input, output, count, bottoms, grid, KeysOfFive.self)
        case 6: return placeKeyed(input, output, count, bottoms, grid, KeysOfSix.self)
        case 7: return placeKeyed(input, output, count, bottoms, grid, KeysOfSeven.self)
        case 8: return placeKeyed(input, output, count, bottoms, grid, KeysOfEight.self)
        default: return placeKeyed(input, output, count, bottoms, grid, KeysOfAny.self)
        }
    }

    /// `value` in whole pixels, when it is a non-negative whole number of pixels below 2^52.
    private static func pixels<Grid: PixelGrid>(_ value: Double, _ grid: Grid) -> Int64? {
        let scaled = grid.toPixels(value)
        guard scaled >= 0, scaled.sign == .plus, scaled < Double(largestPixels),
            scaled == scaled.rounded(.towardZero)
        else { return nil }
        return Int64(scaled)
    }

    private func placeKeyed<Grid: PixelGrid, Keys: SortedColumnKeys>(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ bottoms: UnsafeMutablePointer<Double>, _ grid: Grid, _: Keys.Type
    ) -> Int {
        let columns = configuration.columns
        guard let spacing = Self.pixels(configuration.rowSpacing, grid),
            let caption = Self.pixels(configuration.captionHeight, grid)
        else { return placeFloating(input, output, count, bottoms, 0) }
        // Column bottoms as sorted keys; the scratch holds them for `KeysOfAny` and for sorting.
        return withUnsafeTemporaryAllocation(of: Int64.self, capacity: 2 * columns) { scratch in
            let start = scratch.baseAddress!
            let saved = start + columns
            func loadKeys() -> Bool {
                for column in 0..<columns {
                    guard let value = Self.pixels(bottoms[column], grid) else { return false }
                    start[column] = value << Self.columnBits | Int64(column)
                }
                // Insertion sort: at most 64 keys, usually 2 to 5.
                for index in 1..<columns {
                    let key = start[index]
                    var slot = index
                    while slot > 0, start[slot - 1] > key {
                        start[slot] = start[slot - 1]
                        slot -= 1
                    }
                    start[slot] = key
                }
                return true
            }
            func storeKeys(_ keys: UnsafePointer<Int64>) {
                for index in 0..<columns {
                    let key = keys[index]
                    bottoms[Int(key & 63)] = grid.toPoints(Double(key >> Self.columnBits))
                }
            }
            guard loadKeys() else { return placeFloating(input, output, count, bottoms, 0) }
            var keys = Keys(start, columns: columns)
            let xs = paddedColumnX
            let constants = KeyedConstants(
                itemWidth: itemWidth, contentWidth: contentWidth, left: configuration.sectionInset.left,
                caption: configuration.captionHeight, increment: caption + spacing)
            var ordinary = 0
            var done = 0
            while done < count {
                let run = min(Self.runLength, count - done)
                keys.store(saved)
                var runOrdinary = 0
                let valid = xs.withUnsafeBufferPointer { xs in
                    Self.placeKeyedRun(
                        input + done, output + done, run, &keys, &runOrdinary, xs.baseAddress!, constants, grid)
                }
                if valid, keys.largest >> Self.columnBits < Self.largestPixels {
                    ordinary += runOrdinary
                    done += run
                    continue
                }
                // Redo this run the literal way, then go back to keys if the result allows it.
                storeKeys(saved)
                ordinary += placeFloating(input + done, output + done, run, bottoms, 0)
                done += run
                guard done < count else { return ordinary }
                guard loadKeys() else {
                    return ordinary + placeFloating(input + done, output + done, count - done, bottoms, 0)
                }
                keys = Keys(start, columns: columns)
            }
            keys.store(start)
            storeKeys(start)
            return ordinary
        }
    }

    /// The loop constants of the key path.
    private struct KeyedConstants {
        let itemWidth: Double
        let contentWidth: Double
        let left: Double
        let caption: Double
        /// `captionHeight + rowSpacing` in pixels.
        let increment: Int64
    }

    /// The hot loop: one run of images on keys. Returns whether every size was in range.
    ///
    /// Two passes over the run's frames. The first does each image's arithmetic, the
    /// divisions two images at a time in one `divpd` (each lane the same IEEE operations as
    /// the scalar code), and writes the frame's width and height, with the key increment and
    /// whether it is a banner parked in its `x` and `y`. The second advances the keys image by
    /// image and writes `x` and `y`: it reads only the frames (in cache), so its few values
    /// stay in registers.
    @inline(__always)
    private static func placeKeyedRun<Grid: PixelGrid, Keys: SortedColumnKeys>(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ keys: inout Keys, _ ordinary: inout Int, _ xs: UnsafePointer<Double>, _ k: KeyedConstants,
        _ grid: Grid
    ) -> Bool {
        let sizes = writeSizes(input, output, count, k, grid)
        for index in 0..<count {
            let parked = output[index]
            let increment = Int64(bitPattern: parked.x.bitPattern)
            if parked.y.bitPattern != 0 {
                let top = keys.largest >> columnBits
                output[index].x = k.left
                output[index].y = grid.toPoints(Double(top))
                keys.setAll(top &+ increment)
                continue
            }
            let key = keys.smallest
            output[index].x = xs[Int(key & 63)]
            output[index].y = grid.toPoints(Double(key >> columnBits))
            keys.replaceSmallest(with: key &+ (increment << columnBits))
        }
        ordinary = count &- sizes.banners
        // Negative, NaN or infinite lengths and lengths of 2^52 or more all read as a negative
        // number or one of at least 2^44 (see `wholeValue`), so this one test catches them all.
        return sizes.lengths >= 0 && sizes.lengths < 1 << 44
    }

    /// The first pass of ``placeKeyedRun``: for each image, DESIGN's
    /// `height = grid(width * h / w) + captionHeight` (the width is W for a banner, the floor
    /// `floorOfSmallNonNegative` lane by lane), written as the frame's width and height, with
    /// `x` holding the bits of the key increment (whole pixels + caption + spacing) and `y`
    /// those of 1 for a banner, else 0. Returns the whole pixel lengths OR-ed (see
    /// `wholeValue`) and the number of banners.
    @inline(__always)
    private static func writeSizes<Grid: PixelGrid>(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ k: KeyedConstants, _ grid: Grid
    ) -> (lengths: Int64, banners: Int) {
        var lengths: Int64 = 0
        var banners = 0
        var index = 0
        while index &+ 1 < count {
            let first = input[index]
            let second = input[index &+ 1]
            let widths = SIMD2(
                first.isFullSpan ? k.contentWidth : k.itemWidth, second.isFullSpan ? k.contentWidth : k.itemWidth)
            let scaled = grid.toPixels(
                (widths * SIMD2(Double(first.height), Double(second.height)))
                    / SIMD2(Double(first.width), Double(second.width)))
            let floored = PairMath.floorOfSmallNonNegative(scaled)
            let heights = grid.toPoints(floored) + k.caption
            let pixels = (wholeValue(floored[0]), wholeValue(floored[1]))
            output[index] = parkedFrame(pixels.0 &+ k.increment, first.isFullSpan, widths[0], heights[0])
            output[index &+ 1] = parkedFrame(pixels.1 &+ k.increment, second.isFullSpan, widths[1], heights[1])
            lengths |= pixels.0 | pixels.1
            banners &+= Int(
                unsafeBitCast(first.isFullSpan, to: UInt8.self) &+ unsafeBitCast(second.isFullSpan, to: UInt8.self))
            index &+= 2
        }
        if index < count {
            let item = input[index]
            let width = item.isFullSpan ? k.contentWidth : k.itemWidth
            let floored = floorOfSmallNonNegative(grid.toPixels((width * Double(item.height)) / Double(item.width)))
            let pixels = wholeValue(floored)
            output[index] = parkedFrame(
                pixels &+ k.increment, item.isFullSpan, width, grid.toPoints(floored) + k.caption)
            lengths |= pixels
            banners &+= Int(unsafeBitCast(item.isFullSpan, to: UInt8.self))
        }
        return (lengths, banners)
    }

    /// A frame of the first pass: its width and height, the key increment's bits in `x`, and
    /// in `y` the bits of 1 for a banner, else 0.
    @inline(__always)
    private static func parkedFrame(_ increment: Int64, _ isFullSpan: Bool, _ width: Double, _ height: Double) -> Frame
    {
        Frame(
            x: Double(bitPattern: UInt64(bitPattern: increment)),
            y: Double(bitPattern: UInt64(unsafeBitCast(isFullSpan, to: UInt8.self))), width: width, height: height)
    }

    /// `floor(value)` for 0 ≤ value < 2^52, branch-free: adding and removing 2^52 rounds to
    /// the nearest integer, then one comparison corrects a round-up. Exact in that range.
    @inline(__always)
    static func floorOfSmallNonNegative(_ value: Double) -> Double {
        let rounded = (value + 4_503_599_627_370_496) - 4_503_599_627_370_496
        return rounded > value ? rounded - 1 : rounded
    }

    /// The whole number `value` (0 ≤ value < 2^52) as an integer, read from the bits of
    /// `value + 2^52`. Never traps: a negative value gives a negative result, and NaN, the
    /// infinities and values of 2^52 or more give results of at least 2^52.
    @inline(__always)
    private static func wholeValue(_ value: Double) -> Int64 {
        Int64(bitPattern: (value + 4_503_599_627_370_496).bitPattern) &- 0x4330_0000_0000_0000
    }

    // MARK: - The literal floating-point loop

    /// Places a run exactly as ``place(_:_:)`` would, on `Double` column bottoms, for every
    /// order and scale. `placedBefore` is the section's ordinary count before the run (used by
    /// the round-robin orders). Returns the number of ordinary images.
    private func placeFloating(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ bottoms: UnsafeMutablePointer<Double>, _ placedBefore: Int
    ) -> Int {
        paddedColumnX.withUnsafeBufferPointer { xs in
            switch configuration.order {
            case .shortest:
                let xs = xs.baseAddress!
                switch configuration.columns {
                case 2: return placeShortestFloating(input, output, count, bottoms, xs, ShortestOfTwo.self)
                case 3: return placeShortestFloating(input, output, count, bottoms, xs, ShortestOfThree.self)
                case 4: return placeShortestFloating(input, output, count, bottoms, xs, ShortestOfFour.self)
                default: return placeShortestFloating(input, output, count, bottoms, xs, ShortestOfAny.self)
                }
            case .leftToRight, .rightToLeft:
                return placeRoundRobin(input, output, count, bottoms, placedBefore, xs.baseAddress!)
            }
        }
    }

    /// The literal loop for `shortest` order; `Shortest` finds the column (branch-free for
    /// up to 4 columns).
    private func placeShortestFloating<Shortest: ShortestColumn>(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ bottoms: UnsafeMutablePointer<Double>, _ xs: UnsafePointer<Double>, _: Shortest.Type
    ) -> Int {
        let columns = configuration.columns
        let caption = configuration.captionHeight
        let spacing = configuration.rowSpacing
        let itemWidth = itemWidth
        let scale = scale
        var ordinary = 0
        for index in 0..<count {
            let item = input[index]
            if item.isFullSpan {
                output[index] = placeFullSpan(item, bottoms)
                continue
            }
            let (column, top) = Shortest.find(bottoms, columns)
            let height = Self.grid((itemWidth * Double(item.height)) / Double(item.width), scale) + caption
            let frame = Frame(x: xs[column], y: top, width: itemWidth, height: height)
            output[index] = frame
            bottoms[column] = frame.maxY + spacing
            ordinary += 1
        }
        return ordinary
    }

    /// The literal loop for the round-robin orders: the column advances by one step an image
    /// instead of being recomputed as `k % columns`.
    private func placeRoundRobin(
        _ input: UnsafePointer<LayoutItem>, _ output: UnsafeMutablePointer<Frame>, _ count: Int,
        _ bottoms: UnsafeMutablePointer<Double>, _ placedBefore: Int, _ xs: UnsafePointer<Double>
    ) -> Int {
        let columns = configuration.columns
        let caption = configuration.captionHeight
        let spacing = configuration.rowSpacing
        let itemWidth = itemWidth
        let scale = scale
        let step = configuration.order == .leftToRight ? 1 : columns - 1
        var column =
            configuration.order == .leftToRight
            ? placedBefore % columns : columns - 1 - placedBefore % columns
        var ordinary = 0
        for index in 0..<count {
            let item = input[index]
            if item.isFullSpan {
                output[index] = placeFullSpan(item, bottoms)
                continue
            }
            let height = Self.grid((itemWidth * Double(item.height)) / Double(item.width), scale) + caption
            let top = bottoms[column]
            output[index] = Frame(x: xs[column], y: top, width: itemWidth, height: height)
            bottoms[column] = (top + height) + spacing
            ordinary += 1
            // (column + step) % columns without a division: step is 1 or columns - 1.
            let next = column + step
            column = next >= columns ? next - columns : next
        }
        return ordinary
    }

    /// Places a full-span image under the lowest column and moves every column below it.
    @inline(__always)
    private func placeFullSpan(_ item: LayoutItem, _ bottoms: UnsafeMutablePointer<Double>) -> Frame {
        let columns = configuration.columns
        var top = bottoms[0]
        for other in 1..<columns where bottoms[other] > top {
            top = bottoms[other]
        }
        let height =
            Self.grid((contentWidth * Double(item.height)) / Double(item.width), scale)
            + configuration.captionHeight
        let frame = Frame(x: configuration.sectionInset.left, y: top, width: contentWidth, height: height)
        let bottom = frame.maxY + configuration.rowSpacing
        for other in 0..<columns {
            bottoms[other] = bottom
        }
        return frame
    }

    /// `floor(value * scale) / scale`, exact like ``LayoutConfiguration/grid(_:)``, without a
    /// libm call for the usual values: for 0 ≤ v < 2^63, truncating to `Int64` is `floor`.
    /// (The branch only guards the conversion and is always taken the same way for valid
    /// sizes; a branch-free rounding trick here would be turned back into an unpredictable
    /// branch by the compiler.)
    @inline(__always)
    static func grid(_ value: Double, _ scale: Double) -> Double {
        let scaled = value * scale
        let floored = scaled >= 0 && scaled < 9.2e18 ? Double(Int64(scaled)) : scaled.rounded(.down)
        return floored / scale
    }
}
