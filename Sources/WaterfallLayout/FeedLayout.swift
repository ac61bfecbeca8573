/// A whole feed laid out in memory, with fast viewport queries.
///
/// Made by ``WaterfallLayout/layout(_:)`` (or from frames computed elsewhere with
/// ``init(configuration:itemFrames:sections:contentHeight:)``). Besides the frames it keeps,
/// per column, the images of that column top to bottom, the full-span images, and the
/// headers and footers, so that a viewport at any depth costs O(columns × log n + answer).
public struct FeedLayout: Sendable {
    /// The configuration the layout was made with.
    public let configuration: LayoutConfiguration
    /// Every image's frame, in points, in catalog order across all sections.
    public let itemFrames: [Frame]
    /// The sections in order, with their headers, footers and image ranges.
    public let sections: [SectionLayout]
    /// The height of the whole content, in points (at least `minimumContentHeight`).
    public let contentHeight: Double

    /// Ordinary images per column, then the full-span images (one list each).
    private let itemIndexes: [BandIndex]
    /// Headers, by section index.
    private let headerIndex: BandIndex
    /// Footers, by section index.
    private let footerIndex: BandIndex

    /// Creates a layout from frames computed elsewhere and builds its search lists.
    ///
    /// `sections[i].items` must be consecutive ranges covering `itemFrames` in order. An
    /// image goes to the list of the column whose left edge its frame starts at when it is
    /// one column wide, else to the full-span list. O(n).
    public init(configuration: LayoutConfiguration, itemFrames: [Frame], sections: [SectionLayout], contentHeight: Double) {
        self.configuration = configuration
        self.itemFrames = itemFrames
        self.sections = sections
        self.contentHeight = contentHeight

        let columns = max(configuration.columns, 1)
        let itemWidth = configuration.itemWidth
        let step = itemWidth + configuration.columnSpacing
        let left = configuration.sectionInset.left
        var lists = Array(repeating: BandIndex(), count: columns + 1)
        for (index, frame) in itemFrames.enumerated() {
            var list = columns
            if frame.width == itemWidth, step > 0 {
                let column = ((frame.x - left) / step).rounded()
                if column >= 0, column < Double(columns) {
                    list = Int(column)
                }
            }
            lists[list].append(id: index, frame: frame)
        }
        for index in lists.indices {
            lists[index].finish()
        }
        itemIndexes = lists

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
    /// O(columns × log n + answer × log answer).
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

    /// Like ``viewport(y:height:)``, with pinned (floating) section headers.
    ///
    /// `headers` holds the header of every section that has an element (its header at the
    /// natural position, an image, or its footer) meeting the band, placed by
    /// ``SectionChrome/pinnedHeader(natural:sectionEnd:viewportY:pinOffset:)`` with the band's
    /// `y` and `pinOffset` (points below the band's top, e.g. a navigation bar's height), and
    /// flagged `isPinned` when moved. Empty when `headerHeight` is 0.
    /// O(columns × log n + answer × log answer).
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
        // Items are ascending, and so are the sections' ranges: walk both together.
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
        // Skip empty sections that end where `item`'s section starts.
        while low < sections.count, !sections[low].items.contains(item) {
            low += 1
        }
        return low
    }

    /// Global indices of the images meeting the band, ascending.
    private func items(meeting y: Double, height: Double) -> [Int] {
        var found: [Int] = []
        for list in itemIndexes {
            list.forEach(meeting: y, height: height, frame: { itemFrames[$0] }) { found.append($0) }
        }
        found.sort()
        return found
    }
}
