import ArgumentParser
import Foundation
import Waterfall

extension PlacementOrder: ExpressibleByArgument {}
extension LayoutKind: ExpressibleByArgument {}
extension LastRowStyle: ExpressibleByArgument {}

/// The configuration flags of DESIGN sections 6 and 8, for every kind of layout.
struct ConfigurationOptions: ParsableArguments {
    @Option(help: "Kind of layout: waterfall (columns) or justified (rows) (default waterfall).")
    var kind: LayoutKind?

    @Option(parsing: .unconditional, help: "Number of columns, 1 to 64 (waterfall).")
    var columns: Int?

    @Option(parsing: .unconditional, help: "Width of the layout in points.")
    var width: Double?

    @Option(parsing: .unconditional, help: "Height a row aims at in points (justified).")
    var rowHeight: Double?

    @Option(parsing: .unconditional, help: "How far a row's height may stray from --row-height, 0 to 1 (justified; default 0.25).")
    var rowHeightTolerance: Double?

    @Option(help: "A section's last row: left, center or justify (justified; default left).")
    var lastRow: LastRowStyle?

    @Option(parsing: .unconditional, help: "Space between columns, or between the images of a row, in points (default 10).")
    var columnSpacing: Double?

    @Option(parsing: .unconditional, help: "Space between images of a column, or between rows, in points (default 10).")
    var rowSpacing: Double?

    @Option(help: ArgumentHelp("Section insets: one value for all four sides, or top,left,bottom,right (default 10).", valueName: "t,l,b,r"))
    var inset: String?

    @Option(parsing: .unconditional, help: "Height of each section's header in points; 0 means no header (default 0).")
    var headerHeight: Double?

    @Option(parsing: .unconditional, help: "Height of each section's footer in points; 0 means no footer (default 0).")
    var footerHeight: Double?

    @Option(help: ArgumentHelp("Insets around each header (default 0).", valueName: "t,l,b,r"))
    var headerInset: String?

    @Option(help: ArgumentHelp("Insets around each footer (default 0).", valueName: "t,l,b,r"))
    var footerInset: String?

    @Option(parsing: .unconditional, help: "Height of the caption strip under every image in points (default 0).")
    var captionHeight: Double?

    @Option(name: .customLong("min-content-height"), parsing: .unconditional, help: "Smallest content height in points (default 0).")
    var minimumContentHeight: Double?

    @Option(help: "Placement order: shortest, left-to-right or right-to-left (waterfall; default shortest).")
    var order: PlacementOrder?

    @Option(parsing: .unconditional, help: "Pixel grid: 1, 2 or 3 pixels per point (default 1).")
    var scale: Int?

    /// The flags' values.
    var flags: ConfigurationFlags {
        ConfigurationFlags(
            kind: kind, columns: columns, width: width, rowHeight: rowHeight, rowHeightTolerance: rowHeightTolerance,
            lastRow: lastRow, columnSpacing: columnSpacing, rowSpacing: rowSpacing, inset: inset,
            headerHeight: headerHeight, footerHeight: footerHeight, headerInset: headerInset, footerInset: footerInset,
            captionHeight: captionHeight, minimumContentHeight: minimumContentHeight, order: order, scale: scale)
    }

    /// The configuration the flags describe, validated.
    func configuration() throws -> AnyLayoutConfiguration {
        try flags.configuration()
    }
}

/// The values of the configuration flags, and what they mean.
struct ConfigurationFlags: Equatable {
    var kind: LayoutKind?
    var columns: Int?
    var width: Double?
    var rowHeight: Double?
    var rowHeightTolerance: Double?
    var lastRow: LastRowStyle?
    var columnSpacing: Double?
    var rowSpacing: Double?
    var inset: String?
    var headerHeight: Double?
    var footerHeight: Double?
    var headerInset: String?
    var footerInset: String?
    var captionHeight: Double?
    var minimumContentHeight: Double?
    var order: PlacementOrder?
    var scale: Int?

    /// Whether any configuration flag was given.
    var isGiven: Bool {
        self != ConfigurationFlags()
    }

