import Testing
import WaterfallLayout
import WaterfallTestSupport

@Suite("Viewport queries")
struct ViewportTests {
    /// The answer computed the slow way: every frame of the feed tested against the band.
    func bruteForce(_ feed: FeedLayout, y: Double, height: Double, pinOffset: Double?) -> Viewport {
        let items = feed.itemFrames.indices.filter { feed.itemFrames[$0].meetsBand(y: y, height: height) }
        let footers = feed.sections.indices.filter { feed.sections[$0].footer?.meetsBand(y: y, height: height) == true }
        let naturalHeaders = feed.sections.indices.filter {
            feed.sections[$0].header?.meetsBand(y: y, height: height) == true
        }
        guard let pinOffset else {
            return Viewport(
                items: items,
                headers: naturalHeaders.map {
                    ViewportHeader(section: $0, frame: feed.sections[$0].header!, isPinned: false)
                },
                footers: footers)
        }
        let layout = try! WaterfallLayout(feed.configuration)
        let touched = feed.sections.indices.filter { section in
            naturalHeaders.contains(section) || footers.contains(section)
                || feed.sections[section].items.contains { items.contains($0) }
        }
        let headers = touched.compactMap { section -> ViewportHeader? in
            guard let natural = feed.sections[section].header else { return nil }
            let pinned = layout.pinnedHeader(
                natural: natural, sectionEnd: feed.sections[section].sectionEnd, viewportY: y, pinOffset: pinOffset)
            return ViewportHeader(section: section, frame: pinned.frame, isPinned: pinned.isPinned)
        }
        return Viewport(items: items, headers: headers, footers: footers)
    }

