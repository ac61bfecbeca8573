/// A layout kind that lays a feed out as a stream, section by section, image by image, and
/// can resume from a saved state: what a layout cache and a page or viewport query need from
/// an engine, whatever its kind (DESIGN sections 2, 5 and 8).
///
/// A run is `openSection` for each section in catalog order (empty ones included), then
/// `append` for each of its images, then `closeSection`, and `contentHeight` at the end.
/// Frames are reported through `emit(indexInSection, frame)`, in catalog order, possibly after
/// later images were appended (a justified row is decided only when it closes);
/// `indexInSection` counts the section's images from 0, banners included, so a caller's
/// global index is the section's first global index plus it. A caller may save a state (as
/// bytes) whenever ``ResumableLayoutState/pendingCount`` is 0 and resume from it later: the
/// frames from there on are bit for bit those of an uninterrupted run. A page or viewport
/// query therefore reads from the checkpoint before it to the end of the row that holds its
/// last image (the first state after it with `pendingCount == 0`).
///
/// ``WaterfallLayout`` (every image decided when appended) and ``JustifiedLayout`` (a row
/// decided when it closes) conform; ``AnyLayoutConfiguration`` names which one a stored layout
/// uses. A new kind is a configuration, an engine conforming here, and a case there.
public protocol StreamingLayoutKind: Sendable {
    /// The configuration type, also the cache key (every field encoded, defaults included).
    associatedtype Configuration: Hashable, Codable, Sendable
    /// The resumable state.
    associatedtype State: ResumableLayoutState

    /// The validated configuration this layout applies.
    var configuration: Configuration { get }

    /// Creates a layout after validating `configuration`.
    ///
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds.
    init(_ configuration: Configuration) throws(LayoutConfigurationError)

    /// The state before the first section.
    var initialState: State { get }

    /// Opens a section at the state's current bottom and returns its header's frame (points),
    /// or `nil` when the configuration has no header. Precondition: no section is open.
    func openSection(_ state: inout State) -> Frame?

    /// The natural header frame of a section opened at `sectionStartY` (points), or `nil`.
    func headerFrame(sectionStartY: Double) -> Frame?

    /// Appends one image to the open section, reporting through `emit` the frames (points) of
    /// the images this decides, in catalog order. Precondition: a section is open.
    func append(_ item: LayoutItem, _ state: inout State, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void)

    /// Appends a run of images to the open section, writing the frames it decides to `frames`
    /// in catalog order (first the images pending in `state` before the call) and returning
    /// how many; the same frames as ``append(_:_:_:)`` bit for bit. `frames` must hold
    /// `state.pendingCount + items.count` frames. Precondition: a section is open.
    func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout State
    ) -> Int

    /// Closes the open section, reporting the frames of its pending images through `emit`,
    /// and returns its footer and end (points). Precondition: a section is open.
    func closeSection(_ state: inout State, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void) -> SectionEnd

    /// The height of the whole content, in points. Precondition: no section is open.
    func contentHeight(_ state: State) -> Double

    /// The footer of a section whose content ends at `sectionEnd` (``SectionEnd/sectionEnd``,
    /// points), or `nil` without footers, and the `y` below it where the next section opens:
    /// exactly what ``closeSection(_:_:)`` places after `sectionEnd`.
    func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double)

    /// Where a section's header is drawn when headers are pinned under `pinOffset` points from
    /// the top of a viewport at `viewportY` (DESIGN section 2, pinned headers).
    func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader

    /// Whether a section laid out from `y` and then moved down by `d` (``ResumableLayoutState/shifted(by:)``)
    /// gives bit for bit the frames of laying it out from `y + d`, for every `y` and `d` this
    /// layout produces: true when every vertical length of the configuration is a multiple of
    /// half a point and `scale` is 1 or 2, so that every `y` is a multiple of ½ well inside a
    /// `Double`'s exact integers, and sums do not round. A server that keeps section layouts
    /// in memory then moves the sections after a change instead of laying them out again.
    var shiftsExactly: Bool { get }

    /// Whether `state`, read back from storage, is one this layout can resume from (a
    /// waterfall's column count, a sectioned layout's variant and that variant's kind): a
    /// cache row edited or written by another layout is refused rather than trusted.
    func canResume(from state: State) -> Bool

    /// Whether sections may be laid out differently (a layout with per-section overrides,
    /// DESIGN section 14): then a caller asks ``variant(ofSection:)`` for each section and
    /// passes the answer to the `variant:` forms below. False for a layout of one kind and
    /// configuration, whose variant is always 0.
    var hasSectionVariants: Bool { get }

    /// Which of the layout's section configurations the section with catalog id `id` uses:
    /// 0 for the layout's own, else its override's place in `sections` plus 1.
    func variant(ofSection id: String) -> Int

    /// ``openSection(_:)`` for a section of the given variant.
    func openSection(_ state: inout State, variant: Int) -> Frame?

    /// ``headerFrame(sectionStartY:)`` for a section of the given variant.
    func headerFrame(sectionStartY: Double, variant: Int) -> Frame?

    /// ``footer(below:)`` for a section of the given variant.
    func footer(below sectionEnd: Double, variant: Int) -> (frame: Frame?, end: Double)

    /// ``pinnedHeader(natural:sectionEnd:viewportY:pinOffset:)`` for a section of the given variant.
    func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double, variant: Int)
        -> PinnedHeader
}

