import WaterfallLayout
import WaterfallStore

/// An answer laid out from the kept feed, in memory, before anything is read for it: a page, a
/// viewport or a section index, as ``Question`` asks. Then its rows (``rows``) are read by the
/// copy's order key of the first, and checked against the copy (``agrees(with:)``).
struct KeptFeedAnswer: Sendable {
    /// What is asked.
    enum Question: Sendable {
        /// The page of `limit` images from catalog index `offset`: laid out from the section
        /// checkpoint before its first image to the end of its last image's row and one image
        /// more (which closes that image's section).
        case page(offset: Int, limit: Int)
        /// The band `[y, y + height)`, its headers pinned with a `pinOffset` (when the layout has
        /// headers): the chunks of the sections whose bands meet the band, laid out from the
        /// checkpoint that starts the first to the end of the last (closing its section when it
        /// is the section's last).
        case viewport(y: Double, height: Double, pinOffset: Double?)
        /// Where the sections begin and the last ends, from each section's plan; no image.
        case sectionIndex
    }

    let geometry: KeptGeometry
    let contentHeight: Double
    /// Its headers, images and footers (none for a section index).
    let elements: [PlacedElement]
    /// The catalog indexes of the images whose rows it reads.
    let rows: Range<Int>
    /// Where its rows are read from: the order key of the first (`nil`: none are).
    let firstKey: Int64?
    /// For a viewport with a pin offset (and headers), the header of every section with an
    /// element in the band, where it stands pinned; else `nil` (the headers are the laid-out
    /// elements').
    let pinnedHeaders: [(sectionID: Int64, frame: Frame, isPinned: Bool)]?
    /// For a section index, where the sections begin and the last ends; else `nil`.
    let sectionBounds: SectionBounds?

    /// The answer to `question`, laid out from `geometry` and `engine`'s `layout` placed at it.
    init<Kind: StreamingLayoutKind>(
        _ question: Question, engine: Kind, geometry: KeptGeometry, layout: KeptLayout<Kind>,
        configuration: AnyLayoutConfiguration
    ) throws {
        self.geometry = geometry
        contentHeight = layout.contentHeight
        switch question {
        case .page(let offset, let limit):
            (elements, rows) = try Self.page(offset: offset, limit: limit, engine, geometry, layout)
            pinnedHeaders = nil
            sectionBounds = nil
        case .viewport(let y, let height, let pinOffset):
            (elements, rows) = try Self.viewport(y: y, height: height, engine, geometry, layout)
            if configuration.hasHeaders, let pinOffset {
                pinnedHeaders = Self.pinnedHeaders(of: elements, y: y, pinOffset: pinOffset, engine, geometry, layout)
            } else {
                pinnedHeaders = nil
            }
            sectionBounds = nil
        case .sectionIndex:
            (elements, rows) = ([], 0..<0)
            pinnedHeaders = nil
            let last = layout.plans.indices.last
            sectionBounds = SectionBounds(
                starts: layout.plans.indices.map(layout.origin(of:)),
                end: last.map { layout.plans[$0].end + layout.shifts[$0] } ?? engine.initialState.y)
        }
        if rows.isEmpty {
            firstKey = nil
        } else {
            var images = geometry.images(from: geometry.locate(rows.lowerBound))
            firstKey = images.next()!.key
        }
    }

    /// The sections it shows, each once, in order.
    var sectionIDs: [Int64] { Self.sectionIDs(of: elements) }

    /// Whether `rows`, read from ``firstKey``, are its images as the copy has them; if not, the
    /// copy disagrees with the catalog and must be dropped.
    func agrees(with rows: [ImageRecord]) -> Bool {
        guard rows.count == self.rows.count else { return false }
        guard !self.rows.isEmpty else { return true }
        var check = geometry.images(from: geometry.locate(self.rows.lowerBound))
        return rows.allSatisfy { row in check.next() == row.geometry }
    }

    /// The sections `elements` show, each once, in order.
    private static func sectionIDs(of elements: [PlacedElement]) -> [Int64] {
        var seen: Set<Int64> = []
        return elements.compactMap { seen.insert($0.sectionID).inserted ? $0.sectionID : nil }
    }

    /// The page of `limit` images from catalog index `offset`, and the indexes of its images.
    private static func page<Kind: StreamingLayoutKind>(
        offset: Int, limit: Int, _ engine: Kind, _ geometry: KeptGeometry, _ layout: KeptLayout<Kind>
    ) throws -> ([PlacedElement], Range<Int>) {
        let total = geometry.count
        let range = offset..<(offset + limit)
        let expected = max(0, min(range.upperBound, total) - offset)
        let resumed = resume(geometry, layout, engine, before: min(offset, max(total - 1, 0)))
        var runner = resumed.runner
        var images = geometry.images(from: resumed.start)
        var sink = CollectingSink { range.contains($0.owner) }
        var next = images.next()
        while let image = next {
            if runner.nextIndex > range.upperBound && sink.itemCount >= expected { break }
            try runner.place(image, into: &sink)
            next = images.next()
        }
        if next == nil { _ = runner.finish(into: &sink) }
        return (sink.elements, offset..<(offset + expected))
    }