    @Test("a hand-worked viewport: what meets [y, y + height) and nothing else")
    func handWorked() throws {
        // Given the phone layout with 44-point headers and two sections
        let layout = try phoneLayout(headerHeight: 44)
        let square = LayoutItem(width: 100, height: 100)  // 145 tall
        let feed = layout.layout([[square, square, square], [square]])
        // Section 0: header (0, 0, 320, 44); y = 44 + 10 = 54; images at (10, 54), (165, 54), (10, 209);
        // end max(364, 209) - 10 + 10 = 364. Section 1: header (0, 364), image at 364 + 44 + 10 = 418.
        #expect(feed.itemFrames.map(\.y) == [54, 54, 209, 418])
        #expect(feed.sections.map { $0.header?.y } == [0, 364])

        // When the band [200, 400) is queried
        let viewport = feed.viewport(y: 200, height: 200)

        // Then images 0 and 1 (54..<199) are out, images 0,1 end at 199 ≤ 200; image 2 (209..<354) is in;
        // header 1 (364..<408) meets the band; image 3 starts at 418 ≥ 400
        #expect(viewport.items == [2])
        #expect(
            viewport.headers == [
                ViewportHeader(section: 1, frame: Frame(x: 0, y: 364, width: 320, height: 44), isPinned: false)
            ])
        #expect(viewport.footers == [])
    }

    @Test("a frame touching the band's edge does not meet it")
    func edges() throws {
        // Given image 0 of the phone layout at (10, 10, 145, 145): it spans [10, 155)
        let feed = try phoneLayout().layout([[LayoutItem(width: 100, height: 100)]])

        // Then [155, 165) misses it, [154, 155) meets it, [0, 10) misses it, and an empty band at 100 meets it
        #expect(feed.viewport(y: 155, height: 10).items == [])
        #expect(feed.viewport(y: 154, height: 1).items == [0])
        #expect(feed.viewport(y: 0, height: 10).items == [])
        #expect(feed.viewport(y: 100, height: 0).items == [0])
    }

    @Test("pinned headers: every section with something in the band gets its header, pinned")
    func pinnedHandWorked() throws {
        // Given the two-section feed of handWorked
        let layout = try phoneLayout(headerHeight: 44)
        let square = LayoutItem(width: 100, height: 100)
        let feed = layout.layout([[square, square, square], [square]])

        // When the band [300, 500) is queried with a 20-point pin offset
        let viewport = feed.viewport(y: 300, height: 200, pinOffset: 20)

        // Then section 0 (image 2 ends at 354) gets its header at min(max(320, 0), 364 - 44 = 320) = 320, pinned;
        // section 1 (header at 364, image 3) gets min(max(320, 364), 573 - 44) = 364, not moved
        #expect(viewport.items == [2, 3])
        #expect(
            viewport.headers == [
                ViewportHeader(section: 0, frame: Frame(x: 0, y: 320, width: 320, height: 44), isPinned: true),
                ViewportHeader(section: 1, frame: Frame(x: 0, y: 364, width: 320, height: 44), isPinned: false),
            ])
    }

    @Test("viewport equals the brute-force filter of all frames", arguments: Array(UInt64(1)...200))
    func equalsBruteForce(seed: UInt64) throws {
        // Given a random layout
        var generator = SeededGenerator(seed: seed)
        let layout = try WaterfallLayout(generator.configuration())
        let feed = layout.layout(generator.feed(maximumItems: 60))

        // When random bands are queried, with and without pinning
        for _ in 0..<10 {
            let y = Double.random(in: -100...(feed.contentHeight + 100), using: &generator).rounded()
            let height = Bool.random(using: &generator) ? 0 : Double.random(in: 0...800, using: &generator)
            let pinOffset = Double.random(in: 0...100, using: &generator)

            // Then the fast answers equal the brute-force ones
            #expect(
                feed.viewport(y: y, height: height) == bruteForce(feed, y: y, height: height, pinOffset: nil),
                "seed \(seed)")
            #expect(
                feed.viewport(y: y, height: height, pinOffset: pinOffset)
                    == bruteForce(feed, y: y, height: height, pinOffset: pinOffset),
                "seed \(seed)")
        }
    }

    @Test("a pinned header never leaves its section", arguments: Array(UInt64(1)...200))
    func pinnedStaysInSection(seed: UInt64) throws {
        // Given a random layout with headers
        var generator = SeededGenerator(seed: seed)
        var configuration = generator.configuration()
        configuration.headerHeight = max(configuration.headerHeight, 1)
        let layout = try WaterfallLayout(configuration)
        let feed = layout.layout(generator.feed(maximumItems: 30))

        // When bands at random depths are queried with pinning
        for _ in 0..<10 {
            let y = Double.random(in: -100...(feed.contentHeight + 100), using: &generator)
            let viewport = feed.viewport(y: y, height: 300, pinOffset: Double.random(in: 0...100, using: &generator))

            // Then each header lies between its natural position and its section's end
            for header in viewport.headers {
                let section = feed.sections[header.section]
                let tolerance = 1e-9 * max(1, section.sectionEnd)
                #expect(header.frame.y >= section.header!.y - tolerance, "seed \(seed)")
                #expect(header.frame.maxY <= section.sectionEnd + tolerance, "seed \(seed)")
                #expect(header.isPinned == (header.frame.y != section.header!.y))
            }
        }
    }

    @Test("a deep viewport in a large feed finds the same items as brute force")
    func deepInLargeFeed() throws {
        // Given 20,000 images in 3 sections
        var generator = SeededGenerator(seed: 99)
        let layout = try WaterfallLayout(
            LayoutConfiguration(columns: 4, width: 768, headerHeight: 30, footerHeight: 20))
        let feed = layout.layout((0..<3).map { _ in (0..<6_667).map { _ in generator.item() } })

        // When a band at 99% depth is queried
        let y = feed.contentHeight * 0.99
        let viewport = feed.viewport(y: y, height: 1_000)

        // Then it matches the brute-force filter
        #expect(viewport == bruteForce(feed, y: y, height: 1_000, pinOffset: nil))
    }

    @Test("a FeedLayout rebuilt from its own frames answers the same")
    func rebuiltFromFrames() throws {
        // Given a random layout and a copy made with the public initializer
        var generator = SeededGenerator(seed: 5)
        let layout = try WaterfallLayout(generator.configuration())
        let feed = layout.layout(generator.feed())
        let copy = FeedLayout(
            configuration: feed.configuration, itemFrames: feed.itemFrames, sections: feed.sections,
            contentHeight: feed.contentHeight)

        // Then the viewports agree
        for y in stride(from: -50.0, through: feed.contentHeight, by: 97) {
            #expect(copy.viewport(y: y, height: 250, pinOffset: 10) == feed.viewport(y: y, height: 250, pinOffset: 10))
        }
    }
}
