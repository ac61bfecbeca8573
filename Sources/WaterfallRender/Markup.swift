/// Escaping for HTML and XML, and the policy for which image urls may be used.
enum Markup {
    /// Replaces every character XML 1.0 forbids (C0 controls but tab, line feed and carriage
    /// return; U+FFFE, U+FFFF), and the C1 controls and DEL that HTML calls parse errors, with
    /// U+FFFD. Swift strings hold no lone surrogates, so nothing else is illegal.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F, 0xFFFE, 0xFFFF: true
        default: false
        }
    }

    /// `text` safe inside HTML text and inside a double- or single-quoted HTML attribute value:
    /// `& < > " '` become character references, forbidden characters U+FFFD.
    static func html(_ text: String) -> String {
        escape(text, apostrophe: "&#39;")
    }

    /// `text` safe inside XML character data and attribute values, with every character XML
    /// 1.0 forbids replaced by U+FFFD.
    static func xml(_ text: String) -> String {
        escape(text, apostrophe: "&apos;")
    }

    private static func escape(_ text: String, apostrophe: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: apostrophe.unicodeScalars)
            default: result.append(isForbidden(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return String(result)
    }

    /// The url an image may be drawn from, or `nil` when it must not be used.
    ///
    /// Allowed: an `http:` or `https:` url (scheme in any letter case), or a relative
    /// reference (no scheme: `img/a.jpg`, `/a.jpg`, `//host/a.jpg`). Refused: every other
    /// scheme (`javascript:`, `data:`, `file:`, …), and any url holding a control character
    /// or starting or ending with a space, since browsers strip or skip those and could then
    /// read a scheme that is not visible here (`java\tscript:`).
    static func imageURL(_ url: String?) -> String? {
        guard let url, !url.isEmpty else { return nil }
        let scalars = url.unicodeScalars
        if scalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) { return nil }
        if scalars.first == " " || scalars.last == " " { return nil }
        guard let end = scalars.firstIndex(where: { ":/?#".unicodeScalars.contains($0) }),
            scalars[end] == ":"
        else { return url }  // no scheme: a relative reference
        let scheme = String(scalars[scalars.startIndex..<end]).lowercased()
        return scheme == "http" || scheme == "https" ? url : nil
    }
}
