import WaterfallLayout
import WaterfallStore

/// One element placed by a ``LayoutRunner``.
struct PlacedElement {
    enum Kind { case header, item, footer }
    var kind: Kind
    var frame: Frame
    var sectionID: Int64
    /// For items: the catalog index. For headers and footers: the catalog index of the image
    /// whose page carries it (DESIGN section 2: a section's header goes with its first image,
    /// its footer with its last; an empty section's with the first image after it, else the
    /// last image, else page 0).
    var owner: Int
}

/// Receives what a ``LayoutRunner`` places.
protocol LayoutSink {
    mutating func place(_ element: PlacedElement)
    mutating func closed(_ section: SectionExtentRecord)
}

/// Lays out a feed's catalog as a stream: the images in key order, interleaved with the
/// feed's sections (empty ones included) in position order. Starts from the beginning or from
/// a checkpoint; feeds the layout engine, of any kind, one image at a time. An image's frame
/// reaches the sink when the engine decides it: at once for a waterfall, when its row closes
/// for justified rows (so a caller that wants image `i` places images until it has arrived).
struct LayoutRunner<Kind: StreamingLayoutKind> {
    let engine: Kind
    /// The feed's section ids, in order.
    let sections: [Int64]
    /// The engine's variant of each section (``StreamingLayoutKind/variant(ofSection:)``), by
    /// ordinal; empty when every section is variant 0.
    let variants: [Int]
    private let ordinalByID: [Int64: Int]
    private(set) var state: Kind.State
    /// The index in `sections` of the open section, -1 before the first.
    private(set) var openOrdinal: Int
    /// The catalog index of the next image.
    private(set) var nextIndex: Int

    /// Starts before the first section, or resumes from `checkpoint`.
    init(engine: Kind, sections: [Int64], variants: [Int], checkpoint: CheckpointRecord?) throws {
        guard let checkpoint else {
            self.init(
                engine: engine, sections: sections, variants: variants, state: engine.initialState, ordinal: -1,
                nextIndex: 0)
            return
        }
        guard let ordinal = sections.firstIndex(of: checkpoint.sectionID) else {
            throw WaterfallError.database(
                "the layout cache refers to a section that no longer exists; run the command again.")
        }
        let state = try Kind.State(serialized: checkpoint.state)
        guard engine.canResume(from: state) else {
            throw WaterfallError.database("the layout cache holds a state of another layout; run the command again.")
        }
        self.init(
            engine: engine, sections: sections, variants: variants, state: state, ordinal: ordinal,
            nextIndex: checkpoint.index)
    }

    /// Resumes from a state held in memory (a server's hot layout): `state` is the state before
    /// the image at catalog index `nextIndex`, `ordinal` the index in `sections` of the section
    /// open in it, or of the last one closed when no section is open (-1 before the first).
    init(engine: Kind, sections: [Int64], variants: [Int], state: Kind.State, ordinal: Int, nextIndex: Int) {
        precondition(variants.isEmpty || variants.count == sections.count, "one variant per section")
        self.engine = engine
        self.sections = sections
        self.variants = variants
        var ordinals: [Int64: Int] = [:]
        ordinals.reserveCapacity(sections.count)
        for (index, section) in sections.enumerated() { ordinals[section] = index }
        ordinalByID = ordinals
        self.state = state
        openOrdinal = ordinal
        self.nextIndex = nextIndex
    }

    /// The section open in the current state.
    var openSectionID: Int64? {
        openOrdinal >= 0 ? sections[openOrdinal] : nil
    }

    /// Places the next image (closing and opening sections on the way).
    mutating func place(_ image: ImageGeometry, into sink: inout some LayoutSink) throws {
        guard let target = ordinalByID[image.sectionID], target >= openOrdinal else {
            throw WaterfallError.database(
                "the catalog's order is inconsistent at image index \(nextIndex); re-import the feed with --reset-order."
            )
        }
        if target != openOrdinal {
            if openOrdinal >= 0 && state.isSectionOpen { close(owner: nextIndex - 1, untilKey: image.key, into: &sink) }
            for ordinal in (openOrdinal + 1)..<target {
                open(ordinal, owner: nextIndex, into: &sink)
                close(owner: nextIndex, untilKey: image.key, into: &sink)
            }
            open(target, owner: nextIndex, into: &sink)
        }
        let first = nextIndex - state.imagesInSection
        let sectionID = image.sectionID
        engine.append(LayoutItem(width: image.width, height: image.height, isFullSpan: image.isFullSpan), &state) {
            index, frame in
            sink.place(PlacedElement(kind: .item, frame: frame, sectionID: sectionID, owner: first + index))
        }
        nextIndex += 1
    }

    /// Closes the open section and lays out the trailing empty sections; returns the content height.
    mutating func finish(into sink: inout some LayoutSink) -> Double {
        let owner = max(nextIndex - 1, 0)
        if openOrdinal >= 0 && state.isSectionOpen { close(owner: owner, untilKey: OrderKeys.end, into: &sink) }
        for ordinal in (openOrdinal + 1)..<sections.count {
            open(ordinal, owner: owner, into: &sink)
            close(owner: owner, untilKey: OrderKeys.end, into: &sink)
        }
        return engine.contentHeight(state)
    }

    private mutating func open(_ ordinal: Int, owner: Int, into sink: inout some LayoutSink) {
        openOrdinal = ordinal
        if let header = engine.openSection(&state, variant: variants.isEmpty ? 0 : variants[ordinal]) {
            sink.place(PlacedElement(kind: .header, frame: header, sectionID: sections[ordinal], owner: owner))
        }
    }

    private mutating func close(owner: Int, untilKey: Int64, into sink: inout some LayoutSink) {
        let startY = state.sectionStartY
        let first = nextIndex - state.imagesInSection
        let id = sections[openOrdinal]
        let end = engine.closeSection(&state) { index, frame in
            sink.place(PlacedElement(kind: .item, frame: frame, sectionID: id, owner: first + index))
        }
        if let footer = end.footer {
            sink.place(PlacedElement(kind: .footer, frame: footer, sectionID: id, owner: owner))
        }
        sink.closed(SectionExtentRecord(sectionID: id, untilKey: untilKey, startY: startY, endY: end.sectionEnd))
    }
}

extension StreamingLayoutKind {
    /// The variant of each of a feed's `sections` (ids, in order) for a layout whose sections
    /// may differ (DESIGN section 14), read from the catalog by the sections' names; empty,
    /// with nothing read, when every section is variant 0.
    func variants(of sections: [Int64], tx: any CatalogTransaction) throws -> [Int] {
        guard hasSectionVariants, !sections.isEmpty else { return [] }
        return variants(of: sections, records: try tx.sections(ids: sections))
    }

    /// The variant of each of `sections` (ids, in order) by the names `records` give them
    /// (those of at least `sections`); empty when every section is variant 0.
    func variants(of sections: [Int64], records: [SectionRecord]) -> [Int] {
        guard hasSectionVariants, !sections.isEmpty else { return [] }
        var names: [Int64: String] = [:]
        for section in records {
            names[section.id] = section.name
        }
        return sections.map { names[$0].map(variant(ofSection:)) ?? 0 }
    }
}
