/// The fields both kinds of layout have (a waterfall's ``LayoutConfiguration`` and justified
/// rows' ``JustifiedConfiguration``): written once here, placed by each kind's table.
public protocol CommonLayoutFields: Sendable {
    var width: Double { get set }
    var columnSpacing: Double { get set }
    var rowSpacing: Double { get set }
    var sectionInset: EdgeInsets { get set }
    var headerHeight: Double { get set }
    var footerHeight: Double { get set }
    var headerInset: EdgeInsets { get set }
    var footerInset: EdgeInsets { get set }
    var captionHeight: Double { get set }
    var minimumContentHeight: Double { get set }
    var scale: Int { get set }
}

extension ConfigurationField where Root: CommonLayoutFields {
    static var width: Self {
        Self(
            "width", \.width, default: nil, range: .positiveLength, valueName: "points",
            help: "Width of the whole layout in points.")
    }

    static func columnSpacing(help: String) -> Self {
        Self("columnSpacing", \.columnSpacing, default: 10, range: .length, valueName: "points", help: help)
    }

    static func rowSpacing(help: String) -> Self {
        Self("rowSpacing", \.rowSpacing, default: 10, range: .length, valueName: "points", help: help)
    }

    /// Each section's insets, header, footer and captions, and the least content height, in
    /// this order.
    static var chrome: [Self] {
        [
            Self(
                "sectionInset", \.sectionInset, default: EdgeInsets(all: 10), range: .length, valueName: "t,l,b,r",
                help: "Space around each section's images, in points."),
            Self(
                "headerHeight", \.headerHeight, default: 0, range: .length, valueName: "points",
                help: "Height of each section's header in points; 0 means no header."),
            Self(
                "footerHeight", \.footerHeight, default: 0, range: .length, valueName: "points",
                help: "Height of each section's footer in points; 0 means no footer."),
            Self(
                "headerInset", \.headerInset, default: .zero, range: .length, valueName: "t,l,b,r",
                help: "Space around each header, in points."),
            Self(
                "footerInset", \.footerInset, default: .zero, range: .length, valueName: "t,l,b,r",
                help: "Space around each footer, in points."),
            Self(
                "captionHeight", \.captionHeight, default: 0, range: .length, valueName: "points",
                help: "Height of the caption strip added under every image, in points."),
            Self(
                "minimumContentHeight", \.minimumContentHeight, default: 0, range: .length, valueName: "points",
                help: "The least content height reported, in points."),
        ]
    }

    static var scale: Self {
        Self(
            "scale", \.scale, default: 1, range: .oneOf([1, 2, 3]), valueName: "1|2|3",
            help: "Pixels per point of the pixel grid lengths snap down to.")
    }
}

extension LayoutConfiguration: FieldTable, CommonLayoutFields {
    /// DESIGN section 2's fields: the waterfall's field table.
    public static let fields: [ConfigurationField<Self>] =
        [
            ConfigurationField(
                "columns", \.columns, default: nil, range: .wholeNumbers(1...64), valueName: "n",
                help: "Number of columns."),
            .width,
            .columnSpacing(help: "Space between columns in points."),
            .rowSpacing(help: "Space between the images of a column in points."),
        ] + ConfigurationField.chrome + [
            ConfigurationField(
                "order", \.order, default: PlacementOrder.shortest, valueName: "order",
                help:
                    "How ordinary images choose their column: the shortest, or round robin from the left or the right."),
            .scale,
        ]

    public static let sortedFields = fields.sorted { $0.key < $1.key }
    public static let defaults = withDefaults()

    public static var blank: Self {
        Self(
            columns: 0, width: 0, columnSpacing: 0, rowSpacing: 0, sectionInset: .zero, headerHeight: 0,
            footerHeight: 0,
            headerInset: .zero, footerInset: .zero, captionHeight: 0, minimumContentHeight: 0, order: .shortest,
            scale: 1)
    }
}

extension JustifiedConfiguration: FieldTable, CommonLayoutFields {
    /// DESIGN section 8's fields: justified rows' field table.
    public static let fields: [ConfigurationField<Self>] =
        [
            .width,
            ConfigurationField(
                "rowHeight", \.rowHeight, default: nil, range: .positiveLength, valueName: "points",
                help: "Height a row aims at in points."),
            ConfigurationField(
                "rowHeightTolerance", \.rowHeightTolerance, default: 0.25, range: .fraction, valueName: "fraction",
                help: "How far, as a fraction, a row's height may stray from the height it aims at."),
            .columnSpacing(help: "Space between the images of a row in points."),
            .rowSpacing(help: "Space between rows in points."),
            ConfigurationField(
                "lastRow", \.lastRow, default: LastRowStyle.left, valueName: "style",
                help:
                    "How a section's last row is placed when it is not full: left, center, or justified like the others."
            ),
        ] + ConfigurationField.chrome + [.scale]

    public static let sortedFields = fields.sorted { $0.key < $1.key }
    public static let defaults = withDefaults()

    public static var blank: Self {
        Self(
            width: 0, rowHeight: 0, rowHeightTolerance: 0, columnSpacing: 0, rowSpacing: 0, lastRow: .left,
            sectionInset: .zero, headerHeight: 0, footerHeight: 0, headerInset: .zero, footerInset: .zero,
            captionHeight: 0, minimumContentHeight: 0, scale: 1)
    }
}

extension CoverFlowConfiguration: FieldTable {
    /// The cover flow's field table (DESIGN section 2).
    public static let fields: [ConfigurationField<Self>] = [
        ConfigurationField(
            "itemHeight", \.itemHeight, default: nil, range: .positiveLength, valueName: "points",
            help: "Height of every image in points."),
        ConfigurationField(
            "spacing", \.spacing, default: 10, range: .length, valueName: "points",
            help: "Space between images in points."),
        ConfigurationField(
            "sectionInset", \.sectionInset, default: EdgeInsets(all: 10), range: .length, valueName: "t,l,b,r",
            help: "Space around the row, in points."),
        ConfigurationField(
            "factor", \.factor, default: 0.003, range: .nonNegative, valueName: "n",
            help: "How fast images shrink with their distance from the centre, per point."),
        ConfigurationField(
            "scale", \.scale, default: 1, range: .oneOf([1, 2, 3]), valueName: "1|2|3",
            help: "Pixels per point of the grid image widths snap down to."),
    ]

    public static let sortedFields = fields.sorted { $0.key < $1.key }
    public static let defaults = withDefaults()

    public static var blank: Self {
        Self(itemHeight: 0, spacing: 0, sectionInset: .zero, factor: 0, scale: 1)
    }
}
