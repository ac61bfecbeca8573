/// Everything needed to resume a waterfall layout after any image (DESIGN section 2).
///
/// The layout of images `0..<k` never depends on images after `k`, so a state saved after
/// image `k` and handed back to ``WaterfallLayout`` continues exactly as an uninterrupted run
/// would. Lengths are in points. Persist it with ``serialized()`` (compact binary) or `Codable`.
public struct LayoutState: Hashable, Codable, Sendable {
    /// DESIGN's `y`: while a section is open, where its images start (below its header and
    /// `sectionInset.top`); between sections, the bottom of everything laid out so far.
    public var y: Double
    /// DESIGN's `columnBottom`: per column, where that column's next image would start
    /// (the previous image's bottom plus `rowSpacing`). Empty when no section is open.
    public var columnBottoms: [Double]
    /// DESIGN's `k`: ordinary (not full-span) images placed in the open section.
    public var placedInSection: Int
    /// All images, full-span ones included, placed in the open section.
    public var imagesInSection: Int
    /// Whether a section is open (between ``WaterfallLayout/openSection(_:)`` and
    /// ``WaterfallLayout/closeSection(_:)``).
    public var isSectionOpen: Bool
    /// `y` at the moment the open (or last opened) section was opened, before `headerInset.top`.
    public var sectionStartY: Double

    /// Creates a state from its parts; ``WaterfallLayout/initialState`` is the usual start.
    public init(
        y: Double = 0,
        columnBottoms: [Double] = [],
        placedInSection: Int = 0,
        imagesInSection: Int = 0,
        isSectionOpen: Bool = false,
        sectionStartY: Double = 0
    ) {
        self.y = y
        self.columnBottoms = columnBottoms
        self.placedInSection = placedInSection
        self.imagesInSection = imagesInSection
        self.isSectionOpen = isSectionOpen
        self.sectionStartY = sectionStartY
    }
}

// MARK: - Binary form

extension LayoutState {
    /// The version byte that starts every serialized state.
    static let serializationVersion: UInt8 = 1

    /// A compact, versioned, little-endian binary form of the state, for persistence.
    ///
    /// Layout (version 1): version byte `1`; flags byte (bit 0: a section is open);
    /// `y` and `sectionStartY` as IEEE-754 binary64 bit patterns, 8 bytes each; then
    /// `placedInSection`, `imagesInSection` (zigzag LEB128) and the number of columns
    /// (LEB128); then one binary64 per column bottom. 21 + 8 × columns bytes for usual values.
    /// Doubles keep their exact bits. O(columns).
    public func serialized() -> [UInt8] {
        var writer = StateByteWriter()
        writer.bytes.reserveCapacity(24 + 8 * columnBottoms.count)
        writer.bytes.append(Self.serializationVersion)
        writer.bytes.append(isSectionOpen ? 1 : 0)
        writer.double(y)
        writer.double(sectionStartY)
        writer.varint(StateByteWriter.zigzag(Int64(placedInSection)))
        writer.varint(StateByteWriter.zigzag(Int64(imagesInSection)))
        writer.varint(UInt64(columnBottoms.count))
        for bottom in columnBottoms {
            writer.double(bottom)
        }
        return writer.bytes
    }

    /// Decodes a state written by ``serialized()``.
    ///
    /// Rejects, without trapping, anything that is not exactly one serialized state: an empty,
    /// truncated or over-long input, an unknown version, unknown flag bits, a malformed or
    /// negative count, or a column count the bytes cannot hold. O(bytes). (So a state with a
    /// negative count, which no layout produces, does not round-trip.)
    ///
    /// - Throws: ``LayoutStateDecodingError`` saying what was wrong and at which byte offset.
    public init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError) {
        var reader = StateByteReader(Array(bytes), subject: "layout state")
        let version = try reader.byte(what: "version")
        guard version == Self.serializationVersion else {
            throw LayoutStateDecodingError(
                offset: 0, message: "layout state version \(version) is not supported (expected version 1).")
        }
        let flags = try reader.byte(what: "flags")
        guard flags & ~1 == 0 else {
            throw LayoutStateDecodingError(offset: 1, message: "layout state flags \(flags) have unknown bits set.")
        }
        let y = try reader.double(what: "y")
        let sectionStartY = try reader.double(what: "sectionStartY")
        let placed = try reader.count(what: "placedInSection")
        let images = try reader.count(what: "imagesInSection")
        let countOffset = reader.offset
        let count = try reader.varint(what: "column count")
        guard count <= UInt64(reader.remaining / 8), count * 8 == UInt64(reader.remaining) else {
            throw LayoutStateDecodingError(
                offset: countOffset,
                message: "layout state declares \(count) columns but \(reader.remaining) bytes follow "
                    + "(expected 8 per column).")
        }
        var bottoms: [Double] = []
        bottoms.reserveCapacity(Int(count))
        for _ in 0..<count {
            bottoms.append(try reader.double(what: "column bottom"))
        }
        self.init(
            y: y, columnBottoms: bottoms, placedInSection: placed, imagesInSection: images,
            isSectionOpen: flags & 1 == 1, sectionStartY: sectionStartY)
    }
}
