/// Everything needed to resume a justified layout (DESIGN section 8).
///
/// DESIGN takes the state to resume at row starts: the section, `rowTop` and `prevH`. A row
/// start is where ``pendingItems`` is empty (``isAtRowStart``); a state saved there and handed
/// back to ``JustifiedLayout`` continues exactly as an uninterrupted run would, and serializes
/// to under 40 bytes. A state saved between row starts also resumes exactly: it carries the
/// images of the row being gathered, whose frames are not known yet. Lengths are in points.
/// Persist it with ``serialized()`` (compact binary) or `Codable`.
public struct JustifiedState: Hashable, Codable, Sendable {
    /// DESIGN's `y`: while a section is open, where its images start (below its header and
    /// `sectionInset.top`); between sections, the bottom of everything laid out so far.
    public var y: Double
    /// DESIGN's `rowTop`: the top of the next row (or banner) of the open section.
    public var rowTop: Double
    /// DESIGN's `prevH`: the height (without caption) of the open section's last justified row,
    /// `nil` at the section's start and after a banner.
    public var previousRowHeight: Double?
    /// DESIGN's `pending`: ordinary images appended to the open section whose row is not closed
    /// yet, in catalog order. Empty at a row start.
    public internal(set) var pendingItems: [LayoutItem]
    /// `sum(a)` over ``pendingItems``, added left to right from 0 (kept so that appending costs
    /// O(1); always recomputed the same way, so it never differs between equal item lists).
    var pendingAspectSum: Double
    /// All images, banners and pending ones included, appended to the open section.
    public var imagesInSection: Int
    /// Whether a section is open (between ``JustifiedLayout/openSection(_:)`` and
    /// ``JustifiedLayout/closeSection(_:_:)``).
    public var isSectionOpen: Bool
    /// `y` at the moment the open (or last opened) section was opened, before `headerInset.top`.
    public var sectionStartY: Double

    /// Creates a state from its parts; ``JustifiedLayout/initialState`` is the usual start.
    /// O(pending).
    public init(
        y: Double = 0,
        rowTop: Double = 0,
        previousRowHeight: Double? = nil,
        pendingItems: [LayoutItem] = [],
        imagesInSection: Int = 0,
        isSectionOpen: Bool = false,
        sectionStartY: Double = 0
    ) {
        self.y = y
        self.rowTop = rowTop
        self.previousRowHeight = previousRowHeight
        self.pendingItems = pendingItems
        self.pendingAspectSum = Self.aspectSum(pendingItems)
        self.imagesInSection = imagesInSection
        self.isSectionOpen = isSectionOpen
        self.sectionStartY = sectionStartY
    }

    /// Whether no image waits for its row: DESIGN's checkpoints are taken here. O(1).
    public var isAtRowStart: Bool {
        pendingItems.isEmpty
    }

    /// Images appended to the open section whose frames are not known yet:
    /// `pendingItems.count`. The open section's images `0..<imagesInSection - pendingCount`
    /// have had their frames reported. O(1).
    public var pendingCount: Int {
        pendingItems.count
    }

    /// `a(image) = w / h`, DESIGN's aspect ratio, as every path of the engine computes it.
    @inline(__always)
    static func aspect(_ item: LayoutItem) -> Double {
        Double(item.width) / Double(item.height)
    }

    /// `sum(a)` added left to right from 0, as the engine accumulates it.
    static func aspectSum(_ items: [LayoutItem]) -> Double {
        var sum = 0.0
        for item in items {
            sum += aspect(item)
        }
        return sum
    }

    /// Replaces the pending images (engine use). O(1) amortized.
    @inline(__always)
    mutating func setPending(_ item: LayoutItem, sum: Double) {
        pendingItems.removeAll(keepingCapacity: true)
        pendingItems.append(item)
        pendingAspectSum = sum
    }

    /// Empties the pending images, keeping their storage (engine use). O(pending).
    @inline(__always)
    mutating func clearPending() {
        pendingItems.removeAll(keepingCapacity: true)
        pendingAspectSum = 0
    }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey {
        case y, rowTop, previousRowHeight, pending, imagesInSection, isSectionOpen, sectionStartY
    }

    /// Decodes a state; `pending` is a list of `[width, height]` pixel pairs.
    ///
    /// - Throws: `DecodingError` when a field is missing or has the wrong type, or a pending
    ///   pair does not hold exactly two numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pairs = try container.decode([[Int32]].self, forKey: .pending)
        var items: [LayoutItem] = []
        items.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .pending, in: container,
                    debugDescription: "a pending image must be a [width, height] pair, got \(pair.count) numbers.")
            }
            items.append(LayoutItem(width: pair[0], height: pair[1]))
        }
        self.init(
            y: try container.decode(Double.self, forKey: .y),
            rowTop: try container.decode(Double.self, forKey: .rowTop),
            previousRowHeight: try container.decodeIfPresent(Double.self, forKey: .previousRowHeight),
            pendingItems: items,
            imagesInSection: try container.decode(Int.self, forKey: .imagesInSection),
            isSectionOpen: try container.decode(Bool.self, forKey: .isSectionOpen),
            sectionStartY: try container.decode(Double.self, forKey: .sectionStartY))
    }

    /// Encodes every field; `previousRowHeight` only when set, `pending` as `[width, height]` pairs.
    ///
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(y, forKey: .y)
        try container.encode(rowTop, forKey: .rowTop)
        try container.encodeIfPresent(previousRowHeight, forKey: .previousRowHeight)
        try container.encode(pendingItems.map { [$0.width, $0.height] }, forKey: .pending)
        try container.encode(imagesInSection, forKey: .imagesInSection)
        try container.encode(isSectionOpen, forKey: .isSectionOpen)
        try container.encode(sectionStartY, forKey: .sectionStartY)
    }
}

