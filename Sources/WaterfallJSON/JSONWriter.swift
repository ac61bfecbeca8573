/// Compact JSON written straight into bytes: the writing half of ``OrderedJSONEncoder``, and
/// what the answers described by a member table write themselves with (``JSONAnswer``).
public struct JSONWriter {
    /// The JSON written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key needs a comma before it.
    private var needsComma = false

    public init() {
        bytes.reserveCapacity(16_384)
    }

    public mutating func beginObject() { begin(UInt8(ascii: "{")) }
    public mutating func endObject() { end(UInt8(ascii: "}")) }
    public mutating func beginArray() { begin(UInt8(ascii: "[")) }
    public mutating func endArray() { end(UInt8(ascii: "]")) }

    /// An object's key known when compiling (plain ASCII, written as is); its value comes next.
    public mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        // Byte by byte: appending a String's UTF-8 view takes its generic path.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Any object key, escaped; its value comes next.
    public mutating func key(_ key: String) {
        separate()
        Self.append(string: key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func integer(_ value: some BinaryInteger) {
        separate()
        if let value = Int64(exactly: value) {
            Self.append(integer: value, to: &bytes)
        } else {
            bytes.append(contentsOf: String(value).utf8)
        }
    }

    /// The decimal digits of `value`, as `String(value)` writes them, without making the
    /// String (a page of 100 images writes about 700 numbers: a third of its JSON's
    /// instructions went to making and copying their strings).
    public static func append(integer value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start &-= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// A JSON number: integral values without a fraction, others in Swift's shortest
    /// round-trip form. JSON has no NaN or infinity: those throw.
    public mutating func number(_ value: Double) throws {
        separate()
        try Self.append(number: value, to: &bytes)
    }

    public mutating func string(_ text: String) {
        separate()
        Self.append(string: text, to: &bytes)
    }

    public static func append(number value: Double, to bytes: inout [UInt8]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
        }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            append(integer: Int64(value), to: &bytes)
        } else {
            bytes.append(contentsOf: "\(value)".utf8)
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped (and U+2028,
    /// U+2029, which JavaScript once did not allow in strings).
    public static func append(string text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // The usual id, url or name is printable ASCII without quotes or backslashes: its bytes
        // are the JSON as they are, copied at once (a scalar at a time cost a page of 100
        // images about a million instructions, measured with callgrind).
        var text = text
        let isPlain = text.withUTF8 { utf8 in
            for byte in utf8 where byte &- 0x20 >= 0x5F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if isPlain {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes.append(contentsOf: "\\\"".utf8)
            case "\\": bytes.append(contentsOf: "\\\\".utf8)
            case "\n": bytes.append(contentsOf: "\\n".utf8)
            case "\r": bytes.append(contentsOf: "\\r".utf8)
            case "\t": bytes.append(contentsOf: "\\t".utf8)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    bytes.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                } else {
                    bytes.append(contentsOf: UTF8.encode(scalar)!)
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text`, or `null`.
    public mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    private mutating func begin(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func end(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }
}

/// An answer that writes its own JSON, without `Encodable`'s generic machinery: in a fresh
/// process that machinery's first use costs the `page` command about a third of its time.
/// The answers described by a member table (``JSONAnswer``) write themselves, and encode, from
/// it: the two give the same bytes.
public protocol JSONWritable: Encodable {
    /// Writes the value's JSON: exactly what its `Encodable` form encodes to.
    func write(to json: inout JSONWriter) throws
}
