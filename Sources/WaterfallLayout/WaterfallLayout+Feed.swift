/// Laying out a whole feed held in memory.
extension WaterfallLayout {
    /// Lays out a whole feed: sections in order, each an array of images (possibly empty).
    ///
    /// Every section is opened, filled with the bulk ``place(_:into:_:)`` and closed, exactly
    /// as the incremental API would do it; the result also holds the lists that make
    /// ``FeedLayout/viewport(y:height:)`` fast. O(n × columns) time, O(n) memory.
    public func layout(_ sections: [[LayoutItem]]) -> FeedLayout {
        let total = sections.reduce(0) { $0 + $1.count }
        var state = initialState
        var sectionLayouts: [SectionLayout] = []
        sectionLayouts.reserveCapacity(sections.count)
        let frames = [Frame](unsafeUninitializedCapacity: total) { buffer, initialized in
            var next = 0
            for items in sections {
                let header = openSection(&state)
                let sectionStartY = state.sectionStartY
                items.withUnsafeBufferPointer { items in
                    let target = UnsafeMutableBufferPointer(rebasing: buffer[next..<next + items.count])
                    place(items, into: target, &state)
                }
                let end = closeSection(&state)
                sectionLayouts.append(
                    SectionLayout(
                        header: header, footer: end.footer, items: next..<next + items.count,
                        sectionStartY: sectionStartY, sectionEnd: end.sectionEnd))
                next += items.count
            }
            initialized = next
        }
        return FeedLayout(
            configuration: configuration, itemFrames: frames, sections: sectionLayouts,
            contentHeight: contentHeight(state))
    }
}
