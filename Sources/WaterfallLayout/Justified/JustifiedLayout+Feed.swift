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
    public let sections: [SectionLayout]
    /// The height of the whole content, in points (at least `minimumContentHeight`).
    public let contentHeight: Double

    /// Every image, in catalog order.
    private let itemIndex: BandIndex
    /// Headers, by section index.
    private let headerIndex: BandIndex
    /// Footers, by section index.
    private let footerIndex: BandIndex

    /// Creates a layout from frames computed elsewhere and builds its search lists.
    ///
    /// `sections[i].items` must be consecutive ranges covering `itemFrames` in order. O(n).
    public init(
        configuration: JustifiedConfiguration, itemFrames: [Frame], sections: [SectionLayout], contentHeight: Double
    ) {
        self.configuration = configuration
        self.itemFrames = itemFrames
        self.sections = sections
        self.contentHeight = contentHeight
        var items = BandIndex()
        for (index, frame) in itemFrames.enumerated() {
            items.append(id: index, frame: frame)
        }
        items.finish()
        itemIndex = items
        var headers = BandIndex()
        var footers = BandIndex()
        for (index, section) in sections.enumerated() {
            if let header = section.header { headers.append(id: index, frame: header) }
            if let footer = section.footer { footers.append(id: index, frame: footer) }
        }
        headers.finish()
        footers.finish()
        headerIndex = headers
        footerIndex = footers
    }

    /// Everything whose frame meets the band `[y, y + height)` (points): images, headers at
    /// their natural positions, and footers (DESIGN: `frame.minY < y + height && frame.maxY > y`).
    ///
    /// O(log n + answer).
    public func viewport(y: Double, height: Double) -> Viewport {
        let items = items(meeting: y, height: height)
        var headers: [ViewportHeader] = []
        headerIndex.forEach(meeting: y, height: height, frame: { sections[$0].header! }) { section in
            headers.append(ViewportHeader(section: section, frame: sections[section].header!, isPinned: false))
        }
        var footers: [Int] = []
        footerIndex.forEach(meeting: y, height: height, frame: { sections[$0].footer! }) { footers.append($0) }
        return Viewport(items: items, headers: headers, footers: footers)
    }

    /// Like ``viewport(y:height:)``, with pinned (floating) section headers, exactly as
    /// ``FeedLayout/viewport(y:height:pinOffset:)`` places them: the header of every section
    /// with an element meeting the band, at
    /// `min(max(y + pinOffset, natural.y), sectionEnd - headerHeight)`, flagged `isPinned`
    /// when moved. Empty when `headerHeight` is 0. O(log n + answer × log answer).
    public func viewport(y: Double, height: Double, pinOffset: Double) -> Viewport {
        let items = items(meeting: y, height: height)
        var footers: [Int] = []
        footerIndex.forEach(meeting: y, height: height, frame: { sections[$0].footer! }) { footers.append($0) }
        guard configuration.headerHeight > 0 else {
            return Viewport(items: items, headers: [], footers: footers)
        }
        var touched: [Int] = []
        headerIndex.forEach(meeting: y, height: height, frame: { sections[$0].header! }) { touched.append($0) }
        touched += footers
        var section = 0
        for item in items {
            if section >= sections.count || !sections[section].items.contains(item) {
                section = self.section(ofItem: item)
            }
            if touched.last != section { touched.append(section) }
        }
        let chrome = configuration.chrome
        var seen = Set<Int>()
        let headers = touched.sorted().compactMap { index -> ViewportHeader? in
            guard seen.insert(index).inserted, let natural = sections[index].header else { return nil }
            let pinned = chrome.pinnedHeader(
                natural: natural, sectionEnd: sections[index].sectionEnd, viewportY: y, pinOffset: pinOffset)
            return ViewportHeader(section: index, frame: pinned.frame, isPinned: pinned.isPinned)
        }
        return Viewport(items: items, headers: headers, footers: footers)
    }

    /// The index of the section holding global image `item`. O(log sections).
    func section(ofItem item: Int) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let middle = low + (high - low) / 2
            if sections[middle].items.upperBound <= item {
                low = middle + 1
            } else {
                high = middle
            }
        }
        while low < sections.count, !sections[low].items.contains(item) {
            low += 1
        }
        return low
    }

    /// Global indices of the images meeting the band, ascending.
    private func items(meeting y: Double, height: Double) -> [Int] {
        var found: [Int] = []
        itemIndex.forEach(meeting: y, height: height, frame: { itemFrames[$0] }) { found.append($0) }
        return found
    }
}
