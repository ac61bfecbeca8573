/// A JSON value as a configuration gives it: what a per-section override holds for each field
/// it sets (DESIGN section 14), kept as given so that the canonical JSON writes it back as it
/// came and the override inherits everything else from its layout.
public enum ConfigurationValue: Hashable, Sendable, Codable {
    case number(Double)
    case string(String)
    case bool(Bool)
    case object([String: ConfigurationValue])
    case array([ConfigurationValue])
    case null

    /// Decodes any JSON value.
    /// - Throws: `DecodingError` when the value is none of JSON's kinds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([String: ConfigurationValue].self) {
            self = .object(value)
        } else {
            self = .array(try container.decode([ConfigurationValue].self))
        }
    }

    /// Encodes the value as JSON writes it (a whole number without a fraction); an object's
    /// members in a stable order: insets' sides as ``EdgeInsets`` writes them, then by name.
    /// - Throws: whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        if case .object(let members) = self {
            var container = encoder.container(keyedBy: MemberKey.self)
            for name in Self.memberOrder(members.keys) {
                try container.encode(members[name], forKey: MemberKey(stringValue: name))
            }
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .object: break
        case .array(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// `names` in the order they are written: `section`, `kind`, insets' sides (top, left,
    /// bottom, right), then the rest by name.
    static func memberOrder(_ names: some Collection<String>) -> [String] {
        let first = ["section", "kind", "top", "left", "bottom", "right"]
        return first.filter(names.contains) + names.filter { !first.contains($0) }.sorted()
    }

    /// Any member name of an object.
    struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value as a user would write it, for messages: `3`, `"shortest"`, `{…}`.
    var shortDescription: String {
        switch self {
        case .number(let value): LayoutConfigurationError.format(value)
        case .string(let value): "\"\(value)\""
        case .bool(let value): String(value)
        case .object: "an object"
        case .array: "a list"
        case .null: "null"
        }
    }
}
