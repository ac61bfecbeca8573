import Testing
import WaterfallLayout
import WaterfallTestSupport

/// Everything a streaming run produces, for comparing runs of any ``StreamingLayoutKind``.
struct StreamRun: Equatable {
    var frames: [Frame] = []
    var headers: [Frame?] = []
    var footers: [Frame?] = []
    var sectionEnds: [Double] = []
    var contentHeight: Double = 0
}

/// Collects emitted frames and checks they come in catalog order.
struct FrameCollector {
    var frames: [Frame] = []
    /// Global index of the open section's first image.
    var sectionStart = 0

    mutating func collect(_ index: Int, _ frame: Frame) {
        #expect(sectionStart + index == frames.count, "frames must be reported in catalog order")
        frames.append(frame)
    }
}

/// Lays out `sections` one image at a time with the streaming API: the reference for other paths.
func runStreaming<Layout: StreamingLayoutKind>(_ layout: Layout, _ sections: [[LayoutItem]]) -> StreamRun {
    var run = StreamRun()
    var collector = FrameCollector()
    var state = layout.initialState
    for items in sections {
        collector.sectionStart = collector.frames.count
        run.headers.append(layout.openSection(&state))
        for item in items {
            layout.append(item, &state) { collector.collect($0, $1) }
        }
        let end = layout.closeSection(&state) { collector.collect($0, $1) }
        #expect(
            collector.frames.count == collector.sectionStart + items.count,
            "every image has a frame at the section's end")
        run.footers.append(end.footer)
        run.sectionEnds.append(end.sectionEnd)
    }
    run.frames = collector.frames
    run.contentHeight = layout.contentHeight(state)
    return run
}

/// A state saved during a streaming run: after image `item` of section `section` was appended.
struct SavedState {
    var section: Int
    var item: Int
    var bytes: [UInt8]
    /// Frames reported when the state was saved.
    var framesSoFar: Int
    var isAtRowStart: Bool
}

/// Runs `sections` with the justified streaming API, saving the state after every image.
func savedStates(_ layout: JustifiedLayout, _ sections: [[LayoutItem]]) -> [SavedState] {
    var saved: [SavedState] = []
    var state = layout.initialState
    var frames = 0
    for (section, items) in sections.enumerated() {
        _ = layout.openSection(&state)
        for (index, item) in items.enumerated() {
            layout.append(item, &state) { _, _ in frames += 1 }
            saved.append(
                SavedState(
                    section: section, item: index, bytes: state.serialized(), framesSoFar: frames,
                    isAtRowStart: state.isAtRowStart))
        }
        _ = layout.closeSection(&state) { _, _ in frames += 1 }
    }
    return saved
}

/// Continues a justified run from `state`, saved right after image `item` of section `section`,
/// and returns the frames reported from there on, and the footers, ends and headers that follow.
func resumeStreaming(
    _ layout: JustifiedLayout, _ sections: [[LayoutItem]], section: Int, after item: Int, state: JustifiedState
) -> StreamRun {
    var run = StreamRun()
    var state = state
    var frames: [Frame] = []
    for index in section..<sections.count {
        if index > section {
            run.headers.append(layout.openSection(&state))
        }
        let start = index == section ? item + 1 : 0
        for image in sections[index][start...] {
            layout.append(image, &state) { frames.append($1) }
        }
        let end = layout.closeSection(&state) { frames.append($1) }
        run.footers.append(end.footer)
        run.sectionEnds.append(end.sectionEnd)
    }
    run.frames = frames
    run.contentHeight = layout.contentHeight(state)
    return run
}

/// Lays out `sections` with the bulk path, one call per section.
func runBulk(_ layout: JustifiedLayout, _ sections: [[LayoutItem]]) -> StreamRun {
    let feed = layout.layout(sections)
    var run = StreamRun()
    run.frames = feed.itemFrames
    run.headers = feed.sections.map(\.header)
    run.footers = feed.sections.map(\.footer)
    run.sectionEnds = feed.sections.map(\.sectionEnd)
    run.contentHeight = feed.contentHeight
    return run
}

