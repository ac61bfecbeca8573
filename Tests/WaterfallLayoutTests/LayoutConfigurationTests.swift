import Foundation
import Testing
import WaterfallLayout

@Suite("Layout configuration")
struct LayoutConfigurationTests {
    @Test("DESIGN's defaults apply to everything but columns and width")
    func defaults() {
        // Given only the required fields
        let configuration = LayoutConfiguration(columns: 2, width: 320)

        // Then every other field has DESIGN's default
        #expect(configuration.columnSpacing == 10)
        #expect(configuration.rowSpacing == 10)
        #expect(configuration.sectionInset == EdgeInsets(top: 10, left: 10, bottom: 10, right: 10))
        #expect(configuration.headerHeight == 0)
        #expect(configuration.footerHeight == 0)
        #expect(configuration.headerInset == .zero)
        #expect(configuration.footerInset == .zero)
        #expect(configuration.captionHeight == 0)
        #expect(configuration.minimumContentHeight == 0)
        #expect(configuration.order == .shortest)
        #expect(configuration.scale == 1)
        // contentWidth = 320 - 10 - 10 = 300; itemWidth = grid((300 - 1 × 10) / 2) = grid(145) = 145
        #expect(configuration.contentWidth == 300)
        #expect(configuration.itemWidth == 145)
    }

    @Test("itemWidth snaps down to the pixel grid of scale 1, 2 and 3")
    func itemWidthPerScale() {
        // Given one column whose content is 40.7 - 10 - 10 = 20.7 points wide (20.700000000000003 in Double)
        func itemWidth(scale: Int) -> Double {
            LayoutConfiguration(columns: 1, width: 40.7, scale: scale).itemWidth
        }

        // Then scale 1: floor(20.7) / 1 = 20; scale 2: floor(41.4) / 2 = 20.5; scale 3: floor(62.1) / 3 = 62 / 3
        #expect(itemWidth(scale: 1) == 20)
        #expect(itemWidth(scale: 2) == 20.5)
        #expect(itemWidth(scale: 3) == 62.0 / 3.0)
    }

    @Test("grid is floor(value × scale) / scale")
    func grid() {
        // Given scale 2
        let configuration = LayoutConfiguration(columns: 1, width: 100, scale: 2)

        // Then 72.74 × 2 = 145.48 → 145 → 72.5, and whole halves stay put
        #expect(configuration.grid(72.74) == 72.5)
        #expect(configuration.grid(72.5) == 72.5)
        #expect(configuration.grid(0.4) == 0)
    }

    @Test(
        "validation names the field, the range and the value in one sentence",
        arguments: [
            (
                LayoutConfiguration(columns: 0, width: 320), "columns",
                "columns must be a whole number from 1 to 64, got 0."
            ),
            (
                LayoutConfiguration(columns: 65, width: 320), "columns",
                "columns must be a whole number from 1 to 64, got 65."
            ),
            (
                LayoutConfiguration(columns: 2, width: -5), "width",
                "width must be greater than 0 and at most 1000000 points, got -5."
            ),
            (
                LayoutConfiguration(columns: 2, width: 2_000_000), "width",
                "width must be greater than 0 and at most 1000000 points, got 2000000."
            ),
            (
                LayoutConfiguration(columns: 2, width: 100, columnSpacing: 200), "itemWidth",
                // contentWidth = 100 - 20 = 80; itemWidth = grid((80 - 1 × 200) / 2) = -60
                "itemWidth must be greater than 0, got -60 (contentWidth 80 minus 1 × columnSpacing 200, "
                    + "divided by 2 columns): make width larger, or columnSpacing or columns smaller."
            ),
            (
                LayoutConfiguration(
                    columns: 1, width: 100, sectionInset: EdgeInsets(top: 0, left: 60, bottom: 0, right: 60)),
                "contentWidth",
                "contentWidth must be greater than 0, got -20 (width 100 minus sectionInset.left 60 and "
                    + "sectionInset.right 60): make width larger or sectionInset smaller."
            ),
            (LayoutConfiguration(columns: 2, width: 320, scale: 4), "scale", "scale must be 1, 2 or 3, got 4."),
            (
                LayoutConfiguration(columns: 2, width: 320, rowSpacing: .nan), "rowSpacing",
                "rowSpacing must be a number from 0 to 1000000 points, got NaN."
            ),
            (
                LayoutConfiguration(columns: 2, width: .nan), "width",
                "width must be greater than 0 and at most 1000000 points, got NaN."
            ),
            (
                LayoutConfiguration(
                    columns: 2, width: 320, headerInset: EdgeInsets(top: 0, left: -1.5, bottom: 0, right: 0)),
                "headerInset", "headerInset.left must be a number from 0 to 1000000 points, got -1.5."
            ),
            (
                LayoutConfiguration(columns: 2, width: 320, captionHeight: .infinity), "captionHeight",
                "captionHeight must be a number from 0 to 1000000 points, got infinity."
            ),
        ])
    func validationError(configuration: LayoutConfiguration, field: String, message: String) {
        // When the configuration is validated, and when a layout is made from it
        // Then both throw the same error, whose description is its message
        let expected = LayoutConfigurationError(field: field, message: message)
        #expect(throws: expected) { try configuration.validate() }
        #expect(throws: expected) { try WaterfallLayout(configuration) }
        #expect(expected.description == message)
    }

    @Test("the bounds themselves are accepted")
    func bounds() throws {
        // Given the extreme valid values
        let configurations = [
            LayoutConfiguration(columns: 1, width: 21),
            LayoutConfiguration(
                columns: 64, width: 1_000_000, columnSpacing: 0, rowSpacing: 1_000_000, headerHeight: 1_000_000,
                minimumContentHeight: 1_000_000, scale: 3),
        ]
        // Then they validate
        for configuration in configurations {
            try configuration.validate()
        }
    }

    @Test("JSON holds every field under its property name, defaults included")
    func encodesEveryField() throws {
        // Given a configuration with only the required fields set
        let configuration = LayoutConfiguration(columns: 3, width: 375)

        // When it is encoded
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(configuration), as: UTF8.self)

        // Then every field is present, in canonical (sorted) order
        #expect(
            json == #"{"captionHeight":0,"columnSpacing":10,"columns":3,"footerHeight":0,"#
                + #""footerInset":{"bottom":0,"left":0,"right":0,"top":0},"headerHeight":0,"#
                + #""headerInset":{"bottom":0,"left":0,"right":0,"top":0},"minimumContentHeight":0,"#
                + #""order":"shortest","rowSpacing":10,"scale":1,"#
                + #""sectionInset":{"bottom":10,"left":10,"right":10,"top":10},"width":375}"#)
    }

    @Test("decoding fills missing optional fields with defaults and round-trips")
    func decodesWithDefaults() throws {
        // Given JSON with the required fields and one optional field
        let json = Data(#"{"columns": 3, "width": 375, "order": "right-to-left"}"#.utf8)

        // When it is decoded
        let configuration = try JSONDecoder().decode(LayoutConfiguration.self, from: json)

        // Then the rest is defaulted, and encoding then decoding gives the same value
        #expect(configuration == LayoutConfiguration(columns: 3, width: 375, order: .rightToLeft))
        let again = try JSONDecoder().decode(LayoutConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(again == configuration)
    }

    @Test("decoding requires columns and width")
    func decodingRequiresColumnsAndWidth() {
        // Given JSON without width
        let json = Data(#"{"columns": 3}"#.utf8)

        // Then decoding fails
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(LayoutConfiguration.self, from: json) }
    }
}
