/// A plain-text table with aligned columns, for the default (human) output.
struct Table {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns (by index) aligned to the right: numbers.
    var rightAligned: Set<Int> = []

    init(_ headers: String..., rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rightAligned = rightAligned
    }

    mutating func add(_ cells: String...) {
        rows.append(cells)
    }

    /// The table as lines of text, columns separated by two spaces.
    var rendered: String {
        let all = [headers] + rows
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return all.map { row in
            row.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return rightAligned.contains(index) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces
        }.joined(separator: "\n")
    }
}

extension String {
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
    var shown = String(text.unicodeScalars.prefix(limit).map { scalar -> String in
        scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
    }.joined())
    if text.unicodeScalars.count > limit { shown += "…" }
    return shown
}
