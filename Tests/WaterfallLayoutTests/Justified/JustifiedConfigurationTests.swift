import Foundation
import Testing
import WaterfallLayout

@Suite("Justified rows: configuration and state")
struct JustifiedConfigurationTests {
    @Test("DESIGN's defaults apply to everything but width and rowHeight")
    func defaults() {
        let configuration = JustifiedConfiguration(width: 420, rowHeight: 100)
        #expect(configuration.rowHeightTolerance == 0.25)
        #expect(configuration.columnSpacing == 10)
        #expect(configuration.rowSpacing == 10)
        #expect(configuration.lastRow == .left)
        #expect(configuration.sectionInset == EdgeInsets(all: 10))
        #expect(configuration.headerHeight == 0 && configuration.footerHeight == 0)
        #expect(configuration.headerInset == .zero && configuration.footerInset == .zero)
        #expect(configuration.captionHeight == 0 && configuration.minimumContentHeight == 0)
        #expect(configuration.scale == 1)
        // W = 420 - 20 = 400; minAR = 400 / 100 × 0.75 = 3; maxAR = 4 × 1.25 = 5
        #expect(configuration.contentWidth == 400)
        #expect(configuration.minimumAspectRatio == 3)
        #expect(configuration.maximumAspectRatio == 5)
    }

