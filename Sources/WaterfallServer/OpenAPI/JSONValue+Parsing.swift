/// A JSON text that is not what ``JSONValue/init(parsing:)`` expects, with where it went wrong.
struct JSONParsingError: Error, CustomStringConvertible {
    /// The line (from 1) of the fault.
    let line: Int
    let message: String

    var description: String { "line \(line): \(message)" }
}

extension JSONValue {
    /// The JSON value of `text` (RFC 8259), keys in their order.
    /// - Throws: ``JSONParsingError`` naming the line, for text that is not one JSON value or
    ///   an object with a key twice.
    init(parsing text: String) throws(JSONParsingError) {
        var parser = JSONParser(bytes: Array(text.utf8))
        self = try parser.document()
    }
}

/// A recursive-descent reader of JSON bytes.
private struct JSONParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONParsingError) -> JSONValue {
        let value = try self.value()
        skipSpace()
        guard index == bytes.endIndex else { throw fault("text after the value") }
        return value
    }

    private mutating func value() throws(JSONParsingError) -> JSONValue {
        skipSpace()
        guard index < bytes.endIndex else { throw fault("a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return try number()
        }
    }

    private mutating func object() throws(JSONParsingError) -> JSONValue {
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var keys: Set<String> = []
        skipSpace()
        if consume("}") { return .object(members) }
        repeat {
            skipSpace()
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { throw fault("a key is missing") }
            let key = try string()
            guard keys.insert(key).inserted else { throw fault("the key \"\(key)\" is there twice") }
            skipSpace()
            guard consume(":") else { throw fault("a colon is missing after \"\(key)\"") }
            members.append((key, try value()))
            skipSpace()
        } while consume(",")
        guard consume("}") else { throw fault("a comma or } is missing") }
        return .object(members)
    }

    private mutating func array() throws(JSONParsingError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipSpace()
        if consume("]") { return .array(elements) }
        repeat {
            elements.append(try value())
            skipSpace()
        } while consume(",")
        guard consume("]") else { throw fault("a comma or ] is missing") }
        return .array(elements)
    }

    private mutating func string() throws(JSONParsingError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
                run.removeAll()
                scalars.append(try escape())
            case 0..<0x20:
                throw fault("a control character in a string")
            default:
                run.append(byte)
            }
        }
        throw fault("a string does not end")
    }

    /// The character of the escape after a backslash.
    private mutating func escape() throws(JSONParsingError) -> Unicode.Scalar {
        guard index < bytes.endIndex else { throw fault("an escape does not end") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                guard consume("\\"), consume("u") else { throw fault("a lone surrogate") }
                let second = try hexQuad()
                guard (0xDC00..<0xE000).contains(second) else { throw fault("a lone surrogate") }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else { throw fault("a lone surrogate") }
            return scalar
        default:
            throw fault("an unknown escape")
        }
    }

    private mutating func hexQuad() throws(JSONParsingError) -> UInt32 {
        guard index + 4 <= bytes.endIndex,
            let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw fault("\\u needs four hexadecimal digits") }
        index += 4
        return value
    }

    private mutating func number() throws(JSONParsingError) -> JSONValue {
        let start = index
        let allowed = Set("+-0123456789.eE".utf8)
        while index < bytes.endIndex, allowed.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty, Double(text) != nil, text.first != "+" else { throw fault("not a value") }
        return .number(text)
    }

    private mutating func literal(_ word: String) throws(JSONParsingError) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.endIndex, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw fault("not a value")
        }
        index += utf8.count
    }

    private mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.endIndex, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private func fault(_ message: String) -> JSONParsingError {
        JSONParsingError(line: bytes[..<min(index, bytes.endIndex)].count { $0 == 0x0A } + 1, message: message)
    }
}
