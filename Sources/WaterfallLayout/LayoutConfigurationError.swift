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

    /// Checks that `value` is a length in 0...1,000,000 points.
    static func checkLength(_ value: Double, field: String, name: String? = nil) throws(LayoutConfigurationError) {
        guard value >= 0, value <= maximumLength else {
            throw LayoutConfigurationError(
                field: field,
                message: "\(name ?? field) must be a number from 0 to 1000000 points, got \(format(value)).")
        }
    }

    /// Checks each side of `insets` with ``checkLength(_:field:name:)``.
    static func checkInsets(_ insets: EdgeInsets, field: String) throws(LayoutConfigurationError) {
        try checkLength(insets.top, field: field, name: "\(field).top")
        try checkLength(insets.left, field: field, name: "\(field).left")
        try checkLength(insets.bottom, field: field, name: "\(field).bottom")
        try checkLength(insets.right, field: field, name: "\(field).right")
    }

    /// Checks that `value` is a length in (0, 1,000,000] points.
    static func checkPositiveLength(_ value: Double, field: String) throws(LayoutConfigurationError) {
        guard value > 0, value <= maximumLength else {
            throw LayoutConfigurationError(
                field: field,
                message: "\(field) must be greater than 0 and at most 1000000 points, got \(format(value)).")
        }
    }

    /// Checks that `scale` is 1, 2 or 3.
    static func checkScale(_ scale: Int) throws(LayoutConfigurationError) {
        guard (1...3).contains(scale) else {
            throw LayoutConfigurationError(field: "scale", message: "scale must be 1, 2 or 3, got \(scale).")
        }
    }

    /// A number as a user would write it: `65`, `-2.5`, `NaN`, `infinity`.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-infinity" : "infinity" }
        if value == value.rounded(.towardZero), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