    @Test(
        "validation names the field, the range and the value in one sentence",
        arguments: [
            (
                JustifiedConfiguration(width: 0, rowHeight: 100), "width",
                "width must be greater than 0 and at most 1000000 points, got 0."
            ),
            (
                JustifiedConfiguration(width: 420, rowHeight: 0), "rowHeight",
                "rowHeight must be greater than 0 and at most 1000000 points, got 0."
            ),
            (
                JustifiedConfiguration(width: 420, rowHeight: 2_000_000), "rowHeight",
                "rowHeight must be greater than 0 and at most 1000000 points, got 2000000."
            ),
            (
                JustifiedConfiguration(width: 420, rowHeight: 100, rowHeightTolerance: 1.5), "rowHeightTolerance",
                "rowHeightTolerance must be a number from 0 to 1, got 1.5."
            ),
            (
                JustifiedConfiguration(width: 420, rowHeight: 100, rowHeightTolerance: .nan), "rowHeightTolerance",
                "rowHeightTolerance must be a number from 0 to 1, got NaN."
            ),
            (
                JustifiedConfiguration(width: 420, rowHeight: 100, columnSpacing: -1), "columnSpacing",
                "columnSpacing must be a number from 0 to 1000000 points, got -1."
            ),
            (
                JustifiedConfiguration(
                    width: 420, rowHeight: 100, sectionInset: EdgeInsets(top: 0, left: .infinity, bottom: 0, right: 0)),
                "sectionInset", "sectionInset.left must be a number from 0 to 1000000 points, got infinity."
            ),
            (JustifiedConfiguration(width: 420, rowHeight: 100, scale: 4), "scale", "scale must be 1, 2 or 3, got 4."),
            (
                JustifiedConfiguration(width: 20, rowHeight: 100), "contentWidth",
                "contentWidth must be greater than 0, got 0 (width 20 minus sectionInset.left 10 and sectionInset.right 10): "
                    + "make width larger or sectionInset smaller."
            ),
        ])
    func validation(configuration: JustifiedConfiguration, field: String, message: String) {
        #expect(throws: LayoutConfigurationError(field: field, message: message)) {
            try JustifiedLayout(configuration)
        }
    }

    @Test("JSON: every field is encoded; only width and rowHeight are required")
    func json() throws {
        // Given a minimal JSON object
        let decoded = try JSONDecoder().decode(
            JustifiedConfiguration.self, from: Data(#"{"width": 420, "rowHeight": 100, "lastRow": "center"}"#.utf8))
        #expect(decoded == JustifiedConfiguration(width: 420, rowHeight: 100, lastRow: .center))

        // When encoded, every field is there, and it decodes to the same value
        let encoded = try JSONEncoder().encode(decoded)
        let object = try JSONSerialization.jsonObject(with: encoded) as! [String: Any]
        #expect(
            Set(object.keys) == [
                "width", "rowHeight", "rowHeightTolerance", "columnSpacing", "rowSpacing", "lastRow", "sectionInset",
                "headerHeight", "footerHeight", "headerInset", "footerInset", "captionHeight", "minimumContentHeight",
                "scale",
            ])
        #expect(try JSONDecoder().decode(JustifiedConfiguration.self, from: encoded) == decoded)
    }

    @Test(
        "JSON: columns and order are refused as the waterfall's, with a sentence",
        arguments: [
            (#"{"width": 420, "rowHeight": 100, "columns": 3}"#, "columns"),
            (#"{"width": 420, "rowHeight": 100, "order": "shortest"}"#, "order"),
        ])
    func waterfallKeysRefused(json: String, key: String) {
        #expect(throws: ConfigurationKeyError(key: key, kind: .justified, owner: .waterfall)) {
            try JSONDecoder().decode(JustifiedConfiguration.self, from: Data(json.utf8))
        }
        #expect(
            ConfigurationKeyError(key: key, kind: .justified, owner: .waterfall).sentence { "--" + $0 }
                == "--\(key) does not apply to a justified layout: remove it, or give --kind waterfall.")
    }

    @Test(
        "JSON: an unknown lastRow and a missing rowHeight are refused",
        arguments: [
            #"{"width": 420, "rowHeight": 100, "lastRow": "right"}"#,
            #"{"width": 420}"#,
        ])
    func jsonRefused(json: String) {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(JustifiedConfiguration.self, from: Data(json.utf8))
        }
    }

    @Test("state bytes round-trip every field bit for bit, pending images included")
    func stateRoundTrip() throws {
        let states = [
            JustifiedState(),
            JustifiedState(
                y: 10, rowTop: 123.5, previousRowHeight: 103, imagesInSection: 3, isSectionOpen: true, sectionStartY: 0),
            JustifiedState(
                y: -0.0, rowTop: 1e300, previousRowHeight: .infinity,
                pendingItems: [image(4, 3), image(-1, Int32.max), image(Int32.min, 0)], imagesInSection: Int.max,
                isSectionOpen: true, sectionStartY: .nan),
        ]
        for state in states {
            let decoded = try JustifiedState(serialized: state.serialized())
            #expect(decoded.serialized() == state.serialized())
            #expect(decoded.pendingItems == state.pendingItems)
            #expect(decoded.rowTop.bitPattern == state.rowTop.bitPattern)
            #expect(decoded.previousRowHeight?.bitPattern == state.previousRowHeight?.bitPattern)
            // and through JSON (NaN aside)
            if !state.sectionStartY.isNaN {
                let json = try JSONDecoder().decode(JustifiedState.self, from: JSONEncoder().encode(state))
                #expect(json == state)
            }
        }
    }

    @Test("a row-start state is compact: 3 + 3 × 8 + 8 + 2 bytes")
    func compact() {
        // Given a state after a justified row, 6 images into the section, nothing pending
        let state = JustifiedState(y: 10, rowTop: 123, previousRowHeight: 103, imagesInSection: 6, isSectionOpen: true)

        // Then tag, version, flags; y, sectionStartY, rowTop; prevH; two 1-byte varints = 37 bytes
        #expect(state.serialized().count == 37)
        #expect(state.serialized().prefix(3) == [0x4A, 1, 3])
    }

    @Test("every truncation, extension or foreign state is rejected with an error, never a trap")
    func rejectsBadBytes() {
        let bytes = JustifiedState(
            y: 10, rowTop: 20, previousRowHeight: 30, pendingItems: [image(400, 300), image(3, 2)],
            imagesInSection: 300, isSectionOpen: true
        ).serialized()
        for length in 0..<bytes.count {
            #expect(throws: LayoutStateDecodingError.self) { try JustifiedState(serialized: bytes.prefix(length)) }
        }
        #expect(throws: LayoutStateDecodingError.self) { try JustifiedState(serialized: bytes + [0]) }
        // a waterfall state starts with its version byte, 1
        #expect(throws: LayoutStateDecodingError.self) { try JustifiedState(serialized: LayoutState().serialized()) }
        var flags = bytes
        flags[2] = 0xFF
        #expect(throws: LayoutStateDecodingError.self) { try JustifiedState(serialized: flags) }
        // a pending count larger than the bytes could hold
        let huge: [UInt8] = [0x4A, 1, 0] + Array(repeating: 0, count: 24) + [0, 0xFF, 0xFF, 0x03]
        #expect(throws: LayoutStateDecodingError.self) { try JustifiedState(serialized: huge) }
    }

    @Test("a foreign state's error says what it is")
    func foreignMessage() {
        #expect(
            throws: LayoutStateDecodingError(
                offset: 0, message: "these bytes are not a justified layout state (first byte 1, expected 74).")
        ) {
            try JustifiedState(serialized: LayoutState().serialized())
        }
    }
}
