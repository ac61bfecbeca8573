/// The waterfall behind ``StreamingLayoutKind``: every image is placed as it is appended, so a
/// state is always at a place the cache may save (DESIGN section 5: every `stride` images).
extension LayoutState: ResumableLayoutState {
    /// Always 0: a waterfall decides each image's frame when it is appended.
    public var pendingCount: Int { 0 }

    public func shifted(by dy: Double) -> LayoutState {
        var state = self
        state.y += dy
        state.sectionStartY += dy
        for column in state.columnBottoms.indices { state.columnBottoms[column] += dy }
        return state
    }
}

extension WaterfallLayout: StreamingLayoutKind {
    /// Places `item` (``place(_:_:)``) and reports its frame at once.
    public func append(
        _ item: LayoutItem, _ state: inout LayoutState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        let index = state.imagesInSection
        emit(index, place(item, &state))
    }

    /// Places a run of images (``place(_:into:_:)``); every one is decided, so returns `items.count`.
    public func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout LayoutState
    ) -> Int {
        place(items, into: frames, &state)
        return items.count
    }

    /// Closes the section (``closeSection(_:)``); nothing is pending, so nothing is reported.
    public func closeSection(_ state: inout LayoutState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void)
        -> SectionEnd
    {
        closeSection(&state)
    }

    /// A state between sections, or one with a bottom for each of this layout's columns.
    public func canResume(from state: LayoutState) -> Bool {
        !state.isSectionOpen || state.columnBottoms.count == configuration.columns
    }

    public var shiftsExactly: Bool {
        let c = configuration
        return (c.scale == 1 || c.scale == 2) && c.chrome.isOnHalfPointGrid
            && isHalfPointMultiple(c.rowSpacing) && isHalfPointMultiple(c.captionHeight)
    }
}