/// A layout of one kind and configuration: every section is variant 0.
extension StreamingLayoutKind {
    public func canResume(from state: State) -> Bool { true }

    public var hasSectionVariants: Bool { false }

    public func variant(ofSection id: String) -> Int { 0 }

    public func openSection(_ state: inout State, variant: Int) -> Frame? {
        openSection(&state)
    }

    public func headerFrame(sectionStartY: Double, variant: Int) -> Frame? {
        headerFrame(sectionStartY: sectionStartY)
    }

    public func footer(below sectionEnd: Double, variant: Int) -> (frame: Frame?, end: Double) {
        footer(below: sectionEnd)
    }

    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double, variant: Int)
        -> PinnedHeader
    {
        pinnedHeader(natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }
}

extension StreamingLayoutKind {
    /// The state between sections with everything above ending at `y`: where a section that
    /// starts at `y` is opened from (only `y` matters there; opening resets the rest).
    public func state(betweenSectionsAt y: Double) -> State {
        initialState.shifted(by: y)
    }
}

/// Whether `value` is a multiple of half a point, small enough that sums of such stay exact.
@inlinable
func isHalfPointMultiple(_ value: Double) -> Bool {
    let doubled = value * 2
    return doubled.isFinite && doubled == doubled.rounded() && abs(value) < 0x1p40
}

/// The state of a ``StreamingLayoutKind``: what a cache saves at a checkpoint.
public protocol ResumableLayoutState: Hashable, Sendable {
    /// Whether a section is open.
    var isSectionOpen: Bool { get }
    /// Between sections, the bottom of everything laid out so far, in points (where the next
    /// section opens); all that a state between sections carries to the next section.
    var y: Double { get }
    /// `y` where the open (or last opened) section was opened, in points.
    var sectionStartY: Double { get }
    /// Images appended to the open section, banners and pending images included.
    var imagesInSection: Int { get }
    /// Images appended whose frames are not reported yet. A cache saves checkpoints only where
    /// this is 0 (DESIGN section 8: row starts); always 0 for a waterfall.
    var pendingCount: Int { get }
    /// A compact binary form of the state, for persistence.
    func serialized() -> [UInt8]
    /// Decodes a state written by ``serialized()``.
    ///
    /// - Throws: ``LayoutStateDecodingError`` when the bytes are not such a state.
    init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError)
    /// The same state with every vertical position moved down by `dy` points: where it would
    /// be had everything above it been `dy` taller.
    func shifted(by dy: Double) -> Self
}

extension JustifiedState: ResumableLayoutState {
    public func shifted(by dy: Double) -> JustifiedState {
        var state = self
        state.y += dy
        state.rowTop += dy
        state.sectionStartY += dy
        return state
    }
}

extension JustifiedLayout: StreamingLayoutKind {
    public var shiftsExactly: Bool {
        let c = configuration
        return (c.scale == 1 || c.scale == 2) && c.chrome.isOnHalfPointGrid
            && isHalfPointMultiple(c.rowSpacing) && isHalfPointMultiple(c.captionHeight)
    }
}
