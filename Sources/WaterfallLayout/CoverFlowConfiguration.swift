/// Everything that determines a cover-flow layout (DESIGN section 2), with its defaults.
///
/// Images sit in one row, `itemHeight` tall, `spacing` apart, after `sectionInset.left`;
/// images away from the viewport's centre shrink by `factor`. All lengths are in points.
/// Encodes every field; decodes with everything but `itemHeight` optional. Decoding does not
/// validate: call ``validate()`` or ``CoverFlowLayout/init(_:)``.
public struct CoverFlowConfiguration: Hashable, Codable, Sendable {
    /// The height of every image, in points, greater than 0 and at most 1,000,000.
    public var itemHeight: Double
    /// The horizontal gap between images, in points, 0...1,000,000. Default 10.
    public var spacing: Double
    /// Space around the row, in points, each side 0...1,000,000. Default 10 each.
    public var sectionInset: EdgeInsets
    /// How fast images shrink with their distance from the centre, per point; finite, ≥ 0.
    /// Default 0.003.
    public var factor: Double
    /// Pixels per point of the grid image widths snap down to: 1, 2 or 3. Default 1.
    public var scale: Int

    /// Creates a configuration; the field table's defaults (``fields``) apply to every parameter
    /// left out. Does not validate.
    public init(
        itemHeight: Double, spacing: Double = defaults.spacing, sectionInset: EdgeInsets = defaults.sectionInset,
        factor: Double = defaults.factor, scale: Int = defaults.scale
    ) {
        self.itemHeight = itemHeight
        self.spacing = spacing
        self.sectionInset = sectionInset
        self.factor = factor
        self.scale = scale
    }

    /// Checks every bound and throws the first value outside them.
    ///
    /// Bounds: `itemHeight` greater than 0 and at most 1,000,000; `spacing` and every side of
    /// `sectionInset` finite and in 0...1,000,000; `factor` finite and ≥ 0; `scale` 1, 2 or 3.
    /// Checked in that order. O(1).
    ///
    /// - Throws: ``LayoutConfigurationError`` naming the field, the allowed range and the value.
    public func validate() throws(LayoutConfigurationError) {
        try checkFields()
    }

    /// Snaps a length in points down to the pixel grid: `floor(value * scale) / scale`. O(1).
    public func grid(_ value: Double) -> Double {
        let scale = Double(scale)
        return (value * scale).rounded(.down) / scale
    }

    /// Decodes a configuration by its field table; `itemHeight` is required, every other field
    /// defaults.
    ///
    /// - Throws: `DecodingError` when `itemHeight` is missing or a field has the wrong type.
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
