/// The sections of a whole layout held in memory, searchable by band: their headers and footers
/// in search lists, and the viewport rules every kind shares (DESIGN section 2): what meets a
/// band, and where each header of a section on screen is pinned. Written once for
/// ``FeedLayout`` and ``JustifiedFeedLayout``, which differ only in how they find their images.
struct SectionBands: Sendable {
    /// The sections in order, with their headers, footers and image ranges.
    let sections: [SectionLayout]
    /// Headers, by section index.
    private let headerIndex: BandIndex
    /// Footers, by section index.
    private let footerIndex: BandIndex

    init(_ sections: [SectionLayout]) {
        self.sections = sections
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

    /// The viewport of `items` (the images meeting the band, ascending), with the headers at
    /// their natural positions and the footers that meet it. O(log sections + answer).
    func viewport(items: [Int], y: Double, height: Double) -> Viewport {
        var headers: [ViewportHeader] = []
        for section in headerIndex.indices(meeting: y, height: height, frame: { sections[$0].header! }) {
            headers.append(ViewportHeader(section: section, frame: sections[section].header!, isPinned: false))
        }
        return Viewport(items: items, headers: headers, footers: footers(meeting: y, height: height))
    }

    /// The viewport of `items` with pinned headers: the header of every section that has an
    /// element (its header at the natural position, an image, or its footer) meeting the band,
    /// placed by its section's chrome (``SectionChrome/pinnedHeader(natural:sectionEnd:viewportY:pinOffset:)``).
    /// `hasHeaders` false: no section has one, and none is looked for.
    /// O(log sections + answer × log answer).
    func viewport(
        items: [Int], y: Double, height: Double, pinOffset: Double, hasHeaders: Bool,
        chrome: (_ section: Int) -> SectionChrome
    ) -> Viewport {
        let footers = footers(meeting: y, height: height)
        guard hasHeaders else { return Viewport(items: items, headers: [], footers: footers) }
        var touched: [Int] = []
        touched += headerIndex.indices(meeting: y, height: height, frame: { sections[$0].header! })
        touched += footers
        // Items are ascending, and so are the sections' ranges: walk both together.
        var section = 0
        for item in items {
            if section >= sections.count || !sections[section].items.contains(item) {
                section = self.section(ofItem: item)
            }
            if touched.last != section { touched.append(section) }
        }
        var seen = Set<Int>()
        let headers = touched.sorted().compactMap { index -> ViewportHeader? in
            guard seen.insert(index).inserted, let natural = sections[index].header else { return nil }
            let pinned = chrome(index).pinnedHeader(
                natural: natural, sectionEnd: sections[index].sectionEnd, viewportY: y, pinOffset: pinOffset)
            return ViewportHeader(section: index, frame: pinned.frame, isPinned: pinned.isPinned)
        }
        return Viewport(items: items, headers: headers, footers: footers)
    }

    private func footers(meeting y: Double, height: Double) -> [Int] {
        footerIndex.indices(meeting: y, height: height, frame: { sections[$0].footer! })
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
}
