/// A plain-text table with aligned columns, for the default (human) output.
struct Table {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns (by index) aligned to the right: numbers.
    var rightAligned: Set<Int> = []

    init(_ headers: String..., rightAligned: Set<Int> = []) {
        self.init(headers, rightAligned: rightAligned)
    }

    init(_ headers: [String], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table as lines of text, columns separated by two spaces.
    var rendered: String {
        let all = [headers] + rows
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.terminalWidth)
            }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.terminalWidth))
                return rightAligned.contains(index) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces
        }.joined(separator: "\n")
    }
}

extension String {
    /// The columns the text takes in a terminal: two for each wide character (CJK ideographs,
    /// kana, Hangul, fullwidth forms, emoji), one for any other character; combining marks
    /// ride on their base character.
    var terminalWidth: Int {
        reduce(0) { width, character in
            width + (character.unicodeScalars.first.map(\.isWide) == true ? 2 : 1)
        }
    }

    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// Formats points for tables: whole numbers without a decimal point, others with up to 3 decimals.
func points(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 { return String(Int64(value)) }
    var text = String(format3(value))
    while text.hasSuffix("0") { text.removeLast() }
    return text
}

private func format3(_ value: Double) -> String {
    let scaled = (value * 1000).rounded() / 1000
    return "\(scaled)"
}

/// A cell for text that came from a feed: control characters escaped, long text shortened.
func cell(_ text: String?, limit: Int = 40) -> String {
    guard let text else { return "—" }
    var shown = String(
        text.unicodeScalars.prefix(limit).map { scalar -> String in
            scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined())
    if text.unicodeScalars.count > limit { shown += "…" }
    return shown
}

extension Unicode.Scalar {
    /// Whether terminals draw the scalar two columns wide (Unicode's East Asian Width W or F,
    /// and emoji shown as emoji), by the ranges that hold such characters.
    fileprivate var isWide: Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            true
        default:
            properties.isEmojiPresentation
        }
    }
}
