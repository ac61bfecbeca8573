/// The cover flow (DESIGN section 2) as a ``StreamingLayoutKind``, so that a layout cache
/// keeps its checkpoints and answers its queries in O(log n + stride + answer) instead of a
/// scan of the whole feed.
///
/// The cover flow is one horizontal row across every section; the cache's bands and queries
/// are vertical. So this kind reports every frame **transposed** (`x` ↔ `y`, `width` ↔
/// `height`): a chunk's band is then the horizontal extent of its images, a band query is a
/// horizontal viewport, and ``contentHeight(_:)`` is the row's content width. Call
/// ``Frame/transposed`` on what it reports to get the cover-flow frame. Sections have no
/// headers or footers here, and every image is decided when appended.
public struct CoverFlowStream: StreamingLayoutKind {
    public let configuration: CoverFlowConfiguration
    private let layout: CoverFlowLayout

    /// Creates the stream after validating `configuration`.
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds.
    public init(_ configuration: CoverFlowConfiguration) throws(LayoutConfigurationError) {
        layout = try CoverFlowLayout(configuration)
        self.configuration = configuration
    }

    public var initialState: CoverFlowState { CoverFlowState() }

    public func openSection(_ state: inout CoverFlowState) -> Frame? {
        state.isSectionOpen = true
        state.imagesInSection = 0
        return nil
    }

    public func headerFrame(sectionStartY: Double) -> Frame? { nil }

    public func append(
        _ item: LayoutItem, _ state: inout CoverFlowState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        let previous = state.previousMaxX.map { Frame(x: $0, y: 0, width: 0, height: 0) }
        let frame = layout.nextFrame(after: previous, item: item)
        state.previousMaxX = frame.maxX
        let index = state.imagesInSection
        state.imagesInSection += 1
        emit(index, frame.transposed)
    }

    public func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout CoverFlowState
    ) -> Int {
        for (offset, item) in items.enumerated() {
            append(item, &state) { _, frame in frames[offset] = frame }
        }
        return items.count
    }

    public func closeSection(_ state: inout CoverFlowState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void)
        -> SectionEnd
    {
        state.isSectionOpen = false
        state.imagesInSection = 0
        return SectionEnd(footer: nil, sectionEnd: 0)
    }

    /// No footer: a cover flow's sections are one row, without headers or footers.
    public func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double) {
        (nil, sectionEnd)
    }

    /// The row's content width: the last image's right edge plus `sectionInset.right`, or
    /// `sectionInset.left + sectionInset.right` before any image (``CoverFlowLayout/contentWidth(frames:)``).
    public func contentHeight(_ state: CoverFlowState) -> Double {
        let inset = configuration.sectionInset
        return state.previousMaxX.map { $0 + inset.right } ?? inset.left + inset.right
    }

    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        PinnedHeader(frame: natural, isPinned: false)
    }

    /// False: the row runs on across sections, so a section's place depends on more than a `y`.
    public var shiftsExactly: Bool { false }
}

/// Where a cover flow stands between two images: the right edge of the last one placed.
public struct CoverFlowState: ResumableLayoutState {
    /// The right edge of the last image placed, in points; nil before the first.
    public var previousMaxX: Double?
    public var isSectionOpen = false
    public var imagesInSection = 0
    /// Always 0: the row has no vertical extent to resume from.
    public var sectionStartY: Double { 0 }
    /// Always 0: the row has no vertical extent.
    public var y: Double { 0 }
    /// Always 0: every image is decided when appended.
    public var pendingCount: Int { 0 }

    public init() {}

    /// The same state: a cover flow has no vertical extent.
    public func shifted(by dy: Double) -> CoverFlowState { self }

    private static let serializationTag: UInt8 = 0x43  // "C"
    private static let serializationVersion: UInt8 = 1

    /// Layout (version 1): tag `0x43` (`C`), version `1`, flags (bit 0: a section is open; bit
    /// 1: `previousMaxX` is present), `previousMaxX` as a binary64 bit pattern when present,
    /// then `imagesInSection` (zigzag LEB128).
    public func serialized() -> [UInt8] {
        var writer = StateByteWriter()
        writer.bytes.append(Self.serializationTag)
        writer.bytes.append(Self.serializationVersion)
        writer.bytes.append((isSectionOpen ? 1 : 0) | (previousMaxX == nil ? 0 : 2))
        if let previousMaxX { writer.double(previousMaxX) }
        writer.varint(StateByteWriter.zigzag(Int64(imagesInSection)))
        return writer.bytes
    }

    /// Decodes a state written by ``serialized()``.
    /// - Throws: ``LayoutStateDecodingError`` for anything else (another tag, version or flags,
    ///   a truncated or over-long input).
    public init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError) {
        var reader = StateByteReader(Array(bytes), subject: "cover flow state")
        guard try reader.byte(what: "tag") == Self.serializationTag else {
            throw LayoutStateDecodingError(offset: 0, message: "not a cover flow state (unknown tag).")
        }
        let version = try reader.byte(what: "version")
        guard version == Self.serializationVersion else {
            throw LayoutStateDecodingError(
                offset: 1, message: "cover flow state version \(version) is not supported (expected version 1).")
        }
        let flags = try reader.byte(what: "flags")
        guard flags & ~3 == 0 else {
            throw LayoutStateDecodingError(offset: 2, message: "cover flow state flags \(flags) have unknown bits set.")
        }
        previousMaxX = flags & 2 == 2 ? try reader.double(what: "previousMaxX") : nil
        isSectionOpen = flags & 1 == 1
        imagesInSection = try reader.count(what: "imagesInSection")
        guard reader.remaining == 0 else {
            throw LayoutStateDecodingError(
                offset: reader.offset, message: "cover flow state has \(reader.remaining) bytes too many.")
        }
    }
}

extension Frame {
    /// The frame with its axes swapped: `x` ↔ `y`, `width` ↔ `height`.
    public var transposed: Frame {
        Frame(x: y, y: x, width: height, height: width)
    }
}
