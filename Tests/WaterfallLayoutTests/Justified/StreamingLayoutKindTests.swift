import Testing
import WaterfallLayout
import WaterfallTestSupport

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
    @Test("the waterfall through the protocol: a generic run equals its own API", arguments: Array(UInt64(1)...40))
    func waterfallConforms(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let configuration = generator.configuration()
        let feed = generator.feed()
        let generic = runStreaming(try WaterfallLayout(configuration), feed)
        let own = runScalar(try WaterfallLayout(configuration), feed)
        #expect(generic.frames == own.frames && generic.headers == own.headers && generic.footers == own.footers)
        #expect(generic.sectionEnds == own.sectionEnds && generic.contentHeight == own.contentHeight)
        #expect(runGenericBulk(try WaterfallLayout(configuration), feed) == own.frames)
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
