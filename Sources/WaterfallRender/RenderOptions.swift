/// Choices that change what a ``PageRenderer`` writes besides the drawing itself.
public struct RenderOptions: Hashable, Sendable {
    /// HTML only: append an inline script that, once the page is laid out, measures every
    /// `[data-id]`, `[data-header]` and `[data-footer]` box relative to the `[data-waterfall]`
    /// container and writes the result as base64-encoded JSON into `<pre id="measure">`.
    ///
    /// For browser tests (`chromium --headless --dump-dom`); off by default, so a rendered page
    /// carries no script at all.
    public var includeMeasurementScript: Bool

    /// Creates options; every choice is off unless given.
    public init(includeMeasurementScript: Bool = false) {
        self.includeMeasurementScript = includeMeasurementScript
    }
}