    /// A ``LayoutRunner`` resumed before catalog index `index` (`0..<count`, or 0 in an empty
    /// feed) at the section checkpoint before it (or at the start of its section, after the
    /// empty sections before it, whose headers and footers go with its first image), with where
    /// the images go on from.
    private static func resume<Kind: StreamingLayoutKind>(
        _ geometry: KeptGeometry, _ layout: KeptLayout<Kind>, _ engine: Kind, before index: Int
    ) -> (start: (section: Int, local: Int), runner: LayoutRunner<Kind>) {
        let ids = geometry.sectionIDs
        guard geometry.count > 0 else {
            return (
                (geometry.sections.count, 0),
                LayoutRunner(
                    engine: engine, sections: ids, variants: layout.variants, state: engine.initialState, ordinal: -1,
                    nextIndex: 0)
            )
        }
        let target = geometry.locate(index)
        if let checkpoint = layout.checkpoint(section: target.section, atOrBefore: target.local) {
            return (
                (target.section, checkpoint.index),
                LayoutRunner(
                    engine: engine, sections: ids, variants: layout.variants, state: checkpoint.state,
                    ordinal: target.section,
                    nextIndex: geometry.start(of: target.section) + checkpoint.index)
            )
        }
        var first = target.section
        while first > 0 && geometry.sections[first - 1].keys.isEmpty { first -= 1 }
        return (
            (target.section, 0),
            LayoutRunner(
                engine: engine, sections: ids, variants: layout.variants,
                state: engine.state(betweenSectionsAt: layout.origin(of: first)),
                ordinal: first - 1, nextIndex: geometry.start(of: target.section))
        )
    }

    /// The band `[y, y + height)` laid out, and the indexes from its first image to its last.
    private static func viewport<Kind: StreamingLayoutKind>(
        y: Double, height: Double, _ engine: Kind, _ geometry: KeptGeometry, _ layout: KeptLayout<Kind>
    ) throws -> ([PlacedElement], Range<Int>) {
        var sink = CollectingSink { $0.frame.meetsBand(y: y, height: height) }
        if let (first, last) = chunks(meeting: y, height, layout) {
            var runner: LayoutRunner<Kind>
            let plan = layout.plans[first.section]
            let start = plan.chunk(first.chunk, count: geometry.sections[first.section].keys.count).lowerBound
            if first.chunk == 0 {
                runner = LayoutRunner(
                    engine: engine, sections: geometry.sectionIDs, variants: layout.variants,
                    state: engine.state(betweenSectionsAt: layout.origin(of: first.section)),
                    ordinal: first.section - 1, nextIndex: geometry.start(of: first.section))
            } else {
                let checkpoint = layout.checkpoint(section: first.section, atOrBefore: start)!
                runner = LayoutRunner(
                    engine: engine, sections: geometry.sectionIDs, variants: layout.variants, state: checkpoint.state,
                    ordinal: first.section,
                    nextIndex: geometry.start(of: first.section) + checkpoint.index)
            }
            let lastPlan = layout.plans[last.section]
            let lastCount = geometry.sections[last.section].keys.count
            var end = geometry.start(of: last.section) + lastPlan.chunk(last.chunk, count: lastCount).upperBound
            // The last chunk of a section ends when the section closes: one image more.
            if last.chunk == lastPlan.bands.count - 1 { end += 1 }
            var images = geometry.images(from: (first.section, start))
            while runner.nextIndex < end, let image = images.next() { try runner.place(image, into: &sink) }
            // Out of images before the end: the last section closes.
            if runner.nextIndex < end { _ = runner.finish(into: &sink) }
        }
        let indexes = sink.elements.lazy.filter { $0.kind == .item }.map(\.owner)
        let first = indexes.min() ?? 0
        return (sink.elements, first..<(indexes.max().map { $0 + 1 } ?? first))
    }

    /// The header of every section `elements` show, pinned in the viewport at `y`.
    private static func pinnedHeaders<Kind: StreamingLayoutKind>(
        of elements: [PlacedElement], y: Double, pinOffset: Double, _ engine: Kind, _ geometry: KeptGeometry,
        _ layout: KeptLayout<Kind>
    ) -> [(sectionID: Int64, frame: Frame, isPinned: Bool)] {
        sectionIDs(of: elements).compactMap { id in
            guard let ordinal = geometry.ordinal(ofSection: id),
                let natural = engine.headerFrame(
                    sectionStartY: layout.origin(of: ordinal), variant: layout.variant(of: ordinal))
            else { return nil }
            let sectionEnd = layout.plans[ordinal].sectionEnd + layout.shifts[ordinal]
            let pinned = engine.pinnedHeader(
                natural: natural, sectionEnd: sectionEnd, viewportY: y, pinOffset: pinOffset,
                variant: layout.variant(of: ordinal))
            return (id, pinned.frame, pinned.isPinned)
        }
    }

    /// The first and the last (section, chunk) whose band, where the section stands now, meets
    /// `[y, y + height)`; `nil` when none does.
    private static func chunks<Kind: StreamingLayoutKind>(
        meeting y: Double, _ height: Double, _ layout: KeptLayout<Kind>
    ) -> (first: (section: Int, chunk: Int), last: (section: Int, chunk: Int))? {
        var first: (section: Int, chunk: Int)?
        var last: (section: Int, chunk: Int)?
        for (ordinal, plan) in layout.plans.enumerated() {
            let shift = layout.shifts[ordinal]
            // Sections stack downwards: one that starts below the band ends the search.
            if plan.origin + shift >= y + height, first != nil { break }
            for (chunk, band) in plan.bands.enumerated() where band.top + shift < y + height && band.bottom + shift > y
            {
                if first == nil { first = (ordinal, chunk) }
                last = (ordinal, chunk)
            }
        }
        guard let first, let last else { return nil }
        return (first, last)
    }
}
