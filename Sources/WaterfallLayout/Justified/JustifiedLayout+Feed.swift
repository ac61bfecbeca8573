/// Laying out a whole feed held in memory.
extension JustifiedLayout {
    /// Lays out a whole feed: sections in order, each an array of images (possibly empty).
    ///
    /// Every section is opened, filled with the bulk ``append(contentsOf:into:_:)`` and closed,
    /// exactly as the incremental API would do it; the result also holds the lists that make
    /// ``JustifiedFeedLayout/viewport(y:height:)`` fast. O(n) time and memory.
    public func layout(_ sections: [[LayoutItem]]) -> JustifiedFeedLayout {
        let total = sections.reduce(0) { $0 + $1.count }
        var state = initialState
        var sectionLayouts: [SectionLayout] = []
        sectionLayouts.reserveCapacity(sections.count)
        let frames = [Frame](unsafeUninitializedCapacity: total) { buffer, initialized in
            var next = 0
            for items in sections {
                let header = openSection(&state)
                let sectionStartY = state.sectionStartY
                let start = next
                items.withUnsafeBufferPointer { items in
                    let target = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + items.count])
                    append(contentsOf: items, into: target, &state)
                }
                let end = closeSection(&state) { index, frame in
                    buffer[start + index] = frame
                }
                sectionLayouts.append(
                    SectionLayout(
                        header: header, footer: end.footer, items: start..<start + items.count,
                        sectionStartY: sectionStartY, sectionEnd: end.sectionEnd))
                next += items.count
            }
            initialized = next
        }
        return JustifiedFeedLayout(
            configuration: configuration, itemFrames: frames, sections: sectionLayouts,
            contentHeight: contentHeight(state))
    }
}

/// A whole feed laid out in justified rows in memory, with fast viewport queries.
///
/// Made by ``JustifiedLayout/layout(_:)`` (or from frames computed elsewhere with
/// ``init(configuration:itemFrames:sections:contentHeight:)``). Rows and banners stack top to
/// bottom in catalog order, so one search list holds every image, and a viewport at any depth
/// costs O(log n + answer).
public struct JustifiedFeedLayout: Sendable {
    /// The configuration the layout was made with.
    public let configuration: JustifiedConfiguration
    /// Every image's frame, in points, in catalog order across all sections.
    public let itemFrames: [Frame]
    /// The sections in order, with their headers, footers and image ranges.
    public var sections: [SectionLayout] { bands.sections }
    /// The height of the whole content, in points (at least `minimumContentHeight`).
    public let contentHeight: Double

    /// Every image, in catalog order.
    private let itemIndex: BandIndex
    /// The sections' headers and footers, searchable.
    private let bands: SectionBands

    /// Creates a layout from frames computed elsewhere and builds its search lists.
    ///
    /// `sections[i].items` must be consecutive ranges covering `itemFrames` in order. O(n).
    public init(
        configuration: JustifiedConfiguration, itemFrames: [Frame], sections: [SectionLayout], contentHeight: Double
    ) {
        self.configuration = configuration
        self.itemFrames = itemFrames
        bands = SectionBands(sections)
        self.contentHeight = contentHeight
        var items = BandIndex()
        for (index, frame) in itemFrames.enumerated() {
            items.append(id: index, frame: frame)
        }
        items.finish()
        itemIndex = items
    }

    /// Everything whose frame meets the band `[y, y + height)` (points): images, headers at
    /// their natural positions, and footers (DESIGN: `frame.minY < y + height && frame.maxY > y`).
    ///
    /// O(log n + answer).
    public func viewport(y: Double, height: Double) -> Viewport {
        bands.viewport(items: items(meeting: y, height: height), y: y, height: height)
    }

    /// Like ``viewport(y:height:)``, with pinned (floating) section headers, exactly as
    /// ``FeedLayout/viewport(y:height:pinOffset:)`` places them: the header of every section
    /// with an element meeting the band, at
    /// `min(max(y + pinOffset, natural.y), sectionEnd - headerHeight)`, flagged `isPinned`
    /// when moved. Empty when `headerHeight` is 0. O(log n + answer × log answer).
    public func viewport(y: Double, height: Double, pinOffset: Double) -> Viewport {
        let chrome = configuration.chrome
        return bands.viewport(
            items: items(meeting: y, height: height), y: y, height: height, pinOffset: pinOffset,
            hasHeaders: chrome.headerHeight > 0
        ) { _ in chrome }
    }

    /// The index of the section holding global image `item`. O(log sections).
    func section(ofItem item: Int) -> Int {
        bands.section(ofItem: item)
    }

    /// Global indices of the images meeting the band, ascending.
    private func items(meeting y: Double, height: Double) -> [Int] {
        itemIndex.indices(meeting: y, height: height, frame: { itemFrames[$0] })
    }
}
