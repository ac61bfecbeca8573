import ArgumentParser
import Waterfall

/// `--section ID:KEY=VALUE,…`: one section's own settings (DESIGN section 14), read into the
/// JSON object of an entry of the configuration's `sections`.
///
/// `ID` is the section's catalog id (everything before the last `:` ahead of the first `=`,
/// so ids with colons work); each `KEY` is a configuration flag without its dashes
/// (`row-height`, `inset`) or its JSON key (`rowHeight`, `sectionInset`). A value is read as
/// the key's JSON type, which the field tables tell (``LayoutParameter``): a number, a word
/// (`kind`, `order`, `lastRow`), or insets as one number or `top,left,bottom,right` (the
/// commas of insets do not start a new setting: a part without `=` continues the previous
/// value). What the settings mean, and which a section may set, is decided where the JSON
/// form is (``SectionedConfiguration``), with the JSON path in its messages.
enum SectionFlag {
    /// The JSON object of `text`, an argument of `--section`.
    /// - Throws: `ValidationError` with one sentence naming the argument and what was expected.
    static func entry(_ text: String) throws -> [String: ConfigurationValue] {
        func refuse(_ sentence: String) -> ValidationError {
            ValidationError("--section \(text): \(sentence)")
        }
        guard let equals = text.firstIndex(of: "="), let colon = text[..<equals].lastIndex(of: ":"),
            colon > text.startIndex
        else {
            throw refuse(
                "expected ID:KEY=VALUE,… (the section's id, a colon, then its settings), e.g. --section 2024-05:columns=1."
            )
        }
        var pairs: [(key: String, value: String)] = []
        for part in text[text.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
            if let equals = part.firstIndex(of: "=") {
                pairs.append((String(part[..<equals]), String(part[part.index(after: equals)...])))
            } else if !pairs.isEmpty {
                pairs[pairs.count - 1].value += "," + part
            }
        }
        var entry: [String: ConfigurationValue] = ["section": .string(String(text[..<colon]))]
        for (name, value) in pairs {
            guard let key = ConfigurationFlags.keysByFlag[Substring(name)] ?? (shapes[name] == nil ? nil : name) else {
                let names = ConfigurationFlags.keysByFlag.filter { $0.value != "width" && $0.value != "scale" }.keys
                    .sorted()
                throw refuse(
                    "\(name.isEmpty ? "a setting" : "\"\(name)\"") is not a layout setting; a section takes \(names.joined(separator: ", "))."
                )
            }
            guard entry[key] == nil else { throw refuse("\(name) is given twice.") }
            entry[key] = try read(value, as: shapes[key] ?? .number, refuse: refuse)
        }
        return entry
    }

    /// `error`, about the entry at `sections[i]`, said of the `--section` argument it came from.
    static func sentence(_ error: LayoutConfigurationError, arguments: [String]) -> String {
        guard error.field.hasPrefix("sections["), let close = error.field.firstIndex(of: "]"),
            let index = Int(error.field[error.field.index(error.field.startIndex, offsetBy: 9)..<close]),
            arguments.indices.contains(index)
        else { return error.message }
        return "--section \(arguments[index]): \(error.message)"
    }

    /// The shape of each configuration key, of every kind, from the field tables; `kind` is a word.
    private static let shapes: [String: FieldShape] = {
        var shapes = Dictionary(LayoutParameter.all.map { ($0.key, $0.shape) }) { first, _ in first }
        shapes["kind"] = .choice(LayoutKind.allCases.map(\.rawValue))
        return shapes
    }()

    private static func read(
        _ text: String, as shape: FieldShape, refuse: (String) -> ValidationError
    ) throws -> ConfigurationValue {
        switch shape {
        case .choice: return .string(text)
        case .insets:
            let numbers = try text.split(separator: ",", omittingEmptySubsequences: false).map {
                try number(String($0), refuse: refuse)
            }
            let names = ["top", "left", "bottom", "right"]
            guard numbers.count == 1 || numbers.count == 4 else {
                throw refuse("insets are one number or four (top,left,bottom,right), got \"\(text)\".")
            }
            return .object(
                Dictionary(
                    uniqueKeysWithValues: names.enumerated().map { ($1, .number(numbers[numbers.count == 1 ? 0 : $0])) }
                ))
        case .integer, .number:
            return .number(try number(text, refuse: refuse))
        }
    }

    private static func number(_ text: String, refuse: (String) -> ValidationError) throws -> Double {
        guard let value = Double(text) else { throw refuse("expected a number, got \"\(text)\".") }
        return value
    }
}
