import Foundation

/// One entry of a layout's `sections` (DESIGN section 14): the settings one section of the
/// feed uses instead of the layout's own.
///
/// An override of the layout's kind inherits every field it does not set from the layout; one
/// of the other kind inherits only the fields the kinds share (insets, header, footer,
/// caption, spacing) and must give the rest (`columns` for a waterfall, `rowHeight` for
/// justified rows). `width` and `scale` are always the layout's. The override keeps its fields
/// as given, so the canonical JSON writes them back as they came and inheritance still follows
/// the layout; ``configuration`` is the section's whole configuration.
public struct SectionOverride: Hashable, Sendable {
    /// The catalog id of the section it applies to (a section the feed may not have yet).
    public let section: String
    /// The fields it sets, as given: never `section`, `width` or `scale`; `kind` when given.
    public let fields: [String: ConfigurationValue]
    /// The section's whole configuration, of its own kind: the fields over what it inherits.
    /// Not validated here (``SectionedConfiguration/validate()`` does, naming the JSON path).
    public let configuration: AnyLayoutConfiguration

    /// The override's JSON object: `section` and its fields.
    var json: [String: ConfigurationValue] {
        fields.merging(["section": .string(section)]) { given, _ in given }
    }

    /// Reads the override at `path` (`sections[2]`) of a layout whose own configuration is
    /// `base`, with every field of it in `inherited` (``AnyLayoutConfiguration/fieldValues``,
    /// read once for all the layout's overrides), resolving what it inherits.
    ///
    /// - Throws: ``LayoutConfigurationError`` whose `field` is the JSON path of the value at
    ///   fault (`sections[2].columns`) and whose message is one sentence starting with it.
    init(
        _ entry: [String: ConfigurationValue], at path: String, base: AnyLayoutConfiguration,
        inherited: [String: ConfigurationValue]
    ) throws(LayoutConfigurationError) {
        func refuse(_ key: String, _ sentence: String) -> LayoutConfigurationError {
            LayoutConfigurationError(field: "\(path).\(key)", message: "\(path).\(key) \(sentence)")
        }
        switch entry["section"] {
        case .string(let id)?: section = id
        case nil: throw refuse("section", "is required: the id of the section the override applies to.")
        case let other?: throw refuse("section", "must be a section's id (text), got \(other.shortDescription).")
        }
        var kind = base.kind
        if let given = entry["kind"] {
            guard case .string(let text) = given, let named = LayoutKind(rawValue: text) else {
                throw refuse("kind", "must be waterfall or justified, got \(given.shortDescription).")
            }
            kind = named
        }
        try Self.checkKeys(entry.keys, kind: kind, refuse: refuse)
        fields = entry.filter { $0.key != "section" }
        configuration = try Self.resolve(fields, kind: kind, base: base.kind, inherited: inherited, refuse: refuse)
    }

    /// Refuses the keys a section of `kind` cannot set, in key order.
    private static func checkKeys(
        _ keys: Dictionary<String, ConfigurationValue>.Keys, kind: LayoutKind,
        refuse: (String, String) -> LayoutConfigurationError
    ) throws(LayoutConfigurationError) {
        let own = AnyLayoutConfiguration.keys(of: kind)
        for key in keys.sorted() where key != "section" {
            if key == "width" || key == "scale" {
                throw refuse(key, "cannot differ per section: it is the layout's own; remove it.")
            }
            if key == "sections" {
                throw refuse(key, "cannot be given inside a section's override.")
            }
            guard !own.contains(key) else { continue }
            if let owner = LayoutKind.allCases.first(where: { AnyLayoutConfiguration.keys(of: $0).contains(key) }) {
                throw refuse(
                    key, "does not apply to a \(kind.rawValue) section: remove it, or give kind \(owner.rawValue).")
            }
            throw refuse(
                key,
                "is not a setting of a \(kind.rawValue) section; it takes \(own.subtracting(["sections", "width", "scale"]).sorted().joined(separator: ", "))."
            )
        }
    }

    /// The section's configuration: `fields` over what it inherits from `inherited`, the
    /// fields of a layout of kind `base`.
    private static func resolve(
        _ fields: [String: ConfigurationValue], kind: LayoutKind, base: LayoutKind,
        inherited: [String: ConfigurationValue], refuse: (String, String) -> LayoutConfigurationError
    ) throws(LayoutConfigurationError) -> AnyLayoutConfiguration {
        var merged = inherited
        merged["kind"] = nil
        if kind != base {
            let shared = AnyLayoutConfiguration.keys(of: .waterfall).intersection(
                AnyLayoutConfiguration.keys(of: .justified))
            merged = merged.filter { shared.contains($0.key) }
        }
        merged.merge(fields) { _, given in given }
        merged["kind"] = kind == .waterfall ? nil : .string(kind.rawValue)
        do {
            let data = try JSONEncoder().encode(merged)
            return try JSONDecoder().decode(AnyLayoutConfiguration.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw refuse(
                key.stringValue, "is required: a \(kind.rawValue) section in a \(base.rawValue) layout must give it.")
        } catch DecodingError.typeMismatch(let type, let context) {
            throw refuse(context.codingPath.map(\.stringValue).joined(separator: "."), "must be \(describe(type)).")
        } catch DecodingError.valueNotFound(let type, let context) {
            throw refuse(context.codingPath.map(\.stringValue).joined(separator: "."), "must be \(describe(type)).")
        } catch DecodingError.dataCorrupted(let context) {
            throw refuse(
                context.codingPath.map(\.stringValue).joined(separator: "."),
                "is not valid: \(context.debugDescription)")
        } catch {
            throw refuse("section", "does not describe a section's configuration (\(error)).")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        if type == Int.self { return "a whole number" }
        if type == Double.self { return "a number" }
        if type == String.self { return "text" }
        return "a value of type \(type)"
    }
}

extension AnyLayoutConfiguration {
    /// Every field of the configuration as a JSON value, as its canonical JSON has them.
    public var fieldValues: [String: ConfigurationValue] {
        // A configuration holds finite numbers and plain values only, which always encode.
        guard let data = try? JSONEncoder().encode(self),
            let values = try? JSONDecoder().decode([String: ConfigurationValue].self, from: data)
        else { return [:] }
        return values
    }
}

extension LayoutConfigurationError {
    /// The same error for the value at `path` (`sections[2]`): the field becomes its JSON
    /// path and the message starts with it.
    func within(_ path: String) -> LayoutConfigurationError {
        let message = message.hasPrefix(field) ? "\(path).\(message)" : "\(path): \(message)"
        return LayoutConfigurationError(field: "\(path).\(field)", message: message)
    }
}
