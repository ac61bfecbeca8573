import Testing
import WaterfallLayout
import WaterfallTestSupport

/// The waterfall engine, unchanged, behind ``StreamingLayoutKind``: the conformance the doc
/// comment of the protocol proposes, written on wrappers so that it never collides with the
/// real one once the module adds it.
struct WaterfallKind: StreamingLayoutKind {
    struct State: ResumableLayoutState {
        var base: LayoutState
        var isSectionOpen: Bool { base.isSectionOpen }
        var sectionStartY: Double { base.sectionStartY }
        var imagesInSection: Int { base.imagesInSection }
        var pendingCount: Int { 0 }
        func serialized() -> [UInt8] { base.serialized() }
        init(base: LayoutState) { self.base = base }
        init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError) {
            base = try LayoutState(serialized: bytes)
        }
    }

    let base: WaterfallLayout
    var configuration: LayoutConfiguration { base.configuration }

    init(_ configuration: LayoutConfiguration) throws(LayoutConfigurationError) {
        base = try WaterfallLayout(configuration)
    }

    var initialState: State { State(base: base.initialState) }

    func openSection(_ state: inout State) -> Frame? { base.openSection(&state.base) }

    func headerFrame(sectionStartY: Double) -> Frame? { base.headerFrame(sectionStartY: sectionStartY) }

    func append(_ item: LayoutItem, _ state: inout State, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void) {
        let index = state.base.imagesInSection
        emit(index, base.place(item, &state.base))
    }

    func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>, _ state: inout State
    ) -> Int {
        base.place(items, into: frames, &state.base)
        return items.count
    }

    func closeSection(_ state: inout State, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void) -> SectionEnd {
        base.closeSection(&state.base)
    }

    func contentHeight(_ state: State) -> Double { base.contentHeight(state.base) }

    func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        base.pinnedHeader(natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }
}

/// A kind-agnostic bulk run, as a generic cache would write it.
func runGenericBulk<Layout: StreamingLayoutKind>(_ layout: Layout, _ sections: [[LayoutItem]]) -> [Frame] {
    var state = layout.initialState
    var frames = [Frame](repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: sections.reduce(0) { $0 + $1.count })
    var next = 0
    for items in sections {
        _ = layout.openSection(&state)
        let start = next
        frames.withUnsafeMutableBufferPointer { buffer in
            items.withUnsafeBufferPointer { items in
                let target = UnsafeMutableBufferPointer(rebasing: buffer[start..<start + items.count])
                _ = layout.append(contentsOf: items, into: target, &state)
            }
        }
        _ = layout.closeSection(&state) { index, frame in frames[start + index] = frame }
        next += items.count
    }
    return frames
}

@Suite("Streaming layout kinds")
struct StreamingLayoutKindTests {
    @Test("the waterfall fits the protocol unchanged: a generic run equals its own API", arguments: Array(UInt64(1)...40))
    func waterfallConforms(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.configuration()
        let feed = generator.feed()
        let generic = runStreaming(try WaterfallKind(configuration), feed)
        let own = runScalar(try WaterfallLayout(configuration), feed)
        #expect(generic.frames == own.frames && generic.headers == own.headers && generic.footers == own.footers)
        #expect(generic.sectionEnds == own.sectionEnds && generic.contentHeight == own.contentHeight)
        #expect(runGenericBulk(try WaterfallKind(configuration), feed) == own.frames)
    }

    @Test("the justified layout through the protocol: generic bulk equals streaming", arguments: Array(UInt64(1)...40))
    func justifiedConforms(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let layout = try JustifiedLayout(generator.justifiedConfiguration())
        let feed = generator.justifiedFeed()
        let frames = runGenericBulk(layout, feed)
        let streaming = runStreaming(layout, feed)
        #expect(zip(frames, streaming.frames).allSatisfy(sameBits) && frames.count == streaming.frames.count)
    }
}
