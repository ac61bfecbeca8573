/// The waterfall (masonry) layout engine of DESIGN section 2: configuration in, frames out.
///
/// A value type with no IO. It works incrementally on a ``LayoutState``: ``openSection(_:)``,
/// then ``place(_:_:)`` for each image of the section, then ``closeSection(_:)``, and finally
/// ``contentHeight(_:)``. A state saved at any point resumes exactly. ``layout(_:)`` does a
/// whole in-memory feed; the bulk ``place(_:into:_:)`` is the fast path for long runs.
///
/// The arithmetic follows DESIGN literally, operation by operation, so that any faithful
/// implementation gives the same frames bit for bit: lengths are `Double` points, image sizes
/// are pixels, and every image height is `grid(itemWidth * h / w) + captionHeight`.
public struct WaterfallLayout: Sendable {
    /// The validated configuration this layout applies.
    public let configuration: LayoutConfiguration

    /// `configuration.contentWidth`, computed once.
    let contentWidth: Double
    /// `configuration.itemWidth`, computed once.
    let itemWidth: Double
    /// The left edge of each column: `sectionInset.left + c * (itemWidth + columnSpacing)`.
    let columnX: [Double]
    /// `columnX` padded with zeros to 64 entries, so the bulk path can index it with any
    /// 6-bit column number without a bounds check.
    let paddedColumnX: [Double]
    /// `Double(configuration.scale)`.
    let scale: Double

    /// Creates a layout after validating `configuration`. O(columns).
    ///
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds (see
    ///   ``LayoutConfiguration/validate()``).
    public init(_ configuration: LayoutConfiguration) throws(LayoutConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        contentWidth = configuration.contentWidth
        itemWidth = configuration.itemWidth
        scale = Double(configuration.scale)
        let step = itemWidth + configuration.columnSpacing
        let left = configuration.sectionInset.left
        columnX = (0..<configuration.columns).map { left + Double($0) * step }
        paddedColumnX = columnX + Array(repeating: 0, count: 64 - columnX.count)
    }

    /// The state before the first section: `y = 0`, no section open.
    public var initialState: LayoutState {
        LayoutState()
    }

    /// Opens a section at `state.y`: places its header and sets every column bottom to the
    /// top of its first image row.
    ///
    /// Returns the header's frame (points; `headerInset.left` from the left edge, as wide as
    /// the layout minus the header insets), or `nil` when `headerHeight` is 0. O(columns).
    /// Precondition: no section is open in `state`.
    public func openSection(_ state: inout LayoutState) -> Frame? {
        precondition(!state.isSectionOpen, "openSection called while a section is open")
        state.sectionStartY = state.y
        let (header, contentTop) = configuration.chrome.open(at: state.y)
        state.y = contentTop
        state.columnBottoms = Array(repeating: state.y, count: configuration.columns)
        state.placedInSection = 0
        state.imagesInSection = 0
        state.isSectionOpen = true
        return header
    }

    /// The natural header frame of a section opened at `sectionStartY` (points), or `nil` when
    /// `headerHeight` is 0. The same frame ``openSection(_:)`` returns. O(1).
    public func headerFrame(sectionStartY: Double) -> Frame? {
        configuration.chrome.headerFrame(sectionStartY: sectionStartY)
    }

    /// Places one image in the open section and returns its frame, in points.
    ///
    /// A full-span image goes under the lowest column, across the content width; an ordinary
    /// one goes in the column the configured ``PlacementOrder`` picks. Height is
    /// `grid(width * h / w) + captionHeight`. O(columns). Precondition: a section is open.
    public func place(_ item: LayoutItem, _ state: inout LayoutState) -> Frame {
        precondition(state.isSectionOpen, "place called with no open section")
        precondition(state.columnBottoms.count == configuration.columns, "state has another column count")
        let config = configuration
        let frame: Frame
        if item.isFullSpan {
            let top = Self.maximum(state.columnBottoms)
            frame = Frame(
                x: config.sectionInset.left, y: top, width: contentWidth,
                height: gridLength(contentWidth, item) + config.captionHeight)
            let bottom = frame.maxY + config.rowSpacing
            for column in state.columnBottoms.indices {
                state.columnBottoms[column] = bottom
            }
        } else {
            let column = self.column(for: state)
            frame = Frame(
                x: columnX[column], y: state.columnBottoms[column], width: itemWidth,
                height: gridLength(itemWidth, item) + config.captionHeight)
            state.columnBottoms[column] = frame.maxY + config.rowSpacing
            state.placedInSection += 1
        }
        state.imagesInSection += 1
        return frame
    }

    /// Closes the open section: ends it under its lowest image plus `sectionInset.bottom`,
    /// then places its footer.
    ///
    /// Returns the footer (or `nil` when `footerHeight` is 0) and the section's end in points.
    /// Leaves `state.y` below the footer and no section open. O(columns).
    /// Precondition: a section is open.
    public func closeSection(_ state: inout LayoutState) -> SectionEnd {
        precondition(state.isSectionOpen, "closeSection called with no open section")
        let config = configuration
        if state.imagesInSection > 0 {
            state.y = Self.maximum(state.columnBottoms) - config.rowSpacing
        }
        state.y += config.sectionInset.bottom
        let sectionEnd = state.y
        let footer = footer(below: sectionEnd)
        state.y = footer.end
        state.columnBottoms = []
        state.placedInSection = 0
        state.imagesInSection = 0
        state.isSectionOpen = false
        return SectionEnd(footer: footer.frame, sectionEnd: sectionEnd)
    }

    /// The footer of a section whose content ends at `sectionEnd` (points: the bottom of its
    /// last image plus `sectionInset.bottom`), or `nil` when `footerHeight` is 0, and the `y`
    /// below it where the next section opens: what ``closeSection(_:)`` places, bit for bit.
    public func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double) {
        configuration.chrome.footer(below: sectionEnd)
    }

