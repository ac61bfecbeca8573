extension JSONValue {
    /// The value as pretty-printed JSON: two spaces of indentation, one member or element a
    /// line, `"key": value`, empty objects and arrays as `{}` and `[]`, and a final newline.
    /// Strings escape only what JSON requires (quotes, backslashes, control characters).
    var prettyPrinted: String {
        var text = ""
        write(to: &text, indent: "")
        text += "\n"
        return text
    }

    private func write(to text: inout String, indent: String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let literal): text += literal
        case .string(let value): Self.write(string: value, to: &text)
        case .array(let elements):
            guard !elements.isEmpty else {
                text += "[]"
                return
            }
            let inner = indent + "  "
            text += "[\n"
            for (position, element) in elements.enumerated() {
                text += inner
                element.write(to: &text, indent: inner)
                text += position == elements.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let members):
            guard !members.isEmpty else {
                text += "{}"
                return
            }
            let inner = indent + "  "
            text += "{\n"
            for (position, member) in members.enumerated() {
                text += inner
                Self.write(string: member.key, to: &text)
                text += ": "
                member.value.write(to: &text, indent: inner)
                text += position == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        }
    }

    private static func write(string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
