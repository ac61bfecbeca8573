import Foundation
import Testing
import WaterfallLayout

/// Per-section overrides (DESIGN section 14): what a section inherits, what is refused (with
/// the JSON path), the canonical form, and the engine that stacks sections of mixed kinds.
@Suite("Sections you can steer")
struct SectionOverrideTests {
    private func decode(_ json: String) throws -> AnyLayoutConfiguration {
        try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(json.utf8))
    }

    /// The error decoding and validating `json` throws.
    private func refusal(_ json: String) -> LayoutConfigurationError? {
        do {
            try decode(json).validate()
            return nil
        } catch let error as LayoutConfigurationError {
            return error
        } catch {
            Issue.record("not a LayoutConfigurationError: \(error)")
            return nil
        }
    }

    @Test func anOverrideOfTheSameKindInheritsEveryFieldItDoesNotSet() throws {
        let configuration = try decode(
            #"""
            {"columns": 3, "width": 414, "columnSpacing": 7, "headerHeight": 30, "order": "left-to-right", "scale": 2,
             "sections": [{"section": "2024-05", "columns": 1}]}
            """#)
        let override = try #require(configuration.sectionOverrides.first)
        #expect(override.section == "2024-05")
        #expect(
            override.configuration
                == .waterfall(
                    LayoutConfiguration(
                        columns: 1, width: 414, columnSpacing: 7, headerHeight: 30, order: .leftToRight, scale: 2)))
    }

    @Test func anOverrideOfAnotherKindInheritsOnlyTheSharedFieldsAndGivesTheRest() throws {
        let configuration = try decode(
            #"""
            {"columns": 3, "width": 414, "columnSpacing": 7, "rowSpacing": 3, "headerHeight": 30, "captionHeight": 12,
             "sectionInset": {"top": 1, "left": 2, "bottom": 3, "right": 4}, "order": "right-to-left", "scale": 2,
             "sections": [{"section": "2024-06", "kind": "justified", "rowHeight": 150}]}
            """#)
        #expect(
            configuration.sectionOverrides.first?.configuration
                == .justified(
                    JustifiedConfiguration(
                        width: 414, rowHeight: 150, columnSpacing: 7, rowSpacing: 3,
                        sectionInset: EdgeInsets(top: 1, left: 2, bottom: 3, right: 4),
                        headerHeight: 30, captionHeight: 12, scale: 2)))
        // And the other way round: a waterfall section of a justified layout gives its columns.
        let rows = try decode(
            #"{"kind": "justified", "width": 800, "rowHeight": 120, "lastRow": "center", "sections": [{"section": "a", "kind": "waterfall", "columns": 2}]}"#
        )
        #expect(rows.sectionOverrides.first?.configuration == .waterfall(LayoutConfiguration(columns: 2, width: 800)))
        #expect(rows.kind == .justified)
    }

    @Test func whatASectionCannotSayIsRefusedWithItsJSONPath() {
        let cases: [(json: String, field: String)] = [
            (#"{"columns": 3, "width": 414, "sections": [{"columns": 1}]}"#, "sections[0].section"),
            (#"{"columns": 3, "width": 414, "sections": [{"section": 5, "columns": 1}]}"#, "sections[0].section"),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a", "columns": 1}, {"section": "a", "columns": 2}]}"#,
                "sections[1].section"
            ),
            (#"{"columns": 3, "width": 414, "sections": [{"section": "a", "width": 300}]}"#, "sections[0].width"),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a"}, {"section": "b", "scale": 2}]}"#,
                "sections[1].scale"
            ),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a", "rowHeight": 100}]}"#,
                "sections[0].rowHeight"
            ),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a", "kind": "justified", "columns": 2, "rowHeight": 9}]}"#,
                "sections[0].columns"
            ),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a", "kind": "justified"}]}"#,
                "sections[0].rowHeight"
            ),
            (
                #"{"kind": "justified", "width": 414, "rowHeight": 100, "sections": [{"section": "a", "kind": "waterfall"}]}"#,
                "sections[0].columns"
            ),
            (#"{"columns": 3, "width": 414, "sections": [{"section": "a", "kind": "grid"}]}"#, "sections[0].kind"),
            (#"{"columns": 3, "width": 414, "sections": [{"section": "a", "colums": 2}]}"#, "sections[0].colums"),
            (#"{"columns": 3, "width": 414, "sections": [{"section": "a", "columns": "two"}]}"#, "sections[0].columns"),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a"}, {"section": "b"}, {"section": "c", "columns": 65}]}"#,
                "sections[2].columns"
            ),
            (
                #"{"columns": 3, "width": 414, "sections": [{"section": "a", "sectionInset": {"top": 0, "left": 300, "bottom": 0, "right": 300}}]}"#,
                "sections[0].contentWidth"
            ),
        ]
        for (json, field) in cases {
            let error = refusal(json)
            #expect(error?.field == field, "\(json)")
            #expect(error?.message.hasPrefix(field) == true, "\(error?.message ?? "accepted"): \(json)")
        }
    }

    @Test func anOverrideMayNameASectionTheFeedDoesNotHaveYet() throws {
        let engine = try SectionedLayout(
            try #require(
                try sectioned(#"{"columns": 2, "width": 300, "sections": [{"section": "later", "columns": 1}]}"#)))
        #expect(engine.variant(ofSection: "later") == 1)
        #expect(engine.variant(ofSection: "now") == 0)
    }

    @Test func theCanonicalFormKeepsTheOverridesInOrderAndLeavesOutAnEmptyList() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json =
            #"{"columns": 3, "width": 414, "sections": [{"section": "z", "columns": 1}, {"section": "a", "kind": "justified", "rowHeight": 150}]}"#
        let text = String(decoding: try encoder.encode(try decode(json)), as: UTF8.self)
        #expect(
            text.contains(
                #""sections":[{"columns":1,"section":"z"},{"kind":"justified","rowHeight":150,"section":"a"}]"#),
            "\(text)")
        #expect(try decode(text) == decode(json))
        // No overrides: exactly the layout's own configuration.
        let plain = try decode(#"{"columns": 3, "width": 414, "sections": []}"#)
        #expect(plain == .waterfall(LayoutConfiguration(columns: 3, width: 414)))
        #expect(!String(decoding: try encoder.encode(plain), as: UTF8.self).contains("sections"))
    }

    private func sectioned(_ json: String) throws -> SectionedConfiguration? {
        if case .sectioned(let configuration) = try decode(json) { return configuration }
        return nil
    }

    /// Sections of 0 to 12 photos, some banners, named s0, s1, ….
    private func feed(_ seed: UInt64, sections: Int) -> [[LayoutItem]] {
        var random = seed
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        return (0..<sections).map { _ in
            (0..<next(13)).map { _ in
                LayoutItem(width: Int32(200 + next(3000)), height: Int32(200 + next(3000)), isFullSpan: next(12) == 0)
            }
        }
    }

    /// Lays `sections` out with `engine`, image by image, each section with its variant by name.
    private func run(_ engine: SectionedLayout, _ sections: [[LayoutItem]]) -> (
        frames: [Frame], headers: [Frame?], height: Double
    ) {
        var state = engine.initialState
        var frames: [Frame] = []
        var headers: [Frame?] = []
        for (ordinal, items) in sections.enumerated() {
            let first = frames.count
            frames += Array(repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
            headers.append(engine.openSection(&state, variant: engine.variant(ofSection: "s\(ordinal)")))
            for item in items { engine.append(item, &state) { frames[first + $0] = $1 } }
            _ = engine.closeSection(&state) { frames[first + $0] = $1 }
        }
        return (frames, headers, engine.contentHeight(state))
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func overridesThatRepeatTheLayoutGiveTheLayoutsOwnFramesBitForBit(seed: UInt64) throws {
        let sections = feed(seed, sections: 6)
        for (base, same) in [
            (#""columns": 3, "width": 414, "headerHeight": 21.5, "scale": 3"#, #""columns": 3"#),
            (
                #""kind": "justified", "width": 414, "rowHeight": 97.3, "lastRow": "justify", "footerHeight": 9"#,
                #""rowHeight": 97.3"#
            ),
        ] {
            let entries = (0..<6).filter { $0 % 2 == 0 }.map { #"{"section": "s\#($0)", \#(same)}"# }.joined(
                separator: ", ")
            let layout = try #require(try sectioned("{\(base), \"sections\": [\(entries)]}"))
            let mixed = run(try SectionedLayout(layout), sections)
            let plain: (frames: [Frame], height: Double)
            switch layout.base {
            case .waterfall(let own):
                let whole = try WaterfallLayout(own).layout(sections)
                plain = (whole.itemFrames, whole.contentHeight)
            case .justified(let own):
                let whole = try JustifiedLayout(own).layout(sections)
                plain = (whole.itemFrames, whole.contentHeight)
            case .sectioned:
                Issue.record("nested")
                return
            }
            #expect(mixed.frames == plain.frames, "seed \(seed)")
            #expect(mixed.height == plain.height)
        }
    }

    @Test func sectionsOfMixedKindsStackInOrder() throws {
        // A one-column section, a justified one and a three-column one (the layout's own).
        let layout = try #require(
            try sectioned(
                #"""
                {"columns": 3, "width": 400, "headerHeight": 20,
                 "sections": [{"section": "s0", "columns": 1}, {"section": "s1", "kind": "justified", "rowHeight": 100}]}
                """#))
        let engine = try SectionedLayout(layout)
        let photo = LayoutItem(width: 400, height: 300)
        let result = run(engine, [[photo, photo], [photo, photo, photo], [photo, photo, photo]])
        // s0: header 0..20, inset 10, one column 380 wide: 285 tall each, 10 apart.
        #expect(result.frames[0] == Frame(x: 10, y: 30, width: 380, height: 285))
        #expect(result.frames[1] == Frame(x: 10, y: 325, width: 380, height: 285))
        // s0 ends at 610 + 10 = 620; s1's header at 620, its rows start at 650, side by side.
        #expect(result.headers[1] == Frame(x: 0, y: 620, width: 400, height: 20))
        #expect(result.frames[2].y == 650 && result.frames[3].y == 650 && result.frames[2].x == 10)
        #expect(result.frames[3].x > result.frames[2].maxX)
        // s2: three columns, 120 wide, below s1's end.
        let s1Bottom = result.frames[2...4].map(\.maxY).max()!
        #expect(result.headers[2]!.y == s1Bottom + 10)
        #expect(result.frames[5...7].map(\.width) == [120, 120, 120])
        #expect(result.frames[5...7].map(\.x) == [10, 140, 270])
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func aStateSavedAnywhereResumesBitForBitAndCarriesItsSectionsKind(seed: UInt64) throws {
        let layout = try #require(
            try sectioned(
                #"""
                {"kind": "justified", "width": 500, "rowHeight": 90, "headerHeight": 14, "footerHeight": 6, "scale": 2,
                 "sections": [{"section": "s1", "kind": "waterfall", "columns": 2}, {"section": "s3", "kind": "waterfall", "columns": 5, "order": "left-to-right"},
                              {"section": "s4", "rowHeight": 45, "lastRow": "center"}]}
                """#))
        let engine = try SectionedLayout(layout)
        let sections = feed(seed, sections: 6)
        let whole = run(engine, sections)
        // Resume from every state between images where nothing is pending.
        var state = engine.initialState
        var index = 0
        for (ordinal, items) in sections.enumerated() {
            _ = engine.openSection(&state, variant: engine.variant(ofSection: "s\(ordinal)"))
            for item in items {
                if state.pendingCount == 0 {
                    let bytes = state.serialized()
                    #expect(bytes.first == UInt8(ascii: "S"))
                    var resumed = try SectionedState(serialized: bytes)
                    #expect(resumed == state)
                    #expect(resumed.variant == engine.variant(ofSection: "s\(ordinal)"))
                    // The rest of this section from the resumed state gives the same frames.
                    var frames: [Int: Frame] = [:]
                    let first = index - state.imagesInSection
                    for later in items[state.imagesInSection...] {
                        engine.append(later, &resumed) { frames[first + $0] = $1 }
                    }
                    _ = engine.closeSection(&resumed) { frames[first + $0] = $1 }
                    for (at, frame) in frames { #expect(frame == whole.frames[at], "seed \(seed) image \(at)") }
                }
                engine.append(item, &state) { _, _ in }
                index += 1
            }
            _ = engine.closeSection(&state) { _, _ in }
        }
        // A state read back from storage is checked against the layout before it is resumed.
        #expect(engine.canResume(from: state))
        var foreign = [UInt8(ascii: "S"), 9] + JustifiedState().serialized()
        #expect(!engine.canResume(from: try SectionedState(serialized: foreign)), "variant 9 of a layout with 4")
        foreign = [UInt8(ascii: "S"), 1] + JustifiedState().serialized()
        #expect(!engine.canResume(from: try SectionedState(serialized: foreign)), "variant 1 is a waterfall's")
        #expect(throws: LayoutStateDecodingError.self) { try SectionedState(serialized: [0x53]) }
        #expect(throws: LayoutStateDecodingError.self) { try SectionedState(serialized: LayoutState().serialized()) }
    }

    @Test(arguments: 1...6 as ClosedRange<UInt64>)
    func theBulkAppendGivesTheFramesOfAppendingOneByOne(seed: UInt64) throws {
        let layout = try #require(
            try sectioned(
                #"""
                {"columns": 4, "width": 700, "sections": [{"section": "s0", "kind": "justified", "rowHeight": 120}, {"section": "s2", "columns": 1}]}
                """#))
        let engine = try SectionedLayout(layout)
        let sections = feed(seed, sections: 4)
        let expected = run(engine, sections).frames
        var state = engine.initialState
        var frames: [Frame] = []
        for (ordinal, items) in sections.enumerated() {
            _ = engine.openSection(&state, variant: engine.variant(ofSection: "s\(ordinal)"))
            var out = Array(repeating: Frame(x: 0, y: 0, width: 0, height: 0), count: items.count)
            let decided = items.withUnsafeBufferPointer { items in
                out.withUnsafeMutableBufferPointer { engine.append(contentsOf: items, into: $0, &state) }
            }
            frames += out.prefix(decided)
            // The images still pending are decided when the section closes, in order.
            _ = engine.closeSection(&state) { _, frame in frames.append(frame) }
        }
        #expect(frames.count == expected.count)
        #expect(frames == expected, "seed \(seed)")
    }
}
