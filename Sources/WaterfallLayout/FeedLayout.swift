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
    public var sections: [SectionLayout] { bands.sections }
    /// The height of the whole content, in points (at least `minimumContentHeight`).
    public let contentHeight: Double

    /// Ordinary images per column, then the full-span images (one list each).
    private let itemIndexes: [BandIndex]
    /// The sections' headers and footers, searchable.
    private let bands: SectionBands

    /// Creates a layout from frames computed elsewhere and builds its search lists.
    ///
    /// `sections[i].items` must be consecutive ranges covering `itemFrames` in order. An
    /// image goes to the list of the column whose left edge its frame starts at when it is
    /// one column wide, else to the full-span list. O(n).
    public init(
        configuration: LayoutConfiguration, itemFrames: [Frame], sections: [SectionLayout], contentHeight: Double
    ) {
        self.configuration = configuration
        self.itemFrames = itemFrames
        bands = SectionBands(sections)
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
    }

    /// Everything whose frame meets the band `[y, y + height)` (points): images, headers at
    /// their natural positions, and footers (DESIGN: `frame.minY < y + height && frame.maxY > y`).
    ///
    /// O(columns × log n + answer × log answer).
    public func viewport(y: Double, height: Double) -> Viewport {
        bands.viewport(items: items(meeting: y, height: height), y: y, height: height)
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
        var found: [Int] = []
        for list in itemIndexes {
            found += list.indices(meeting: y, height: height, frame: { itemFrames[$0] })
        }
        found.sort()
        return found
    }
}