// MARK: - Binary form

extension JustifiedState {
    /// The byte that starts every serialized justified state (`J`), so that bytes of another
    /// layout kind's state (a ``LayoutState`` starts with its version, 1) are never mistaken
    /// for one.
    static let serializationTag: UInt8 = 0x4A
    /// The version byte that follows the tag.
    static let serializationVersion: UInt8 = 1

    /// A compact, tagged, versioned, little-endian binary form of the state, for persistence.
    ///
    /// Layout (version 1): tag byte `0x4A` (`J`); version byte `1`; flags byte (bit 0: a
    /// section is open; bit 1: `previousRowHeight` is present); `y`, `sectionStartY` and
    /// `rowTop` as IEEE-754 binary64 bit patterns, 8 bytes each; `previousRowHeight` likewise
    /// when present; `imagesInSection` (zigzag LEB128); the number of pending images (LEB128);
    /// then each pending image's width and height (zigzag LEB128). At a row start after a
    /// justified row, 37 bytes plus one per 7 bits of `2 × imagesInSection` beyond the first
    /// (38 up to 8,191 images). Doubles keep their exact bits. O(pending).
    public func serialized() -> [UInt8] {
        var writer = StateByteWriter()
        writer.bytes.reserveCapacity(40 + 6 * pendingItems.count)
        writer.bytes.append(Self.serializationTag)
        writer.bytes.append(Self.serializationVersion)
        writer.bytes.append((isSectionOpen ? 1 : 0) | (previousRowHeight == nil ? 0 : 2))
        writer.double(y)
        writer.double(sectionStartY)
        writer.double(rowTop)
        if let previousRowHeight { writer.double(previousRowHeight) }
        writer.varint(StateByteWriter.zigzag(Int64(imagesInSection)))
        writer.varint(UInt64(pendingItems.count))
        for item in pendingItems {
            writer.varint(StateByteWriter.zigzag(Int64(item.width)))
            writer.varint(StateByteWriter.zigzag(Int64(item.height)))
        }
        return writer.bytes
    }

    /// Decodes a state written by ``serialized()``.
    ///
    /// Rejects, without trapping, anything that is not exactly one serialized justified state:
    /// an empty, truncated or over-long input, another tag (such as a waterfall
    /// ``LayoutState``), an unknown version, unknown flag bits, a malformed or negative count,
    /// a pending count the bytes cannot hold, or a pixel size outside `Int32`. O(bytes).
    ///
    /// - Throws: ``LayoutStateDecodingError`` saying what was wrong and at which byte offset.
    public init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError) {
        var reader = StateByteReader(Array(bytes), subject: "justified layout state")
        let tag = try reader.byte(what: "tag")
        guard tag == Self.serializationTag else {
            throw LayoutStateDecodingError(
                offset: 0,
                message:
                    "these bytes are not a justified layout state (first byte \(tag), expected \(Self.serializationTag))."
            )
        }
        let version = try reader.byte(what: "version")
        guard version == Self.serializationVersion else {
            throw LayoutStateDecodingError(
                offset: 1, message: "justified layout state version \(version) is not supported (expected version 1).")
        }
        let flags = try reader.byte(what: "flags")
        guard flags & ~3 == 0 else {
            throw LayoutStateDecodingError(
                offset: 2, message: "justified layout state flags \(flags) have unknown bits set.")
        }
        let y = try reader.double(what: "y")
        let sectionStartY = try reader.double(what: "sectionStartY")
        let rowTop = try reader.double(what: "rowTop")
        let previousRowHeight = flags & 2 == 2 ? try reader.double(what: "previousRowHeight") : nil
        let images = try reader.count(what: "imagesInSection")
        let countOffset = reader.offset
        let pendingCount = try reader.varint(what: "pending count")
        // Each pending image takes at least two bytes.
        guard pendingCount <= UInt64(reader.remaining / 2) else {
            throw LayoutStateDecodingError(
                offset: countOffset,
                message: "justified layout state declares \(pendingCount) pending images but only "
                    + "\(reader.remaining) bytes follow (at least 2 per image).")
        }
        var items: [LayoutItem] = []
        items.reserveCapacity(Int(pendingCount))
        for _ in 0..<pendingCount {
            let width = try reader.int32(what: "pending image width")
            let height = try reader.int32(what: "pending image height")
            items.append(LayoutItem(width: width, height: height))
        }
        guard reader.remaining == 0 else {
            throw LayoutStateDecodingError(
                offset: reader.offset,
                message:
                    "justified layout state has \(reader.remaining) unexpected bytes after its end at byte \(reader.offset)."
            )
        }
        self.init(
            y: y, rowTop: rowTop, previousRowHeight: previousRowHeight, pendingItems: items,
            imagesInSection: images, isSectionOpen: flags & 1 == 1, sectionStartY: sectionStartY)
    }
}

/// Appends the fields of a serialized ``JustifiedState``.