    /// The configuration the flags describe, validated: a waterfall unless `--kind` says
    /// otherwise. A flag of another kind is refused with a sentence, never ignored.
    func configuration() throws -> AnyLayoutConfiguration {
        let kind = kind ?? .waterfall
        let configuration: AnyLayoutConfiguration
        switch kind {
        case .waterfall:
            try refuse(["--row-height": rowHeight, "--row-height-tolerance": rowHeightTolerance, "--last-row": lastRow], for: kind)
            guard let columns, let width else {
                throw ValidationError("a layout needs --columns and --width (or --layout NAME for a saved one).")
            }
            var waterfall = LayoutConfiguration(columns: columns, width: width)
            if let columnSpacing { waterfall.columnSpacing = columnSpacing }
            if let rowSpacing { waterfall.rowSpacing = rowSpacing }
            if let inset { waterfall.sectionInset = try Self.insets(inset, flag: "--inset") }
            if let headerHeight { waterfall.headerHeight = headerHeight }
            if let footerHeight { waterfall.footerHeight = footerHeight }
            if let headerInset { waterfall.headerInset = try Self.insets(headerInset, flag: "--header-inset") }
            if let footerInset { waterfall.footerInset = try Self.insets(footerInset, flag: "--footer-inset") }
            if let captionHeight { waterfall.captionHeight = captionHeight }
            if let minimumContentHeight { waterfall.minimumContentHeight = minimumContentHeight }
            if let order { waterfall.order = order }
            if let scale { waterfall.scale = scale }
            configuration = .waterfall(waterfall)
        case .justified:
            try refuse(["--columns": columns, "--order": order], for: kind)
            guard let width, let rowHeight else {
                throw ValidationError("a justified layout needs --width and --row-height (or --layout NAME for a saved one).")
            }
            var justified = JustifiedConfiguration(width: width, rowHeight: rowHeight)
            if let rowHeightTolerance { justified.rowHeightTolerance = rowHeightTolerance }
            if let lastRow { justified.lastRow = lastRow }
            if let columnSpacing { justified.columnSpacing = columnSpacing }
            if let rowSpacing { justified.rowSpacing = rowSpacing }
            if let inset { justified.sectionInset = try Self.insets(inset, flag: "--inset") }
            if let headerHeight { justified.headerHeight = headerHeight }
            if let footerHeight { justified.footerHeight = footerHeight }
            if let headerInset { justified.headerInset = try Self.insets(headerInset, flag: "--header-inset") }
            if let footerInset { justified.footerInset = try Self.insets(footerInset, flag: "--footer-inset") }
            if let captionHeight { justified.captionHeight = captionHeight }
            if let minimumContentHeight { justified.minimumContentHeight = minimumContentHeight }
            if let scale { justified.scale = scale }
            configuration = .justified(justified)
        }
        do throws(LayoutConfigurationError) {
            try configuration.validate()
        } catch {
            throw ValidationError(error.message)
        }
        return configuration
    }

    /// Refuses the flags among `flags` that were given, as not applying to `kind`.
    private func refuse(_ flags: KeyValuePairs<String, Any?>, for kind: LayoutKind) throws {
        for (flag, value) in flags where value != nil {
            let other = kind == .waterfall ? "--kind justified" : "--kind waterfall (the default)"
            throw ValidationError("\(flag) does not apply to a \(kind.rawValue) layout: remove it, or give \(other).")
        }
    }

    /// Parses `A` or `T,L,B,R` into insets.
    static func insets(_ text: String, flag: String) throws -> EdgeInsets {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        switch (parts.count, parts.allSatisfy { $0 != nil }) {
        case (1, true): return EdgeInsets(all: parts[0]!)
        case (4, true): return EdgeInsets(top: parts[0]!, left: parts[1]!, bottom: parts[2]!, right: parts[3]!)
        default:
            throw ValidationError("\(flag) takes one number or four comma-separated numbers (top,left,bottom,right), got \"\(text)\".")
        }
    }
}

extension ConfigurationFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        switch name {
        case "columns", "width", "row-height", "row-height-tolerance", "column-spacing", "row-spacing", "header-height",
             "footer-height", "caption-height", "min-content-height", "scale":
            .value(unconditional: true)
        case "kind", "last-row", "inset", "header-inset", "footer-inset", "order":
            .value(unconditional: false)
        default:
            nil
        }
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        switch name {
        case "kind": assign(value, to: &kind)
        case "columns": assign(value, to: &columns)
        case "width": assign(value, to: &width)
        case "row-height": assign(value, to: &rowHeight)
        case "row-height-tolerance": assign(value, to: &rowHeightTolerance)
        case "last-row": assign(value, to: &lastRow)
        case "column-spacing": assign(value, to: &columnSpacing)
        case "row-spacing": assign(value, to: &rowSpacing)
        case "inset": assign(value, to: &inset)
        case "header-height": assign(value, to: &headerHeight)
        case "footer-height": assign(value, to: &footerHeight)
        case "header-inset": assign(value, to: &headerInset)
        case "footer-inset": assign(value, to: &footerInset)
        case "caption-height": assign(value, to: &captionHeight)
        case "min-content-height": assign(value, to: &minimumContentHeight)
        case "order": assign(value, to: &order)
        case "scale": assign(value, to: &scale)
        default: false
        }
    }
}

/// `--layout NAME` or the configuration flags: which layout a query uses.
struct LayoutOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A layout saved with `layout add`.", valueName: "name"))
    var layout: String?

    @OptionGroup(title: "Layout configuration")
    var configuration: ConfigurationOptions

    mutating func validate() throws {
        _ = try source()
    }

    /// The flags' values.
    var flags: LayoutFlags {
        LayoutFlags(layout: layout, configuration: configuration.flags)
    }

    /// The layout source the flags describe.
    func source() throws -> LayoutSource {
        try flags.source()
    }
}

/// The values of `--layout NAME` and the configuration flags, and which layout they mean.
struct LayoutFlags: Equatable {
    var layout: String?
    var configuration = ConfigurationFlags()

    /// The layout source the flags describe.
    func source() throws -> LayoutSource {
        if let layout {
            if configuration.isGiven {
                throw ValidationError("give either --layout NAME or configuration flags (--columns, --width, …), not both.")
            }
            return .named(layout)
        }
        if !configuration.isGiven {
            throw ValidationError("a layout is needed: give --layout NAME, or --columns N --width W and other configuration flags.")
        }
        return .inline(try configuration.configuration())
    }
}

extension LayoutFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        name == "layout" ? .value(unconditional: false) : ConfigurationFlags.kind(of: name)
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        name == "layout" ? assign(value, to: &layout) : configuration.set(name, value)
    }
}
