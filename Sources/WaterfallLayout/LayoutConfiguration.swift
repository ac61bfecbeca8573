/// Everything that determines a waterfall layout (DESIGN section 2), with DESIGN's defaults.
///
/// All lengths are in points. Two equal configurations always give identical frames, so a
/// configuration is also the key of a cached layout: it encodes to JSON with every field
/// present, under the property names, and decodes with missing optional fields set to their
/// defaults (only `columns` and `width` are required). Decoding does not validate: call
/// ``validate()`` or ``WaterfallLayout/init(_:)``.
public struct LayoutConfiguration: Hashable, Codable, Sendable {
    /// Number of columns, 1...64.
    public var columns: Int
    /// Width of the whole layout, in points, greater than 0 and at most 1,000,000.
    public var width: Double
    /// Horizontal gap between columns, in points, 0...1,000,000. Default 10.
    public var columnSpacing: Double
    /// Vertical gap between images of a column, in points, 0...1,000,000. Default 10.
    public var rowSpacing: Double
    /// Space around each section's images, in points, each side 0...1,000,000. Default 10 each.
    public var sectionInset: EdgeInsets
    /// Height of each section's header, in points, 0...1,000,000; 0 means no header. Default 0.
    public var headerHeight: Double
    /// Height of each section's footer, in points, 0...1,000,000; 0 means no footer. Default 0.
    public var footerHeight: Double
    /// Space around each header, in points, each side 0...1,000,000. Default 0.
    public var headerInset: EdgeInsets
    /// Space around each footer, in points, each side 0...1,000,000. Default 0.
    public var footerInset: EdgeInsets
    /// A fixed strip added under every image (for titles), in points, 0...1,000,000. Default 0.
    public var captionHeight: Double
    /// The least content height reported, in points, 0...1,000,000. Default 0.
    public var minimumContentHeight: Double
    /// How ordinary images choose their column. Default ``PlacementOrder/shortest``.
    public var order: PlacementOrder
    /// Pixels per point of the pixel grid lengths snap down to: 1, 2 or 3. Default 1.
    public var scale: Int

    /// Creates a configuration; the field table's defaults (``fields``) apply to every parameter
    /// left out.
    ///
    /// Does not validate: call ``validate()`` or pass it to ``WaterfallLayout/init(_:)``.
    public init(
        columns: Int,
        width: Double,
        columnSpacing: Double = defaults.columnSpacing,
        rowSpacing: Double = defaults.rowSpacing,
        sectionInset: EdgeInsets = defaults.sectionInset,
        headerHeight: Double = defaults.headerHeight,
        footerHeight: Double = defaults.footerHeight,
        headerInset: EdgeInsets = defaults.headerInset,
        footerInset: EdgeInsets = defaults.footerInset,
        captionHeight: Double = defaults.captionHeight,
        minimumContentHeight: Double = defaults.minimumContentHeight,
        order: PlacementOrder = defaults.order,
        scale: Int = defaults.scale
    ) {
        self.columns = columns
        self.width = width
        self.columnSpacing = columnSpacing
        self.rowSpacing = rowSpacing
        self.sectionInset = sectionInset
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.headerInset = headerInset
        self.footerInset = footerInset
        self.captionHeight = captionHeight
        self.minimumContentHeight = minimumContentHeight
        self.order = order
        self.scale = scale
    }

    /// Checks every bound a layout relies on and throws the first value outside them.
    ///
    /// Bounds: `columns` 1...64; `width` greater than 0 and at most 1,000,000; `columnSpacing`,
    /// `rowSpacing`, every side of `sectionInset`, `headerInset` and `footerInset`,
    /// `headerHeight`, `footerHeight`, `captionHeight` and `minimumContentHeight` finite and
    /// in 0...1,000,000; `scale` 1, 2 or 3; then ``contentWidth`` greater than 0 (field
    /// `contentWidth`: the section insets are wider than the view) and ``itemWidth`` greater
    /// than 0 (field `itemWidth`: the column spacing leaves no room for the columns). Checked in
    /// that order. O(1).
    ///
    /// - Throws: ``LayoutConfigurationError`` naming the field, the allowed range and the value.
    public func validate() throws(LayoutConfigurationError) {
        try checkFields()
        let contentWidth = contentWidth
        guard contentWidth > 0 else {
            throw LayoutConfigurationError(
                field: "contentWidth",
                message: "contentWidth must be greater than 0, got \(format(contentWidth)) (width \(format(width)) "
                    + "minus sectionInset.left \(format(sectionInset.left)) and sectionInset.right "
                    + "\(format(sectionInset.right))): make width larger or sectionInset smaller.")
        }
        let itemWidth = itemWidth
        guard itemWidth > 0 else {
            throw LayoutConfigurationError(
                field: "itemWidth",
                message: "itemWidth must be greater than 0, got \(format(itemWidth)) (contentWidth "
                    + "\(format(contentWidth)) minus \(columns - 1) × columnSpacing \(format(columnSpacing)), "
                    + "divided by \(columns) columns): make width larger, or columnSpacing or columns smaller.")
        }
    }

    /// The width left for images inside the section insets, in points:
    /// `width - sectionInset.left - sectionInset.right`. O(1).
    public var contentWidth: Double {
        width - sectionInset.left - sectionInset.right
    }

    /// The width of one column, in points, snapped down to the pixel grid:
    /// `grid((contentWidth - (columns - 1) * columnSpacing) / columns)`. O(1).
    public var itemWidth: Double {
        grid((contentWidth - Double(columns - 1) * columnSpacing) / Double(columns))
    }

    /// Snaps a length in points down to the pixel grid: `floor(value * scale) / scale`. O(1).
    public func grid(_ value: Double) -> Double {
        let scale = Double(scale)
        return (value * scale).rounded(.down) / scale
    }

    private func format(_ value: Double) -> String {
        LayoutConfigurationError.format(value)
    }

    /// Decodes a configuration by its field table: `columns` and `width` are required, every
    /// other field defaults.
    ///
    /// - Throws: `DecodingError` when a required field is missing or a field has the wrong type.
    public init(from decoder: any Decoder) throws {
        try self.init(fieldsOf: decoder)
    }

    /// Encodes every field, defaults included, in the field table's order.
    ///
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try encodeFields(to: encoder)
    }
}
