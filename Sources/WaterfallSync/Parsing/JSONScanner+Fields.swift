/// Readers for the kinds of field values feed and reorder files hold. Each consumes one value
/// and returns it checked, or throws a message naming `place`.
extension JSONScanner {
    /// The value error `file: place: expected X, found <the value here>.`, consuming the value
    /// to describe it.
    @inline(never)
    mutating func wrongValue(_ start: ValueStart, _ place: Place, expected: StaticString) -> SyncError {
        do {
            return .value(source, place, expected: "\(expected)", found: try describeValue(start))
        } catch {
            return error
        }
    }

    /// An id or section id: a non-empty string without control characters of at most `limit`
    /// UTF-8 bytes, or a JSON integer (kept as its decimal text, `-0` as `0`). `null` gives
    /// `nil` when `allowsNull`.
    mutating func readIdentifier(
        _ place: Place, limit: Int, expected: StaticString, allowsNull: Bool = false
    ) throws(SyncError) -> String? {
        let start = try valueStart(expected: expected)
        switch start {
        case .string:
            let string = try scanString(keep: limit)
            return try checkedName(string, place, limit: limit, expected: expected)
        case .number:
            let number = try scanNumber()
            guard number.isInteger else {
                throw .value(source, place, expected: "\(expected)", found: Display.number(number))
            }
            guard number.textLength <= limit else {
                throw .value(
                    source, place, expected: "at most \(limit) bytes",
                    found: "an integer of \(number.textLength) characters")
            }
            if number.magnitude == 0 && !number.overflowed { return "0" }
            return String(decoding: number.text, as: UTF8.self)
        case .null where allowsNull:
            try scanLiteral("null")
            return nil
        default:
            throw wrongValue(start, place, expected: expected)
        }
    }

    /// A name-like string (id, section id, feed name) already scanned: non-empty, within
    /// `limit` bytes, no control characters.
    func checkedName(_ string: ScannedString, _ place: Place, limit: Int, expected: StaticString) throws(SyncError)
        -> String
    {
        if string.length == 0 {
            throw .value(source, place, expected: "\(expected)", found: "an empty string")
        }
        if string.length > limit {
            throw .value(source, place, expected: "at most \(limit) bytes", found: "a string of \(string.length) bytes")
        }
        if string.hasControl {
            throw .value(source, place, expected: "a string without control characters", found: Display.quoted(string))
        }
        return string.string
    }

    /// A feed name: a non-empty string without control characters within `limit` bytes;
    /// `null` gives `nil`.
    mutating func readFeedName(_ place: Place, limit: Int) throws(SyncError) -> String? {
        let expected: StaticString = "a non-empty string"
        let start = try valueStart(expected: expected)
        switch start {
        case .string:
            return try checkedName(scanString(keep: limit), place, limit: limit, expected: expected)
        case .null:
            try scanLiteral("null")
            return nil
        default:
            throw wrongValue(start, place, expected: expected)
        }
    }

    /// A URL or title: a string without NUL of at most `limit` bytes, or `null` (`nil`).
    mutating func readText(_ place: Place, limit: Int) throws(SyncError) -> String? {
        let expected: StaticString = "a string or null"
        let start = try valueStart(expected: expected)
        switch start {
        case .string:
            let string = try scanString(keep: limit)
            if string.length > limit {
                throw .value(
                    source, place, expected: "at most \(limit) bytes", found: "a string of \(string.length) bytes")
            }
            if string.hasNUL {
                throw .value(source, place, expected: "a string without NUL characters", found: Display.quoted(string))
            }
            return string.string
        case .null:
            try scanLiteral("null")
            return nil
        default:
            throw wrongValue(start, place, expected: expected)
        }
    }

    /// A JSON integer (no fraction, no exponent) within `range`; `expected` describes it.
    mutating func readInteger(_ place: Place, in range: ClosedRange<Int>, expected: StaticString) throws(SyncError)
        -> Int
    {
        let start = try valueStart(expected: expected)
        guard start == .number else { throw wrongValue(start, place, expected: expected) }
        let number = try scanNumber()
        guard let value = number.integer(in: range) else {
            throw .value(source, place, expected: "\(expected)", found: Display.number(number))
        }
        return value
    }

    /// Opens an array value (consuming `[`), or throws saying `expected`.
    mutating func openArray(_ place: Place, expected: StaticString) throws(SyncError) {
        let start = try valueStart(expected: expected)
        guard start == .array else { throw wrongValue(start, place, expected: expected) }
        pos += 1
    }

    /// Opens an object value (consuming `{`), or throws saying `expected`.
    mutating func openObject(_ place: Place, expected: StaticString) throws(SyncError) {
        let start = try valueStart(expected: expected)
        guard start == .object else { throw wrongValue(start, place, expected: expected) }
        pos += 1
    }

    /// Consumes a `null` if one comes next and tells whether it did (for optional fields,
    /// where `null` means the same as leaving the field out).
    mutating func skipNull() throws(SyncError) -> Bool {
        guard try skipWhitespace() == UInt8(ascii: "n") else { return false }
        try scanLiteral("null")
        return true
    }
}
