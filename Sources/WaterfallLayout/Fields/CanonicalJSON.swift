/// The canonical JSON of a configuration (every field, keys sorted; DESIGN section 5's cache key
/// and the stored form of named layouts), written and read through the field table.
///
/// It is byte for byte what Foundation's `JSONEncoder` writes with `.sortedKeys` (the format
/// stored databases hold; a test compares the two), without the encoder's start-up cost, which
/// every query would pay. The reader takes only that exact form and gives up (`nil`) on
/// anything else, which the caller then leaves to `JSONDecoder`.
extension FieldTable {
    /// The canonical JSON, with `"kind":kind` among the keys when a kind is given.
    public func canonicalJSON(kind: String? = nil) -> String {
        var text = "{"
        var kindWritten = kind == nil
        for field in Self.sortedFields {
            if !kindWritten, field.key > "kind" {
                text += #""kind":"\#(kind!)","#
                kindWritten = true
            }
            text += "\"\(field.key)\":"
            field.writeCanonical(self, &text)
            text += ","
        }
        if !kindWritten { text += #""kind":"\#(kind!)","# }
        text.removeLast()
        return text + "}"
    }

    /// The configuration `text` holds when it is exactly what ``canonicalJSON(kind:)`` writes
    /// for `kind`, else nil.
    public static func fromCanonicalJSON(_ text: String, kind: String? = nil) -> Self? {
        var reader = CanonicalReader(text)
        var value = blank
        var kindRead = kind == nil
        guard reader.literal("{") else { return nil }
        // By index, not `enumerated()`: its iterator over this table's fields is a generic type
        // the runtime instantiates from its mangled name in a fresh process, a scan of every
        // conformance in the binary (about 6% of a `waterfall page`'s own time).
        let fields = sortedFields
        for index in fields.indices {
            let field = fields[index]
            if !kindRead, field.key > "kind" {
                guard reader.literal(#""kind":"\#(kind!)","#) else { return nil }
                kindRead = true
            }
            guard reader.literal("\"\(field.key)\":"), field.readCanonical(&reader, &value) else { return nil }
            if index < fields.count - 1 || !kindRead {
                guard reader.literal(",") else { return nil }
            }
        }
        if !kindRead, !reader.literal(#""kind":"\#(kind!)""#) { return nil }
        guard reader.literal("}"), reader.isAtEnd else { return nil }
        return value
    }
}

/// Reads the exact text the canonical writers write.
public struct CanonicalReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    var isAtEnd: Bool { position == bytes.count }

    /// Skips `text` if it comes next.
    mutating func literal(_ text: String) -> Bool {
        let expected = text.utf8
        guard bytes.count - position >= expected.count,
            bytes[position..<position + expected.count].elementsEqual(expected)
        else { return false }
        position += expected.count
        return true
    }

    /// The run of characters up to the next `,`, `}` or `"`.
    mutating func token() -> String? {
        let start = position
        while position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: "}"),
            bytes[position] != UInt8(ascii: "\"")
        {
            position += 1
        }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// A number exactly as ``canonicalNumber(_:)`` writes it.
    mutating func number() -> Double? {
        guard let text = token(), let value = Double(text), canonicalNumber(value) == text else { return nil }
        return value
    }

    /// A whole number in its shortest decimal form.
    mutating func integer() -> Int? {
        guard let text = token(), let value = Int(text), String(value) == text else { return nil }
        return value
    }
}

/// A number as `JSONEncoder` writes it: Swift's shortest round-trip form, without ".0".
func canonicalNumber(_ value: Double) -> String {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
}

extension Int {
    public func writeCanonical(to text: inout String) { text += String(self) }
    public static func readCanonical(_ reader: inout CanonicalReader) -> Int? { reader.integer() }
}

extension Double {
    public func writeCanonical(to text: inout String) { text += canonicalNumber(self) }
    public static func readCanonical(_ reader: inout CanonicalReader) -> Double? { reader.number() }
}

extension EdgeInsets {
    /// `{"bottom":…,"left":…,"right":…,"top":…}`: the sides in key order.
    public func writeCanonical(to text: inout String) {
        text +=
            #"{"bottom":\#(canonicalNumber(bottom)),"left":\#(canonicalNumber(left)),"right":\#(canonicalNumber(right)),"top":\#(canonicalNumber(top))}"#
    }

    public static func readCanonical(_ reader: inout CanonicalReader) -> EdgeInsets? {
        guard reader.literal(#"{"bottom":"#), let bottom = reader.number(), reader.literal(#","left":"#),
            let left = reader.number(),
            reader.literal(#","right":"#), let right = reader.number(), reader.literal(#","top":"#),
            let top = reader.number(),
            reader.literal("}")
        else { return nil }
        return EdgeInsets(top: top, left: left, bottom: bottom, right: right)
    }
}

extension ConfigurationChoice {
    /// The raw value in quotes (the choices' words need no escaping).
    public func writeCanonical(to text: inout String) { text += "\"\(rawValue)\"" }

    public static func readCanonical(_ reader: inout CanonicalReader) -> Self? {
        guard reader.literal("\""), let word = reader.token(), reader.literal("\"") else { return nil }
        return Self(rawValue: word)
    }
}
