/// A configuration value outside what a layout accepts, explained in one sentence.
///
/// Thrown by ``LayoutConfiguration/validate()``, ``CoverFlowConfiguration/validate()`` and the
/// layouts' initializers. `message` names the field, the allowed range and the value found,
/// for example `columns must be a whole number from 1 to 64, got 65.`
public struct LayoutConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configuration property at fault, e.g. `"columns"`, `"sectionInset"`, `"itemWidth"`.
    public let field: String
    /// One full sentence a user can act on: the field, the allowed range and the value found.
    public let message: String

    /// Creates an error for `field` with a one-sentence `message`.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// The same as `message`.
    public var description: String { message }
}

extension LayoutConfigurationError {
    /// Upper bound, in points, of every length a configuration accepts.
    static let maximumLength = 1_000_000.0

    /// A number as a user would write it: `65`, `-2.5`, `NaN`, `infinity`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-infinity" : "infinity" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
