/// One section of a ``FeedLayout``: its header, footer, images and vertical extent.
public struct SectionLayout: Hashable, Sendable {
    /// The header's natural frame, or `nil` when `headerHeight` is 0.
    public var header: Frame?
    /// The footer's frame, or `nil` when `footerHeight` is 0.
    public var footer: Frame?
    /// The section's images, as indices into ``FeedLayout/itemFrames`` (catalog order).
    public var items: Range<Int>
    /// `y` where the section was opened, in points (above its header inset).
    public var sectionStartY: Double
    /// The bottom of the section's last image plus `sectionInset.bottom`, in points (the
    /// natural position for an empty section); pinned headers stop `headerHeight` above it.
    public var sectionEnd: Double

    /// Creates a section layout.
    public init(header: Frame?, footer: Frame?, items: Range<Int>, sectionStartY: Double, sectionEnd: Double) {
        self.header = header
        self.footer = footer
        self.items = items
        self.sectionStartY = sectionStartY
        self.sectionEnd = sectionEnd
    }
}
