/// The justified-rows layout engine of DESIGN section 8: configuration in, frames out.
///
/// Images fill rows of equal height that span the content width `W` exactly, as Flickr,
/// Google Photos and Immich show photos. A value type with no IO. It works incrementally on a
/// ``JustifiedState``, like ``WaterfallLayout``: ``openSection(_:)``, then
/// ``append(_:_:_:)`` for each image of the section, then ``closeSection(_:_:)``, and finally
/// ``contentHeight(_:)``. ``layout(_:)`` does a whole in-memory feed; the bulk
/// ``append(contentsOf:into:_:)`` is the fast path for long runs.
///
/// Unlike a waterfall image, an image's frame is not known when it is appended: it waits in
/// the state's pending row until the row closes (a later image, a banner or the section's end
/// closes it). So frames are reported through an `emit(indexInSection, frame)` callback, always
/// in catalog order: the `k`-th frame reported in a section belongs to the section's image `k`.
///
/// The rules, with `T = rowHeight`, `s = columnSpacing`, `r = rowSpacing`, `a = w / h`:
///
/// ```
/// minAR = W / T * (1 - tol);  maxAR = W / T * (1 + tol)
/// close(row):     H = grid(clamp((W - (n-1)*s) / sum(a), 0.5*T, 2*T)); widths
///                 grid((W - (n-1)*s) * a_i / sum(a)) but the last, which ends the row at
///                 sectionInset.left + W; frames (x, rowTop, width, H + captionHeight);
///                 rowTop += H + captionHeight + r; prevH = H
/// lastRowOf(row): H = grid(min(prevH ?? T, T)); widths grid(a_i * H); if they and their
///                 gaps exceed W, close(row); else placed per lastRow (left, center, justify)
/// each ordinary image: candidate = pending + [image], A = sum(a) over candidate
///   A <  minAR                                         -> keep gathering
///   A >  maxAR, pending empty                          -> close([image])  (a panorama)
///   A >  maxAR, |A - (W - n_p*s)/T| > |A_p - (W - (n_p-1)*s)/T|
///                                                      -> close(pending), then the image
///                                                         alone if a >= minAR, else it starts
///                                                         the next row
///   otherwise                                          -> close(candidate)
/// a banner: lastRowOf(pending), then (sectionInset.left, rowTop, W, grid(W*h/w) + caption),
///           rowTop += its height + r, prevH = nil
/// ```
///
/// One rule is added for rows DESIGN's arithmetic cannot draw: when the pending row already
/// holds `n_p` images and `W - n_p × s <= 0` (the candidate's gaps alone would fill the
/// width, which only very narrow images and a wide spacing reach), the pending row closes and
/// the image is treated as the first of a new row. Without it, widths would come out negative.
///
/// The arithmetic follows DESIGN literally, operation by operation (sums of aspect ratios are
/// added left to right from 0, `x` advances by `width + s`), so that every path (streaming,
/// bulk, resumed from a state) gives the same frames bit for bit.
public struct JustifiedLayout: Sendable {
    /// The validated configuration this layout applies.
    public let configuration: JustifiedConfiguration

    /// The constants and rules every path applies.
    let rules: JustifiedRules

