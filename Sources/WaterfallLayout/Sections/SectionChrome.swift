/// A section's chrome, written once for every kind of layout (DESIGN section 2, used as is by
/// section 8): the header above its images, the insets around them and the footer below, and
/// where a pinned header is drawn. ``WaterfallLayout`` and ``JustifiedLayout`` place their
/// images between ``open(at:)`` and ``footer(below:)``; a layout with per-section overrides
/// (``SectionedLayout``, DESIGN section 14) uses each section's own chrome.
///
/// The arithmetic is DESIGN's, in its order (`y += headerInset.top`, the header,
/// `y += headerHeight + headerInset.bottom`, `y += sectionInset.top`), so frames are the same
/// bit for bit whichever kind asks.
public struct SectionChrome: Hashable, Sendable {
    /// Width of the whole layout, in points.
    public var width: Double
    /// Space around each section's images, in points.
    public var sectionInset: EdgeInsets
    /// Height of the header, in points; 0 means no header.
    public var headerHeight: Double
    /// Height of the footer, in points; 0 means no footer.
    public var footerHeight: Double
    /// Space around the header, in points.
    public var headerInset: EdgeInsets
    /// Space around the footer, in points.
    public var footerInset: EdgeInsets

    /// Creates a section's chrome.
    public init(
        width: Double, sectionInset: EdgeInsets, headerHeight: Double, footerHeight: Double,
        headerInset: EdgeInsets, footerInset: EdgeInsets
    ) {
        self.width = width
        self.sectionInset = sectionInset
        self.headerHeight = headerHeight
        self.footerHeight = footerHeight
        self.headerInset = headerInset
        self.footerInset = footerInset
    }

    /// Opens a section at `y`: its header's frame (or `nil` without headers) and the `y` of
    /// the top of its first image, below the header and `sectionInset.top`. O(1).
    @inline(__always)
    public func open(at y: Double) -> (header: Frame?, contentTop: Double) {
        var y = y
        var header: Frame?
        if headerHeight > 0 {
            y += headerInset.top
            header = Frame(
                x: headerInset.left, y: y, width: width - headerInset.left - headerInset.right, height: headerHeight)
            y += headerHeight + headerInset.bottom
        }
        y += sectionInset.top
        return (header, y)
    }

    /// The natural header frame of a section opened at `sectionStartY`, or `nil` without
    /// headers: the frame ``open(at:)`` returns. O(1).
    public func headerFrame(sectionStartY: Double) -> Frame? {
        open(at: sectionStartY).header
    }

    /// The footer of a section whose content ends at `sectionEnd` (points: the bottom of its
    /// last image plus `sectionInset.bottom`), or `nil` when `footerHeight` is 0, and the `y`
    /// below it where the next section opens. O(1).
    @inline(__always)
    public func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double) {
        guard footerHeight > 0 else { return (nil, sectionEnd) }
        let y = sectionEnd + footerInset.top
        let frame = Frame(
            x: footerInset.left, y: y, width: width - footerInset.left - footerInset.right, height: footerHeight)
        return (frame, y + (footerHeight + footerInset.bottom))
    }

    /// Where the header is drawn when headers are pinned under `pinOffset` points from the
    /// top of a viewport at `viewportY` (DESIGN section 2):
    /// `y = min(max(viewportY + pinOffset, natural.y), sectionEnd - headerHeight)`, so the
    /// header sticks under the pin offset while its section is on screen and is pushed up by
    /// the section's end. `isPinned` is true when `y` differs from `natural.y`. O(1).
    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        let y = min(max(viewportY + pinOffset, natural.y), sectionEnd - headerHeight)
        var frame = natural
        frame.y = y
        return PinnedHeader(frame: frame, isPinned: y != natural.y)
    }

    /// Whether every vertical length of the chrome is a multiple of half a point (see
    /// ``StreamingLayoutKind/shiftsExactly``).
    var isOnHalfPointGrid: Bool {
        [
            sectionInset.top, sectionInset.bottom, headerHeight, footerHeight, headerInset.top, headerInset.bottom,
            footerInset.top, footerInset.bottom,
        ].allSatisfy(isHalfPointMultiple)
    }
}

extension CommonLayoutFields {
    /// The chrome of every section of this layout (either kind's).
    public var chrome: SectionChrome {
        SectionChrome(
            width: width, sectionInset: sectionInset, headerHeight: headerHeight, footerHeight: footerHeight,
            headerInset: headerInset, footerInset: footerInset)
    }
}