/// A layout used by many hand-worked examples: width 420, default insets (10), so
/// W = 400; rowHeight T = 100, tolerance 0.25, spacing 10: minAR = 4 × 0.75 = 3, maxAR = 4 × 1.25 = 5.
func bookLayout(
    rowHeightTolerance: Double = 0.25, columnSpacing: Double = 10, lastRow: LastRowStyle = .left,
    captionHeight: Double = 0, scale: Int = 1
) throws -> JustifiedLayout {
    try JustifiedLayout(
        JustifiedConfiguration(
            width: 420, rowHeight: 100, rowHeightTolerance: rowHeightTolerance, columnSpacing: columnSpacing,
            lastRow: lastRow, captionHeight: captionHeight, scale: scale))
}

/// An image of aspect ratio `width : height` (pixels).
func image(_ width: Int32, _ height: Int32) -> LayoutItem {
    LayoutItem(width: width, height: height)
}

/// A full-span image of aspect ratio `width : height` (pixels).
func bannerImage(_ width: Int32, _ height: Int32) -> LayoutItem {
    LayoutItem(width: width, height: height, isFullSpan: true)
}

extension SeededGenerator {
    /// A random valid justified configuration: every last-row style, scales 1 to 3,
    /// fractional lengths, sometimes a spacing wide enough to limit how many images a row holds.
    mutating func justifiedConfiguration() -> JustifiedConfiguration {
        while true {
            let hasHeader = Int.random(in: 0..<3, using: &self) > 0
            let hasFooter = Bool.random(using: &self)
            let tolerances: [Double] = [0, 0.1, 0.25, 0.25, 0.5, 1, Double.random(in: 0...1, using: &self)]
            let configuration = JustifiedConfiguration(
                width: Bool.random(using: &self)
                    ? Double(Int.random(in: 200...1600, using: &self)) : length(upTo: 1600) + 100,
                rowHeight: Bool.random(using: &self)
                    ? Double(Int.random(in: 60...400, using: &self)) : length(upTo: 400) + 1,
                rowHeightTolerance: tolerances.randomElement(using: &self)!,
                columnSpacing: Int.random(in: 0..<10, using: &self) == 0 ? length(upTo: 300) : length(upTo: 20),
                rowSpacing: length(upTo: 20),
                lastRow: LastRowStyle.allCases.randomElement(using: &self)!,
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
                scale: Int.random(in: 1...3, using: &self))
            if (try? configuration.validate()) != nil {
                return configuration
            }
        }
    }

    /// A typical photo: 4:3, 3:4, 16:9, 1:1, 3:2, 2:3 with some pixel noise, sometimes a
    /// panorama, now and then a full-span banner.
    mutating func photo() -> LayoutItem {
        let shapes: [(Int32, Int32)] = [
            (4000, 3000), (3000, 4000), (1920, 1080), (2000, 2000), (3000, 2000), (2000, 3000),
        ]
        if Int.random(in: 0..<40, using: &self) == 0 {
            return LayoutItem(width: 1200, height: 400 + Int32.random(in: 0...100, using: &self), isFullSpan: true)
        }
        if Int.random(in: 0..<25, using: &self) == 0 {
            return LayoutItem(width: Int32.random(in: 4000...12000, using: &self), height: 1000)
        }
        let shape = shapes.randomElement(using: &self)!
        return LayoutItem(width: shape.0 + Int32.random(in: 0...40, using: &self), height: shape.1)
    }

    /// A random feed of typical photos: 0 to 5 sections of 0 to `maximumItems` images each.
    mutating func photoFeed(maximumItems: Int = 60) -> [[LayoutItem]] {
        (0..<Int.random(in: 0...5, using: &self)).map { _ in
            (0..<Int.random(in: 0...maximumItems, using: &self)).map { _ in photo() }
        }
    }

    /// Either a feed of typical photos or one of `feed()`'s odd sizes (needles, 1-pixel images).
    mutating func justifiedFeed() -> [[LayoutItem]] {
        Bool.random(using: &self) ? photoFeed() : feed()
    }
}
