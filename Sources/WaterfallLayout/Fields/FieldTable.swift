/// A configuration described by its field table: decoding, encoding and the range checks are
/// the table's, in its order (which is the canonical JSON's order).
public protocol FieldTable: Codable, Sendable {
    /// The fields, in the order the canonical JSON writes them and the checks run.
    static var fields: [ConfigurationField<Self>] { get }
    /// The fields in key order, as the canonical JSON writes them (``canonicalJSON(kind:)``):
    /// `fields.sorted { $0.key < $1.key }`, kept.
    static var sortedFields: [ConfigurationField<Self>] { get }
    /// A value whose every field decoding or ``defaults`` overwrites (or a required field keeps
    /// until then).
    static var blank: Self { get }
    /// Every default applied to ``blank`` (``withDefaults()``), kept: what a parameter left out
    /// of an initializer gets.
    static var defaults: Self { get }
}

extension FieldTable {
    /// The field of `key`, if the table has one.
    public static func field(_ key: String) -> ConfigurationField<Self>? {
        fields.first { $0.key == key }
    }

    /// The JSON keys, in order.
    public static var keys: [String] { fields.map(\.key) }

    /// Every default applied to ``blank``.
    public static func withDefaults() -> Self {
        var value = blank
        for field in fields { field.applyDefault(&value) }
        return value
    }

    /// Decodes every field of the table: a required one must be there, an optional one missing
    /// or null takes its default.
    ///
    /// - Throws: `DecodingError` when a required field is missing or a field has the wrong type.
    public init(fieldsOf decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        var value = Self.blank
        for field in Self.fields { try field.decode(container, &value) }
        self = value
    }

    /// Encodes every field, defaults included, in the table's order.
    ///
    /// - Throws: whatever the encoder throws.
    public func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for field in Self.fields { try field.encode(self, &container) }
    }

    /// Checks each field against its range, in the table's order.
    /// - Throws: ``LayoutConfigurationError`` for the first value outside its range.
    public func checkFields() throws(LayoutConfigurationError) {
        for field in Self.fields { try field.check(self) }
    }
}
