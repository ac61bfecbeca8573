import Foundation
import Testing
import WaterfallTestSupport

@testable import Waterfall

/// Named layouts and cache keys are stored as canonical JSON. It is written by hand (Foundation's
/// encoder costs every query a fresh start-up), so it must stay the bytes Foundation writes, and
/// read back what either wrote.
@Suite struct CanonicalConfigurationTests {
    static func randomConfiguration(using random: inout SeededGenerator) -> LayoutConfiguration {
        let lengths: [Double] = [0, 1, 10, 2.5, 0.1, 1e-7, 123_456.789, 1e15, 1e16, 3.0e21, 44, 7.25]
        func length() -> Double { lengths.randomElement(using: &random)! }
        func insets() -> EdgeInsets { EdgeInsets(top: length(), left: length(), bottom: length(), right: length()) }
        return LayoutConfiguration(
            columns: Int.random(in: 1...64, using: &random),
            width: [320, 375.5, 1e6, 0.25].randomElement(using: &random)!,
            columnSpacing: length(), rowSpacing: length(), sectionInset: insets(), headerHeight: length(),
            footerHeight: length(), headerInset: insets(), footerInset: insets(), captionHeight: length(),
            minimumContentHeight: length(), order: PlacementOrder.allCases.randomElement(using: &random)!,
            scale: Int.random(in: 1...3, using: &random))
    }

    /// A named layout's stored text is decoded once and remembered (issue 53), by its exact
    /// bytes: two layouts whose overrides name sections "é" (one scalar) and "e" with U+0301
    /// (two), which Swift's `==` takes for one string, each get their own configuration and key,
    /// their own text's bytes, in either order.
    @Test func storedTextsAreRememberedByTheirExactBytes() throws {
        func stored(_ section: String) throws -> String {
            AnyLayoutConfiguration.sectioned(
                try SectionedConfiguration(
                    base: .waterfall(LayoutConfiguration(columns: 2, width: 375)),
                    entries: [["section": .string(section), "columns": .number(1)]])
            ).canonicalJSON
        }
        let composed = try stored("caf\u{E9}")
        let decomposed = try stored("cafe\u{301}")
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        for text in [composed, decomposed, composed] {
            let (configuration, key) = try AnyLayoutConfiguration.fromStored(text)
            #expect(key.utf8.elementsEqual(text.utf8))
            #expect(configuration.canonicalJSON.utf8.elementsEqual(text.utf8))
        }
    }

    @Test func theCanonicalFormIsWhatFoundationWritesAndReadsBack() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var random = SeededGenerator(seed: 11)
        for _ in 0..<300 {
            let configuration = Self.randomConfiguration(using: &random)
            let canonical = configuration.canonicalJSON()
            #expect(canonical == String(decoding: try encoder.encode(configuration), as: UTF8.self))
            #expect(try AnyLayoutConfiguration.fromCanonicalJSON(canonical) == .waterfall(configuration))
        }
    }

    @Test func justifiedRowsToo() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var random = SeededGenerator(seed: 12)
        for _ in 0..<300 {
            let waterfall = Self.randomConfiguration(using: &random)
            let rows = JustifiedConfiguration(
                width: waterfall.width, rowHeight: [180, 0.5, 1e6, 33.3].randomElement(using: &random)!,
                rowHeightTolerance: [0, 0.25, 1, 0.125].randomElement(using: &random)!,
                columnSpacing: waterfall.columnSpacing,
                rowSpacing: waterfall.rowSpacing, lastRow: LastRowStyle.allCases.randomElement(using: &random)!,
                sectionInset: waterfall.sectionInset, headerHeight: waterfall.headerHeight,
                footerHeight: waterfall.footerHeight,
                headerInset: waterfall.headerInset, footerInset: waterfall.footerInset,
                captionHeight: waterfall.captionHeight,
                minimumContentHeight: waterfall.minimumContentHeight, scale: waterfall.scale)
            let configuration = AnyLayoutConfiguration.justified(rows)
            let canonical = configuration.canonicalJSON
            #expect(canonical == String(decoding: try encoder.encode(configuration), as: UTF8.self))
            #expect(JustifiedConfiguration.fromCanonicalJSON(canonical, kind: "justified") == rows)
            #expect(try AnyLayoutConfiguration.fromCanonicalJSON(canonical) == configuration)
            // A waterfall's reader does not take it, nor a justified reader a waterfall's.
            #expect(LayoutConfiguration.fromCanonicalJSON(canonical) == nil)
            #expect(JustifiedConfiguration.fromCanonicalJSON(waterfall.canonicalJSON(), kind: "justified") == nil)
        }
    }

    @Test func otherJSONIsReadAsJSONDecoderReadsIt() throws {
        // Spacing, key order and left-out defaults: what a hand-edited database might hold.
        let loose =
            #"{ "width": 800, "columns": 3, "order": "left-to-right", "sectionInset": {"top": 1, "left": 2, "bottom": 3, "right": 4} }"#
        #expect(
            try AnyLayoutConfiguration.fromCanonicalJSON(loose)
                == .waterfall(
                    LayoutConfiguration(
                        columns: 3, width: 800, sectionInset: EdgeInsets(top: 1, left: 2, bottom: 3, right: 4),
                        order: .leftToRight)))
        // Numbers the canonical form never writes are left to JSONDecoder, which refuses these.
        let canonical = LayoutConfiguration(columns: 3, width: 800).canonicalJSON()
        for (written, replacement) in [
            (#""columns":3"#, #""columns":03"#), (#""width":800"#, #""width":0x320"#),
            (#""width":800"#, #""width":+800"#),
        ] {
            let edited = canonical.replacingOccurrences(of: written, with: replacement)
            #expect(edited != canonical)
            #expect(throws: (any Error).self, "\(replacement)") { try AnyLayoutConfiguration.fromCanonicalJSON(edited) }
        }
        // A number written another way than the canonical form reads the same.
        let spelled = canonical.replacingOccurrences(of: #""width":800"#, with: #""width":800.0"#)
        #expect(
            try AnyLayoutConfiguration.fromCanonicalJSON(spelled)
                == .waterfall(LayoutConfiguration(columns: 3, width: 800)))
    }
}
