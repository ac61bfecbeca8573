/// Lengths as they appear in CSS, SVG and legends.
enum Number {
    /// The shortest text that reads back as `value`: whole numbers without a fraction
    /// ("172"), others in Swift's round-trip form ("10.5"); non-finite values as "0".
    static func text(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }
}
