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

    /// Creates a configuration; DESIGN's defaults apply to every parameter left out.
    ///
    /// Does not validate: call ``validate()`` or pass it to ``WaterfallLayout/init(_:)``.
    public init(
        columns: Int,
        width: Double,
        columnSpacing: Double = 10,
        rowSpacing: Double = 10,
        sectionInset: EdgeInsets = EdgeInsets(all: 10),
        headerHeight: Double = 0,
        footerHeight: Double = 0,
        headerInset: EdgeInsets = .zero,
        footerInset: EdgeInsets = .zero,
        captionHeight: Double = 0,
        minimumContentHeight: Double = 0,
        order: PlacementOrder = .shortest,
        scale: Int = 1
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
        guard (1...64).contains(columns) else {
            throw LayoutConfigurationError(
                field: "columns", message: "columns must be a whole number from 1 to 64, got \(columns).")
        }
        try LayoutConfigurationError.checkPositiveLength(width, field: "width")
        try LayoutConfigurationError.checkLength(columnSpacing, field: "columnSpacing")
        try LayoutConfigurationError.checkLength(rowSpacing, field: "rowSpacing")
        try LayoutConfigurationError.checkInsets(sectionInset, field: "sectionInset")
        try LayoutConfigurationError.checkLength(headerHeight, field: "headerHeight")
        try LayoutConfigurationError.checkLength(footerHeight, field: "footerHeight")
        try LayoutConfigurationError.checkInsets(headerInset, field: "headerInset")
        try LayoutConfigurationError.checkInsets(footerInset, field: "footerInset")
        try LayoutConfigurationError.checkLength(captionHeight, field: "captionHeight")
        try LayoutConfigurationError.checkLength(minimumContentHeight, field: "minimumContentHeight")
        try LayoutConfigurationError.checkScale(scale)
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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case columns, width, columnSpacing, rowSpacing, sectionInset, headerHeight, footerHeight
        case headerInset, footerInset, captionHeight, minimumContentHeight, order, scale
    }

    /// Decodes a configuration; `columns` and `width` are required, every other field defaults.
    ///
    /// - Throws: `DecodingError` when a required field is missing or a field has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = LayoutConfiguration(
            columns: try container.decode(Int.self, forKey: .columns),
            width: try container.decode(Double.self, forKey: .width))
        self.init(
            columns: defaults.columns,
            width: defaults.width,
            columnSpacing: try container.decodeIfPresent(Double.self, forKey: .columnSpacing) ?? defaults.columnSpacing,
            rowSpacing: try container.decodeIfPresent(Double.self, forKey: .rowSpacing) ?? defaults.rowSpacing,
            sectionInset: try container.decodeIfPresent(EdgeInsets.self, forKey: .sectionInset)
                ?? defaults.sectionInset,
            headerHeight: try container.decodeIfPresent(Double.self, forKey: .headerHeight) ?? defaults.headerHeight,
            footerHeight: try container.decodeIfPresent(Double.self, forKey: .footerHeight) ?? defaults.footerHeight,
            headerInset: try container.decodeIfPresent(EdgeInsets.self, forKey: .headerInset) ?? defaults.headerInset,
            footerInset: try container.decodeIfPresent(EdgeInsets.self, forKey: .footerInset) ?? defaults.footerInset,
            captionHeight: try container.decodeIfPresent(Double.self, forKey: .captionHeight)
                ?? defaults.captionHeight,
            minimumContentHeight: try container.decodeIfPresent(Double.self, forKey: .minimumContentHeight)
                ?? defaults.minimumContentHeight,
            order: try container.decodeIfPresent(PlacementOrder.self, forKey: .order) ?? defaults.order,
            scale: try container.decodeIfPresent(Int.self, forKey: .scale) ?? defaults.scale)
    }

    /// Encodes every field, defaults included, under the property names.
    ///
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(columns, forKey: .columns)
        try container.encode(width, forKey: .width)
        try container.encode(columnSpacing, forKey: .columnSpacing)
        try container.encode(rowSpacing, forKey: .rowSpacing)
        try container.encode(sectionInset, forKey: .sectionInset)
        try container.encode(headerHeight, forKey: .headerHeight)
        try container.encode(footerHeight, forKey: .footerHeight)
        try container.encode(headerInset, forKey: .headerInset)
        try container.encode(footerInset, forKey: .footerInset)
        try container.encode(captionHeight, forKey: .captionHeight)
        try container.encode(minimumContentHeight, forKey: .minimumContentHeight)
        try container.encode(order, forKey: .order)
        try container.encode(scale, forKey: .scale)
    }
}