    /// Creates a layout after validating `configuration`. O(1).
    ///
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds (see
    ///   ``JustifiedConfiguration/validate()``).
    public init(_ configuration: JustifiedConfiguration) throws(LayoutConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        rules = JustifiedRules(configuration)
    }

    /// The state before the first section: `y = 0`, no section open.
    public var initialState: JustifiedState {
        JustifiedState()
    }

    /// Opens a section at `state.y`: places its header (DESIGN section 2) and puts the first
    /// row's top below `sectionInset.top`, with no previous row height.
    ///
    /// Returns the header's frame (points; `headerInset.left` from the left edge, as wide as
    /// the layout minus the header insets), or `nil` when `headerHeight` is 0. O(1).
    /// Precondition: no section is open in `state`.
    public func openSection(_ state: inout JustifiedState) -> Frame? {
        precondition(!state.isSectionOpen, "openSection called while a section is open")
        state.sectionStartY = state.y
        let (header, contentTop) = configuration.chrome.open(at: state.y)
        state.y = contentTop
        state.rowTop = state.y
        state.previousRowHeight = nil
        state.clearPending()
        state.imagesInSection = 0
        state.isSectionOpen = true
        return header
    }

    /// The natural header frame of a section opened at `sectionStartY` (points), or `nil` when
    /// `headerHeight` is 0. The same frame ``openSection(_:)`` returns. O(1).
    public func headerFrame(sectionStartY: Double) -> Frame? {
        configuration.chrome.headerFrame(sectionStartY: sectionStartY)
    }

    /// Appends one image to the open section and reports the frames of the images it places.
    ///
    /// An ordinary image joins the pending row, which may close (then its images' frames are
    /// reported) before or with it; a full-span image closes the pending row as a last row
    /// (``JustifiedConfiguration/lastRow``) and is placed at once as a banner, `W` wide and
    /// `grid(W * h / w) + captionHeight` tall. `emit(indexInSection, frame)` is called for each
    /// frame decided, in catalog order; `indexInSection` counts every image of the section from
    /// 0, banners included; frames are in points. O(1) amortized when nothing closes, O(row)
    /// when a row closes. Precondition: a section is open.
    public func append(
        _ item: LayoutItem, _ state: inout JustifiedState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        precondition(state.isSectionOpen, "append called with no open section")
        let first = state.imagesInSection - state.pendingItems.count
        state.imagesInSection += 1
        if item.isFullSpan {
            flush(&state, first: first, emit)
            emit(state.imagesInSection - 1, rules.banner(item, &state.rowTop, &state.previousRowHeight))
            return
        }
        let aspect = JustifiedState.aspect(item)
        let candidate = state.pendingAspectSum + aspect
        switch rules.decide(state.pendingItems.count, state.pendingAspectSum, candidate) {
        case .gather:
            state.pendingItems.append(item)
            state.pendingAspectSum = candidate
        case .closeCandidate:
            state.pendingItems.append(item)
            closePending(&state, first: first, sum: candidate, emit)
        case .closePending:
            closePending(&state, first: first, sum: state.pendingAspectSum, emit)
            if aspect >= rules.minimumAspectRatio {
                var frame = Frame(x: 0, y: 0, width: 0, height: 0)
                withUnsafePointer(to: aspect) { aspects in
                    rules.close(aspects, 1, aspect, &state.rowTop, &state.previousRowHeight, &frame, rules.exactGrid)
                }
                emit(state.imagesInSection - 1, frame)
            } else {
                state.setPending(item, sum: 0 + aspect)
            }
        }
    }

    /// Closes the open section: places the pending row as a last row
    /// (``JustifiedConfiguration/lastRow``), reporting its frames through `emit` as
    /// ``append(_:_:_:)`` does, ends the section at its last row's bottom (`rowTop - r`, or
    /// `y` when it has no image) plus `sectionInset.bottom`, then places its footer.
    ///
    /// Returns the footer (or `nil` when `footerHeight` is 0) and the section's end in points.
    /// Leaves `state.y` below the footer and no section open. O(pending).
    /// Precondition: a section is open.
    public func closeSection(
        _ state: inout JustifiedState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) -> SectionEnd {
        precondition(state.isSectionOpen, "closeSection called with no open section")
        let config = configuration
        flush(&state, first: state.imagesInSection - state.pendingItems.count, emit)
        if state.imagesInSection > 0 {
            state.y = state.rowTop - rules.rowSpacing
        }
        state.y += config.sectionInset.bottom
        let sectionEnd = state.y
        let footer = footer(below: sectionEnd)
        state.y = footer.end
        state.rowTop = state.y
        state.previousRowHeight = nil
        state.imagesInSection = 0
        state.isSectionOpen = false
        return SectionEnd(footer: footer.frame, sectionEnd: sectionEnd)
    }

    /// The footer of a section whose content ends at `sectionEnd` (points: the bottom of its
    /// last row plus `sectionInset.bottom`), or `nil` when `footerHeight` is 0, and the `y`
    /// below it where the next section opens: what ``closeSection(_:_:)`` places, bit for bit.
    public func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double) {
        configuration.chrome.footer(below: sectionEnd)
    }

    /// The height of the whole content, in points: `max(state.y, minimumContentHeight)`.
    ///
    /// O(1). Precondition: no section is open (close the last one first).
    public func contentHeight(_ state: JustifiedState) -> Double {
        precondition(!state.isSectionOpen, "contentHeight called while a section is open")
        return max(state.y, configuration.minimumContentHeight)
    }

    /// Where a section's header is drawn when headers are pinned under `pinOffset` points
    /// from the top of a viewport at `viewportY`: the same formula as
    /// ``SectionChrome/pinnedHeader(natural:sectionEnd:viewportY:pinOffset:)``. O(1).
    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        configuration.chrome.pinnedHeader(
            natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }

    /// Places the state's pending row as a last row and empties it.
    private func flush(
        _ state: inout JustifiedState, first: Int, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        withPendingRow(&state, first: first, emit) { aspects, count, state, frames in
            rules.lastRow(
                aspects, count, state.pendingAspectSum, &state.rowTop, &state.previousRowHeight, frames, rules.exactGrid
            )
        }
    }

    /// Closes the state's pending row (DESIGN's `close(pending)`, its sum being `sum`) and
    /// empties it.
    private func closePending(
        _ state: inout JustifiedState, first: Int, sum: Double, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        withPendingRow(&state, first: first, emit) { aspects, count, state, frames in
            rules.close(aspects, count, sum, &state.rowTop, &state.previousRowHeight, frames, rules.exactGrid)
        }
    }

    /// Calls `place` with the aspect ratios of the state's pending images and room for their
    /// frames, reports the frames, and empties the pending row. Does nothing when it is empty.
    private func withPendingRow(
        _ state: inout JustifiedState, first: Int, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void,
        _ place: (UnsafePointer<Double>, Int, inout JustifiedState, UnsafeMutablePointer<Frame>) -> Void
    ) {
        let count = state.pendingItems.count
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { aspects in
            withUnsafeTemporaryAllocation(of: Frame.self, capacity: count) { frames in
                let aspects = aspects.baseAddress!
                let frames = frames.baseAddress!
                for index in 0..<count {
                    aspects[index] = JustifiedState.aspect(state.pendingItems[index])
                }
                place(aspects, count, &state, frames)
                for index in 0..<count {
                    emit(first + index, frames[index])
                }
            }
        }
        state.clearPending()
    }
}
