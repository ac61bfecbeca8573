/// A layout whose sections may differ (DESIGN section 14): the layout's own configuration and
/// its per-section overrides, in the order given.
///
/// Written as the layout's own JSON with `sections`, a list of overrides
/// (``SectionOverride``): `{"columns": 3, "width": 414, "sections": [{"section": "2024-05",
/// "columns": 1}, {"section": "2024-06", "kind": "justified", "rowHeight": 150}]}`. A layout
/// with no overrides is not one of these: it is its kind's configuration alone, so the
/// canonical JSON leaves `sections` out.
public struct SectionedConfiguration: Hashable, Sendable {
    /// The layout's own configuration, for every section without an override (never itself
    /// sectioned).
    public var base: AnyLayoutConfiguration { storage.base }
    /// The overrides, in the order given; at most one per section.
    public var overrides: [SectionOverride] { storage.overrides }

    /// The fields, boxed: an ``AnyLayoutConfiguration`` holds this value, which holds one.
    private final class Storage: Sendable {
        let base: AnyLayoutConfiguration
        let overrides: [SectionOverride]

        init(base: AnyLayoutConfiguration, overrides: [SectionOverride]) {
            self.base = base
            self.overrides = overrides
        }
    }

    private let storage: Storage

    public static func == (lhs: SectionedConfiguration, rhs: SectionedConfiguration) -> Bool {
        lhs.base == rhs.base && lhs.overrides == rhs.overrides
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(base)
        hasher.combine(overrides)
    }

    /// Reads `entries`, the JSON objects of `sections`, over `base`.
    ///
    /// - Throws: ``LayoutConfigurationError`` naming the JSON path (`sections[2].columns`) of
    ///   the first entry at fault: a missing or second override of a section, a field its kind
    ///   refuses, `width` or `scale`, a value of the wrong type, or a field another kind needs
    ///   and the override does not give.
    public init(base: AnyLayoutConfiguration, entries: [[String: ConfigurationValue]]) throws(LayoutConfigurationError)
    {
        var overrides: [SectionOverride] = []
        var first: [String: Int] = [:]
        let inherited = base.fieldValues
        for (index, entry) in entries.enumerated() {
            let path = "sections[\(index)]"
            let override = try SectionOverride(entry, at: path, base: base, inherited: inherited)
            if let earlier = first[override.section] {
                throw LayoutConfigurationError(
                    field: "\(path).section",
                    message: "\(path).section names \"\(override.section)\" again (sections[\(earlier)] overrides it "
                        + "already): give each section one override.")
            }
            first[override.section] = index
            overrides.append(override)
        }
        storage = Storage(base: base, overrides: overrides)
    }

    /// Checks the layout's own configuration, then each section's, in order.
    /// - Throws: ``LayoutConfigurationError``; a section's names its JSON path
    ///   (`sections[1].columns`).
    public func validate() throws(LayoutConfigurationError) {
        try base.validate()
        for (index, override) in overrides.enumerated() {
            do {
                try override.configuration.validate()
            } catch {
                throw error.within("sections[\(index)]")
            }
        }
    }
}

extension SectionedConfiguration: Codable {
    /// Decodes a layout configuration with `sections` (``AnyLayoutConfiguration``'s form).
    /// - Throws: `DecodingError` when it has no overrides, or as ``AnyLayoutConfiguration`` throws.
    public init(from decoder: any Decoder) throws {
        guard case .sectioned(let configuration) = try AnyLayoutConfiguration(from: decoder) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "a layout with sections needs sections."))
        }
        self = configuration
    }

    /// Encodes the layout's own configuration with `sections` (``AnyLayoutConfiguration``'s form).
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        try AnyLayoutConfiguration.sectioned(self).encode(to: encoder)
    }
}
