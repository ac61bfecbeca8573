/// The kinds of layout (DESIGN section 8): the value of a configuration's `kind`.
public enum LayoutKind: String, Hashable, Codable, Sendable, CaseIterable {
    /// Columns of equal width, each image in the shortest (DESIGN section 2). The default.
    case waterfall
    /// Rows of equal height that fill the width (DESIGN section 8).
    case justified
}

/// A layout configuration of any kind: what a named layout stores, what a page or viewport
/// query lays out, and the key of a cached layout.
///
/// Its JSON is the kind's own configuration JSON, with `"kind"` first for every kind but the
/// default: a waterfall configuration is written exactly as before kinds existed (no `kind`),
/// so every layout and cache entry an older database holds is still the canonical form of the
/// same layout, and nothing needs rewriting. Decoding reads `kind` (absent: `waterfall`) and
/// then the kind's fields; a field of another kind is refused with a sentence naming it, so a
/// misplaced `rowHeight` never falls back silently to a waterfall.
///
/// A configuration with per-section overrides (DESIGN section 14) is ``sectioned(_:)``: its
/// kind, width and the like are those of the layout's own configuration.
public enum AnyLayoutConfiguration: Hashable, Codable, Sendable {
    case waterfall(LayoutConfiguration)
    case justified(JustifiedConfiguration)
    /// A layout whose sections may differ: its own configuration and the overrides.
    case sectioned(SectionedConfiguration)

    /// Which kind of layout this is (for a layout with overrides, the layout's own kind).
    public var kind: LayoutKind {
        switch self {
        case .waterfall: .waterfall
        case .justified: .justified
        case .sectioned(let configuration): configuration.base.kind
        }
    }

    /// The layout's own configuration, without per-section overrides.
    public var base: AnyLayoutConfiguration {
        if case .sectioned(let configuration) = self { return configuration.base }
        return self
    }

    /// The per-section overrides, in the order given (empty for most layouts).
    public var sectionOverrides: [SectionOverride] {
        if case .sectioned(let configuration) = self { return configuration.overrides }
        return []
    }

    /// Checks every bound of the kind's configuration (``LayoutConfiguration/validate()``,
    /// ``JustifiedConfiguration/validate()``).
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds.
    public func validate() throws(LayoutConfigurationError) {
        switch self {
        case .waterfall(let configuration): try configuration.validate()
        case .justified(let configuration): try configuration.validate()
        case .sectioned(let configuration): try configuration.validate()
        }
    }

    /// The fields every kind has (``CommonLayoutFields``), of the layout's own configuration:
    /// what the properties below read, with one switch over the kinds for all of them.
    public var common: any CommonLayoutFields {
        switch self {
        case .waterfall(let configuration): configuration
        case .justified(let configuration): configuration
        case .sectioned(let configuration): configuration.base.common
        }
    }

    /// Width of the whole layout, in points.
    public var width: Double { common.width }

    /// Height of each section's header, in points (0: no headers).
    public var headerHeight: Double { common.headerHeight }

    /// Whether any section has a header: the layout's own `headerHeight` or an override's is
    /// above 0.
    public var hasHeaders: Bool {
        base.headerHeight > 0 || sectionOverrides.contains { $0.configuration.headerHeight > 0 }
    }

    /// The chrome of the layout's own sections (``SectionChrome``): header, footer, insets.
    public var chrome: SectionChrome { common.chrome }

    /// The least content height reported, in points (the layout's own, for every section).
    public var minimumContentHeight: Double { common.minimumContentHeight }

    /// Height of the caption strip under every image, in points.
    public var captionHeight: Double { common.captionHeight }

    /// A few words on the layout's shape for people: "3 columns, 414 pt" or
    /// "rows of 180 pt, 414 pt".
    public var shape: String {
        switch self {
        case .waterfall(let configuration):
            "\(configuration.columns) column\(configuration.columns == 1 ? "" : "s"), \(Self.points(configuration.width)) pt"
        case .justified(let configuration):
            "rows of \(Self.points(configuration.rowHeight)) pt, \(Self.points(configuration.width)) pt"
        case .sectioned(let configuration):
            "\(configuration.base.shape), \(configuration.overrides.count) section override\(configuration.overrides.count == 1 ? "" : "s")"
        }
    }

    private static func points(_ value: Double) -> String {
        LayoutConfigurationError.format(value)
    }

    /// The JSON keys that belong to a kind: those its configuration encodes, `kind` and
    /// `sections`.
    public static func keys(of kind: LayoutKind) -> Set<String> {
        var keys: Set<String> = ["kind", "sections"]
        switch kind {
        case .waterfall: keys.formUnion(LayoutConfiguration.keys)
        case .justified: keys.formUnion(JustifiedConfiguration.keys)
        }
        return keys
    }

    private enum KindKey: String, CodingKey {
        case kind
    }

    /// Any key of a configuration, for telling which ones another kind would have taken.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes `kind` (absent: `waterfall`), then that kind's configuration.
    ///
    /// - Throws: ``ConfigurationKeyError`` when a key of another kind is present;
    ///   `DecodingError` when `kind` is not a known kind, or as the kind's configuration throws.
    public init(from decoder: any Decoder) throws {
        let kindContainer = try decoder.container(keyedBy: KindKey.self)
        let kind = try kindContainer.decodeIfPresent(LayoutKind.self, forKey: .kind) ?? .waterfall
        let own = Self.keys(of: kind)
        let others = LayoutKind.allCases.filter { $0 != kind }.map { ($0, Self.keys(of: $0).subtracting(own)) }
        let all = try decoder.container(keyedBy: AnyKey.self)
        for (other, keys) in others {
            for key in keys.sorted() where all.contains(AnyKey(stringValue: key)) {
                throw ConfigurationKeyError(key: key, kind: kind, owner: other)
            }
        }
        let base: AnyLayoutConfiguration
        switch kind {
        case .waterfall: base = .waterfall(try LayoutConfiguration(from: decoder))
        case .justified: base = .justified(try JustifiedConfiguration(from: decoder))
        }
        let sections = AnyKey(stringValue: "sections")
        guard all.contains(sections),
            let entries = try all.decodeIfPresent([[String: ConfigurationValue]].self, forKey: sections),
            !entries.isEmpty
        else {
            self = base
            return
        }
        self = .sectioned(try SectionedConfiguration(base: base, entries: entries))
    }

    /// Encodes the kind's configuration, after `"kind"` unless it is the default.
    ///
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .waterfall(let configuration):
            try configuration.encode(to: encoder)
        case .justified(let configuration):
            var container = encoder.container(keyedBy: KindKey.self)
            try container.encode(LayoutKind.justified, forKey: .kind)
            try configuration.encode(to: encoder)
        case .sectioned(let configuration):
            try configuration.base.encode(to: encoder)
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(
                configuration.overrides.map { ConfigurationValue.object($0.json) },
                forKey: AnyKey(stringValue: "sections"))
        }
    }
}
