import Testing

@testable import waterfall

/// Tables line up in a terminal whatever the ids are written in.
@Suite struct TableTests {
    @Test func wideCharactersTakeTwoColumns() {
        #expect("鳥居".terminalWidth == 4)
        #expect("tram-28".terminalWidth == 7)
        #expect("e\u{301}".terminalWidth == 1)
        #expect("📷x".terminalWidth == 3)
        #expect("ｆｕｌｌ".terminalWidth == 8)
    }

    @Test func columnsAlignAfterWideIDs() {
        var table = Table("ID", "SECTION", "X", rightAligned: [2])
        table.add("鳥居", "2024-05", "192")
        table.add("tram", "2024-05", "10")
        table.add("café", "東京", "1")
        let lines = table.rendered.split(separator: "\n").map(String.init)
        // Every line ends at the same terminal column, and SECTION starts at the same one.
        let ends = Set(lines.map(\.terminalWidth))
        #expect(ends.count == 1, "\(lines)")
        let sectionStarts = lines.map { line in
            let prefix = line.prefix { $0 != "2" && $0 != "東" && $0 != "S" }
            return String(prefix).terminalWidth
        }
        #expect(Set(sectionStarts).count == 1, "\(lines)")
    }
}
