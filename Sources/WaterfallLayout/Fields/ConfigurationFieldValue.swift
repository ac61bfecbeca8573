/// A type a configuration field can hold: it knows its ``FieldShape``, how a ``FieldRange``
/// applies to it and how JSON writes it.
public protocol ConfigurationFieldValue: Codable, Sendable {
    /// What front ends call a value of this type.
    static var shape: FieldShape { get }
    /// Throws the sentence of the first part of the value outside `range`.
    func check(_ range: FieldRange, field: String) throws(LayoutConfigurationError)
    /// The value as JSON writes it.
    var json: ConfigurationValue { get }
    /// Appends the value as `JSONEncoder` writes it with sorted keys (``FieldTable/canonicalJSON(kind:)``).
    func writeCanonical(to text: inout String)
    /// Reads exactly what ``writeCanonical(to:)`` writes, or nil.
    static func readCanonical(_ reader: inout CanonicalReader) -> Self?
}

extension Int: ConfigurationFieldValue {
    public static var shape: FieldShape { .integer }
    public func check(_ range: FieldRange, field: String) throws(LayoutConfigurationError) {
        try range.check(self, field: field, name: field)
    }
    public var json: ConfigurationValue { .number(Double(self)) }
}

extension Double: ConfigurationFieldValue {
    public static var shape: FieldShape { .number }
    public func check(_ range: FieldRange, field: String) throws(LayoutConfigurationError) {
        try range.check(self, field: field, name: field)
    }
    public var json: ConfigurationValue { .number(self) }
}

extension EdgeInsets: ConfigurationFieldValue {
    public static var shape: FieldShape { .insets }
    /// Checks each side, top, left, bottom, right, named `field.top` and so on.
    public func check(_ range: FieldRange, field: String) throws(LayoutConfigurationError) {
        try range.check(top, field: field, name: "\(field).top")
        try range.check(left, field: field, name: "\(field).left")
        try range.check(bottom, field: field, name: "\(field).bottom")
        try range.check(right, field: field, name: "\(field).right")
    }
    public var json: ConfigurationValue {
        .object(["top": .number(top), "left": .number(left), "bottom": .number(bottom), "right": .number(right)])
    }
}

/// A choice of a few words (``PlacementOrder``, ``LastRowStyle``): its cases' raw values.
public protocol ConfigurationChoice: ConfigurationFieldValue, CaseIterable, RawRepresentable where RawValue == String {}

extension ConfigurationChoice {
    public static var shape: FieldShape { .choice(allCases.map(\.rawValue)) }
    /// A choice's shape is its range: decoding already refused any other word.
    public func check(_ range: FieldRange, field: String) throws(LayoutConfigurationError) {}
    public var json: ConfigurationValue { .string(rawValue) }
}

extension PlacementOrder: ConfigurationChoice {}
extension LastRowStyle: ConfigurationChoice {}
