/// Everything that determines a justified-rows layout (DESIGN section 8), with DESIGN's
/// defaults.
///
/// Images sit in rows of equal height that fill the content width `W = width -
/// sectionInset.left - sectionInset.right`, as Flickr, Google Photos and Immich show photos; a
/// row aims at ``rowHeight`` and may end up from half to twice as tall. Sections, headers,
/// footers, insets, captions, ``minimumContentHeight`` and ``scale`` mean exactly what they
/// mean for the waterfall (DESIGN section 2, ``LayoutConfiguration``).
///
/// All lengths are in points. Two equal configurations always give identical frames, so a
/// configuration is also the key of a cached layout: it encodes to JSON with every field
/// present, under the property names, and decodes with missing optional fields set to their
/// defaults (only `width` and `rowHeight` are required). Decoding refuses the waterfall-only
/// fields `columns` and `order`. Decoding does not validate: call ``validate()`` or
/// ``JustifiedLayout/init(_:)``.
public struct JustifiedConfiguration: Hashable, Codable, Sendable {
    /// Width of the whole layout, in points, greater than 0 and at most 1,000,000.
    public var width: Double
    /// DESIGN's `T`: the height a row aims at, in points, greater than 0 and at most 1,000,000.
    /// Rows end up `grid`-snapped within `[0.5 × T, 2 × T]`.
    public var rowHeight: Double
    /// DESIGN's `tol`: how far, as a fraction, a row's summed aspect ratio may fall short of or
    /// exceed `W / T` and still close the row, 0...1. Default 0.25.
    public var rowHeightTolerance: Double
    /// DESIGN's `s`: horizontal gap between images of a row, in points, 0...1,000,000. Default 10.
    public var columnSpacing: Double
    /// DESIGN's `r`: vertical gap between rows (and banners), in points, 0...1,000,000. Default 10.
    public var rowSpacing: Double
    /// How a section's last row (and a row cut short by a banner) is placed. Default
    /// ``LastRowStyle/left``.
    public var lastRow: LastRowStyle
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
    /// Pixels per point of the pixel grid lengths snap down to: 1, 2 or 3. Default 1.
    public var scale: Int

    /// Creates a configuration; the field table's defaults (``fields``) apply to every parameter
    /// left out.
    ///
    /// Does not validate: call ``validate()`` or pass it to ``JustifiedLayout/init(_:)``.
    public init(
        width: Double,
        rowHeight: Double,
        rowHeightTolerance: Double = defaults.rowHeightTolerance,
        columnSpacing: Double = defaults.columnSpacing,
        rowSpacing: Double = defaults.rowSpacing,
        lastRow: LastRowStyle = defaults.lastRow,
        sectionInset: EdgeInsets = defaults.sectionInset,
        headerHeight: Double = defaults.headerHeight,
        footerHeight: Double = defaults.footerHeight,
        headerInset: EdgeInsets = defaults.headerInset,
        footerInset: EdgeInsets = defaults.footerInset,
        captionHeight: Double = defaults.captionHeight,
        minimumContentHeight: Double = defaults.minimumContentHeight,
        scale: Int = defaults.scale
    ) {
        self.width = width
        self.rowHeight = rowHeight
        self.rowHeightTolerance = rowHeightTolerance
        self.columnSpacing = columnSpacing
        self.rowSpacing = rowSpacing
        self.lastRow = lastRow
        self.sectionInset = sectionInset
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.headerInset = headerInset
        self.footerInset = footerInset
        self.captionHeight = captionHeight
        self.minimumContentHeight = minimumContentHeight
        self.scale = scale
    }

    /// Checks every bound a layout relies on and throws the first value outside them.
    ///
    /// Bounds: `width` and `rowHeight` greater than 0 and at most 1,000,000;
    /// `rowHeightTolerance` in 0...1; `columnSpacing`, `rowSpacing`, every side of
    /// `sectionInset`, `headerInset` and `footerInset`, `headerHeight`, `footerHeight`,
    /// `captionHeight` and `minimumContentHeight` finite and in 0...1,000,000; `scale` 1, 2 or
    /// 3; then ``contentWidth`` greater than 0 (field `contentWidth`: the section insets are
    /// wider than the view). Checked in that order. O(1).
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
    }

    /// DESIGN's `W`, the width every full row spans, in points:
    /// `width - sectionInset.left - sectionInset.right`. O(1).
    public var contentWidth: Double {
        width - sectionInset.left - sectionInset.right
    }

    /// DESIGN's `minAR = W / T × (1 - tol)`: a row whose aspect ratios sum to less stays open.
    /// O(1).
    public var minimumAspectRatio: Double {
        contentWidth / rowHeight * (1 - rowHeightTolerance)
    }

    /// DESIGN's `maxAR = W / T × (1 + tol)`: a row whose aspect ratios sum to more is too
    /// full (see ``JustifiedLayout``). O(1).
    public var maximumAspectRatio: Double {
        contentWidth / rowHeight * (1 + rowHeightTolerance)
    }

    /// Snaps a length in points down to the pixel grid: `floor(value * scale) / scale`. O(1).
    public func grid(_ value: Double) -> Double {
        let scale = Double(scale)
        return (value * scale).rounded(.down) / scale
    }

    private func format(_ value: Double) -> String {
        LayoutConfigurationError.format(value)
    }

    /// The waterfall-only fields a justified configuration refuses.
    private enum RefusedKeys: String, CodingKey, CaseIterable {
        case columns, order
    }

    /// Decodes a configuration by its field table: `width` and `rowHeight` are required, every
    /// other field defaults, and the waterfall's `columns` and `order` are refused (DESIGN
    /// section 8).
    ///
    /// - Throws: ``ConfigurationKeyError`` when `columns` or `order` is present; `DecodingError`
    ///   when a required field is missing, a field has the wrong type, or `lastRow` is not
    ///   `left`, `center` or `justify`.
    public init(from decoder: any Decoder) throws {
        let refused = try decoder.container(keyedBy: RefusedKeys.self)
        for key in RefusedKeys.allCases where refused.contains(key) {
            throw ConfigurationKeyError(key: key.stringValue, kind: .justified, owner: .waterfall)
        }
        try self.init(fieldsOf: decoder)
    }

    /// Encodes every field, defaults included, in the field table's order.
    ///
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try encodeFields(to: encoder)
    }
}
