/// How much of a row an image takes in a waterfall layout.
///
/// Decoded from an image's `"span"` field: `"full"` gives ``full``; `"normal"`, `null` or no
/// field at all give ``normal``; any other value is rejected.
public enum Span: String, Hashable, Sendable {
    /// One column, like every ordinary image.
    case normal
    /// A banner across all columns of its section.
    case full
}
