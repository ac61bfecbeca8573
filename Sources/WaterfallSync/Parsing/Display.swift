/// Short, safe renderings of input values for error messages.
///
/// Found values are cut to `maximumCharacters` code points with an ellipsis, and control,
/// bidirectional-override and line-separator characters are shown as `\uXXXX` escapes, so a
/// message never carries raw control bytes to a terminal.
enum Display {
    /// How many code points of a found value a message shows.
    static let maximumCharacters = 40

    /// `U+00E9`: a code point in the usual notation (at least four hex digits).
    static func codePoint(_ value: UInt32) -> String {
        "U+" + hex(value)
    }

    /// A value in upper-case hex with at least four digits.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// A decoded JSON string in double quotes, escaped and shortened.
    static func quoted(_ string: ScannedString) -> String {
        quoted(string.string, isComplete: string.isComplete)
    }

    /// `string` in double quotes, escaped and shortened; `isComplete: false` adds the ellipsis
    /// even when the part given is short.
    static func quoted(_ string: String, isComplete: Bool = true) -> String {
        var result = "\""
        var count = 0
        var truncated = !isComplete
        for scalar in string.unicodeScalars {
            if count == maximumCharacters {
                truncated = true
                break
            }
            count += 1
            switch scalar.value {
            case 0x22: result += "\\\""
            case 0x5C: result += "\\\\"
            case _ where isUnsafe(scalar): result += "\\u" + hex(scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        if truncated { result += "…" }
        return result + "\""
    }

    /// A file name for messages: as given, except that control, bidirectional-override and
    /// line-separator characters are shown as `\uXXXX` escapes, so that a name holding a line
    /// break cannot split a one-line message.
    static func fileName(_ path: String) -> String {
        guard path.unicodeScalars.contains(where: isUnsafe) else { return path }
        var result = ""
        for scalar in path.unicodeScalars {
            if isUnsafe(scalar) {
                result += "\\u" + hex(scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `scalar` must not reach a terminal as is: a control character (C0, DEL, C1), a
    /// bidirectional mark or override, a line or paragraph separator, or a byte order mark.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }

    /// A JSON number as written, shortened.
    static func number(_ number: ScannedNumber) -> String {
        let shown = min(number.text.count, maximumCharacters)
        let text = String(decoding: UnsafeBufferPointer(rebasing: number.text[0..<shown]), as: UTF8.self)
        return number.textLength > shown ? text + "…" : text
    }
}
