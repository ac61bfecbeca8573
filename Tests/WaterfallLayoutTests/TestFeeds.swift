import WaterfallLayout
import WaterfallTestSupport

/// Everything a run of the incremental API produces, for comparing runs.
struct LayoutRun: Equatable {
    var frames: [Frame] = []
    var headers: [Frame?] = []
    var footers: [Frame?] = []
    var sectionEnds: [Double] = []
    var contentHeight: Double = 0
}

/// Lays out `sections` one image at a time with the scalar API: the reference for other paths.
func runScalar(_ layout: WaterfallLayout, _ sections: [[LayoutItem]]) -> LayoutRun {
    var run = LayoutRun()
    var state = layout.initialState
    for items in sections {
        run.headers.append(layout.openSection(&state))
        for item in items {
            run.frames.append(layout.place(item, &state))
        }
        let end = layout.closeSection(&state)
        run.footers.append(end.footer)
        run.sectionEnds.append(end.sectionEnd)
    }
    run.contentHeight = layout.contentHeight(state)
    return run
}

/// Continues a scalar run from `state`, taken right after image `item` of section `section`
/// had been placed, and returns the frames, headers, footers and section ends from there on.
func resumeScalar(
    _ layout: WaterfallLayout, _ sections: [[LayoutItem]], section: Int, after item: Int, state: LayoutState
) -> LayoutRun {
    var run = LayoutRun()
    var state = state
    for index in section..<sections.count {
        if index > section {
            run.headers.append(layout.openSection(&state))
        }
        let start = index == section ? item + 1 : 0
        for image in sections[index][start...] {
            run.frames.append(layout.place(image, &state))
        }
        let end = layout.closeSection(&state)
        run.footers.append(end.footer)
        run.sectionEnds.append(end.sectionEnd)
    }
    run.contentHeight = layout.contentHeight(state)
    return run
}

/// Frames compared bit for bit (so `-0.0` and `0.0` differ, and NaN equals itself).
func sameBits(_ a: Frame, _ b: Frame) -> Bool {
    a.x.bitPattern == b.x.bitPattern && a.y.bitPattern == b.y.bitPattern
        && a.width.bitPattern == b.width.bitPattern && a.height.bitPattern == b.height.bitPattern
}

/// A fixed 2-column phone layout used by many hand-worked examples:
/// width 320, defaults elsewhere, so contentWidth = 300 and itemWidth = grid((300 - 10) / 2) = 145.
func phoneLayout(
    order: PlacementOrder = .shortest, captionHeight: Double = 0, headerHeight: Double = 0, footerHeight: Double = 0
) throws -> WaterfallLayout {
    try WaterfallLayout(
        LayoutConfiguration(
            columns: 2, width: 320, headerHeight: headerHeight, footerHeight: footerHeight,
            captionHeight: captionHeight, order: order))
}

extension SeededGenerator {
    /// A value from a few "shapes": whole, half, a third-ish fraction, or zero.
    mutating func length(upTo limit: Int) -> Double {
        let whole = Double(Int.random(in: 0...limit, using: &self))
        switch Int.random(in: 0..<6, using: &self) {
        case 0: return 0
        case 1: return whole + 0.5
        case 2: return whole + Double(Int.random(in: 1...9, using: &self)) / 10
        default: return whole
        }
    }

    /// A random valid configuration: all orders, scales 1 to 3, fractional lengths included.
    mutating func configuration() -> LayoutConfiguration {
        while true {
            let columns =
                Bool.random(using: &self) ? Int.random(in: 1...5, using: &self) : Int.random(in: 1...12, using: &self)
            let hasHeader = Int.random(in: 0..<3, using: &self) > 0
            let hasFooter = Bool.random(using: &self)
            let configuration = LayoutConfiguration(
                columns: columns,
                width: Bool.random(using: &self)
                    ? Double(Int.random(in: 200...1600, using: &self)) : length(upTo: 1600) + 100,
                columnSpacing: length(upTo: 20),
                rowSpacing: length(upTo: 20),
                sectionInset: EdgeInsets(
                    top: length(upTo: 20), left: length(upTo: 20), bottom: length(upTo: 20), right: length(upTo: 20)),
                headerHeight: hasHeader ? length(upTo: 60) : 0,
                footerHeight: hasFooter ? length(upTo: 40) : 0,
                headerInset: EdgeInsets(
                    top: length(upTo: 8), left: length(upTo: 8), bottom: length(upTo: 8), right: length(upTo: 8)),
                footerInset: EdgeInsets(
                    top: length(upTo: 8), left: length(upTo: 8), bottom: length(upTo: 8), right: length(upTo: 8)),
                captionHeight: Bool.random(using: &self) ? 0 : length(upTo: 30),
                minimumContentHeight: Bool.random(using: &self) ? 0 : length(upTo: 3000),
                order: PlacementOrder.allCases.randomElement(using: &self)!,
                scale: Int.random(in: 1...3, using: &self))
            if (try? configuration.validate()) != nil {
                return configuration
            }
        }
    }

    /// A random image: usual photo sizes, sometimes extreme ones, sometimes a full-span banner.
    mutating func item() -> LayoutItem {
        let width: Int32
        let height: Int32
        switch Int.random(in: 0..<20, using: &self) {
        case 0: (width, height) = (1_000_000, 1)
        case 1: (width, height) = (1, Int32.random(in: 1...1_000, using: &self))
        case 2:
            (width, height) = (
                Int32.random(in: 1...1_000_000, using: &self), Int32.random(in: 1...1_000_000, using: &self)
            )
        default:
            (width, height) = (Int32.random(in: 100...4_000, using: &self), Int32.random(in: 100...4_000, using: &self))
        }
        return LayoutItem(width: width, height: height, isFullSpan: Int.random(in: 0..<10, using: &self) == 0)
    }

    /// A random feed: 0 to 5 sections of 0 to `maximumItems` images each.
    mutating func feed(maximumItems: Int = 40) -> [[LayoutItem]] {
        (0..<Int.random(in: 0...5, using: &self)).map { _ in
            (0..<Int.random(in: 0...maximumItems, using: &self)).map { _ in item() }
        }
    }
}
