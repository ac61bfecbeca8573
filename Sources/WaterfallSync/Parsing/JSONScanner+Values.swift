/// A JSON number just scanned, checked against the RFC 8259 grammar.
struct ScannedNumber {
    /// Whether it has neither a fraction nor an exponent.
    var isInteger: Bool
    /// Whether it starts with `-`.
    var isNegative: Bool
    /// The integer part's magnitude when it fits in 63 bits (see `overflowed`).
    var magnitude: UInt64
    /// Whether the integer part is too large for `magnitude`.
    var overflowed: Bool
    /// The number's text as written (its first bytes when long; valid until the next scan).
    var text: UnsafeBufferPointer<UInt8>
    /// The full length of the number's text.
    var textLength: Int

    /// The value when it is an integer within `range`.
    func integer(in range: ClosedRange<Int>) -> Int? {
        guard isInteger, !overflowed else { return nil }
        let value = isNegative ? -Int(magnitude) : Int(magnitude)
        return range.contains(value) ? value : nil
    }
}

/// What kind of JSON value starts at the current position.
enum ValueStart {
    case object, array, string, number, `true`, `false`, null
}

extension JSONScanner {
    /// Skips whitespace and tells what value starts next, without consuming it; anything else
    /// is a syntax error saying `expected`.
    @inline(__always)
    mutating func valueStart(expected: StaticString) throws(SyncError) -> ValueStart {
        guard let byte = try skipWhitespace() else { throw valueMissing(expected: expected) }
        switch byte {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): return .number
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "t"): return .true
        case UInt8(ascii: "f"): return .false
        case UInt8(ascii: "n"): return .null
        default: throw valueMissing(expected: expected)
        }
    }

    /// The syntax error for a value that should start at `pos` but does not.
    @inline(never)
    mutating func valueMissing(expected: StaticString) -> SyncError {
        syntaxError(expected: "\(expected)")
    }

    /// Scans the number starting at `base[pos]` (`-` or a digit).
    @inline(__always)
    mutating func scanNumber() throws(SyncError) -> ScannedNumber {
        // The common case: a short positive integer that ends within the chunk.
        var index = pos
        var value: UInt64 = 0
        while index < end && index - pos < 18 {
            let digit = base[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        if index > pos && index < end && (base[pos] != UInt8(ascii: "0") || index == pos + 1) {
            let next = base[index]
            let continues =
                next &- UInt8(ascii: "0") < 10 || next == UInt8(ascii: ".")
                || next | 0x20 == UInt8(ascii: "e")
            if !continues {
                let count = index - pos
                numberText.update(from: base + pos, count: count)
                pos = index
                return ScannedNumber(
                    isInteger: true, isNegative: false, magnitude: value, overflowed: false,
                    text: UnsafeBufferPointer(start: UnsafePointer(numberText), count: count), textLength: count)
            }
        }
        return try scanNumberInGeneral()
    }

    /// `scanNumber()` for any number: signs, fractions, exponents, long or split numbers.
    @inline(never)
    mutating func scanNumberInGeneral() throws(SyncError) -> ScannedNumber {
        var count = 0
        var magnitude: UInt64 = 0
        var overflowed = false
        var isInteger = true
        let capacity = numberTextCapacity
        let text = numberText

        @inline(__always) func take(_ byte: UInt8, _ scanner: inout JSONScanner) {
            if count < capacity { text[count] = byte }
            count += 1
            scanner.pos += 1
        }
        @inline(__always) func isDigit(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte &- UInt8(ascii: "0") < 10
        }

        var byte = try peek()
        let isNegative = byte == UInt8(ascii: "-")
        if isNegative {
            take(byte!, &self)
            byte = try peek()
            guard isDigit(byte) else { throw syntaxError(expected: "a digit after '-'") }
        }
        if byte == UInt8(ascii: "0") {
            take(byte!, &self)
            byte = try peek()
            if isDigit(byte) {
                throw syntaxError(expected: "'.', 'e' or the end of the number after a leading 0")
            }
        } else {
            while let digit = byte, isDigit(digit) {
                let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
                if o1 || o2 || sum > UInt64(Int.max) { overflowed = true }
                magnitude = sum
                take(digit, &self)
                byte = try peek()
            }
        }
        if byte == UInt8(ascii: ".") {
            isInteger = false
            take(byte!, &self)
            byte = try peek()
            guard isDigit(byte) else { throw syntaxError(expected: "a digit after '.'") }
            while let digit = byte, isDigit(digit) {
                take(digit, &self)
                byte = try peek()
            }
        }
        if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            take(byte!, &self)
            byte = try peek()
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                take(byte!, &self)
                byte = try peek()
            }
            guard isDigit(byte) else { throw syntaxError(expected: "a digit in the exponent") }
            while let digit = byte, isDigit(digit) {
                take(digit, &self)
                byte = try peek()
            }
        }
        return ScannedNumber(
            isInteger: isInteger, isNegative: isNegative, magnitude: overflowed ? 0 : magnitude,
            overflowed: overflowed,
            text: UnsafeBufferPointer(start: UnsafePointer(text), count: min(count, capacity)), textLength: count)
    }

    /// Consumes `literal` (`true`, `false` or `null`), starting at `base[pos]`.
    mutating func scanLiteral(_ literal: StaticString) throws(SyncError) {
        let bytes = literal.utf8Start
        for index in 0..<literal.utf8CodeUnitCount {
            guard try peek() == bytes[index] else {
                throw syntaxError(expected: "'\(literal)'")
            }
            pos += 1
        }
    }

    /// Consumes the value that starts as `start` and describes it for a message: `an object`,
    /// `"abc"`, `-5`, `true`…; objects and arrays are not consumed (the caller throws).
    mutating func describeValue(_ start: ValueStart) throws(SyncError) -> String {
        switch start {
        case .object: return "an object"
        case .array: return "an array"
        case .string:
            let string = try scanString(keep: JSONScanner.displayBytes)
            return string.length == 0 ? "an empty string" : Display.quoted(string)
        case .number: return Display.number(try scanNumber())
        case .true:
            try scanLiteral("true")
            return "true"
        case .false:
            try scanLiteral("false")
            return "false"
        case .null:
            try scanLiteral("null")
            return "null"
        }
    }

    /// Consumes any JSON value, validating it completely without keeping it; iterative, so
    /// deep nesting cannot exhaust the stack.
    ///
    /// `depth` is the nesting depth of the container holding the value (the top-level object
    /// is 1); opening a container deeper than the limit is an error.
    mutating func skipValue(depth: Int) throws(SyncError) {
        skipStack.removeAll(keepingCapacity: true)
        var expectingValue = true
        while true {
            if expectingValue {
                switch try valueStart(expected: "a JSON value") {
                case .object, .array:
                    let isObject = base[pos] == UInt8(ascii: "{")
                    if depth + skipStack.count + 1 > nestingLimit {
                        throw syntaxError(
                            expected: "at most \(nestingLimit) levels of nested arrays and objects",
                            found: "a deeper one")
                    }
                    skipStack.append(isObject)
                    pos += 1
                    let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    let next = try skipWhitespace()
                    if next == closing {
                        pos += 1
                        skipStack.removeLast()
                        expectingValue = false
                    } else if isObject {
                        try skipFieldName(first: true)
                    }
                case .string:
                    _ = try scanString(keep: 0)
                    expectingValue = false
                case .number:
                    _ = try scanNumber()
                    expectingValue = false
                case .true:
                    try scanLiteral("true")
                    expectingValue = false
                case .false:
                    try scanLiteral("false")
                    expectingValue = false
                case .null:
                    try scanLiteral("null")
                    expectingValue = false
                }
            } else {
                guard let isObject = skipStack.last else { return }
                let next = try skipWhitespace()
                if next == UInt8(ascii: ",") {
                    pos += 1
                    if isObject { try skipFieldName(first: false) }
                    expectingValue = true
                } else if next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    pos += 1
                    skipStack.removeLast()
                } else {
                    throw syntaxError(expected: isObject ? "',' or '}'" : "',' or ']'")
                }
            }
        }
    }

    /// Consumes `"name" :` inside an object being skipped.
    private mutating func skipFieldName(first: Bool) throws(SyncError) {
        guard try skipWhitespace() == UInt8(ascii: "\"") else {
            throw syntaxError(expected: first ? "'\"' to start a field name or '}'" : "'\"' to start a field name")
        }
        _ = try scanString(keep: 0)
        try expect(UInt8(ascii: ":"), "':' after the field name")
    }

    /// Skips whitespace and consumes `byte`, or throws a syntax error saying `expected`.
    @inline(__always)
    mutating func expect(_ byte: UInt8, _ expected: StaticString) throws(SyncError) {
        guard try skipWhitespace() == byte else { throw syntaxError(expected: "\(expected)") }
        pos += 1
    }
}