    /// The height of the whole content, in points: `max(state.y, minimumContentHeight)`.
    ///
    /// O(1). Precondition: no section is open (close the last one first).
    public func contentHeight(_ state: LayoutState) -> Double {
        precondition(!state.isSectionOpen, "contentHeight called while a section is open")
        return max(state.y, configuration.minimumContentHeight)
    }

    /// Where a section's header is drawn when headers are pinned under `pinOffset` points
    /// from the top of a viewport at `viewportY`.
    ///
    /// `y = min(max(viewportY + pinOffset, natural.y), sectionEnd - headerHeight)`: the header
    /// sticks under the pin offset while its section is on screen and is pushed up by the
    /// section's end. `isPinned` is true when `y` differs from `natural.y`. O(1).
    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        configuration.chrome.pinnedHeader(
            natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }

    // MARK: - Arithmetic shared by every path

    /// `grid(width * h / w)` for an image, evaluated as `(width * h) / w` then snapped, the
    /// literal way (the bulk path computes the same value with a faster floor).
    @inline(__always)
    func gridLength(_ width: Double, _ item: LayoutItem) -> Double {
        configuration.grid((width * Double(item.height)) / Double(item.width))
    }

    /// The column the next ordinary image of the open section goes to.
    @inline(__always)
    func column(for state: LayoutState) -> Int {
        let columns = configuration.columns
        switch configuration.order {
        case .shortest:
            return Self.shortestColumn(state.columnBottoms)
        case .leftToRight:
            return state.placedInSection % columns
        case .rightToLeft:
            return columns - 1 - state.placedInSection % columns
        }
    }

    /// The index of the smallest value, the lowest index on ties.
    static func shortestColumn(_ bottoms: [Double]) -> Int {
        var best = 0
        var bestValue = bottoms[0]
        for index in 1..<bottoms.count where bottoms[index] < bestValue {
            best = index
            bestValue = bottoms[index]
        }
        return best
    }

    /// The largest value.
    static func maximum(_ values: [Double]) -> Double {
        var result = values[0]
        for value in values.dropFirst() where value > result {
            result = value
        }
        return result
    }
}
