/// What closing a section produces: its footer and where its content ends.
public struct SectionEnd: Hashable, Sendable {
    /// The footer's frame, or `nil` when `footerHeight` is 0.
    public var footer: Frame?
    /// The bottom of the section's last image plus `sectionInset.bottom`, in points: DESIGN's
    /// `y` right after `y += sectionInset.bottom`. For an empty section, the natural position
    /// (header and `sectionInset.top` and `sectionInset.bottom` below the section's start).
    /// A pinned header never goes below `sectionEnd - headerHeight`.
    public var sectionEnd: Double

    /// Creates a section end.
    public init(footer: Frame?, sectionEnd: Double) {
        self.footer = footer
        self.sectionEnd = sectionEnd
    }
}
