/// A JSON string just scanned: its decoded UTF-8 bytes (or their first part) and what it holds.
///
/// `bytes` points into the scanner's buffer or scratch area and is valid only until the
/// scanner's next call.
struct ScannedString {
    /// The decoded bytes, at most the `keep` count given to the scan.
    var bytes: UnsafeBufferPointer<UInt8>
    /// The full decoded length in UTF-8 bytes (may exceed `bytes.count`).
    var length: Int
    /// Whether the string holds a control character (U+0000–U+001F or U+007F).
    var hasControl: Bool
    /// Whether the string holds U+0000.
    var hasNUL: Bool

    /// Whether `bytes` is the whole string.
    var isComplete: Bool { bytes.count == length }

    /// Whether the string is exactly `literal` (ASCII).
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard length == count else { return false }
        guard count > 0 else { return true }
        let start = literal.utf8Start
        for index in 0..<count where bytes[index] != start[index] { return false }
        return true
    }

    /// The decoded string (or its kept part) as a Swift `String`.
    var string: String { String(decoding: bytes, as: UTF8.self) }
}

extension JSONScanner {
    /// Scans the string starting at `base[pos]` (which is `"`), validating it completely, and
    /// keeps its first `keep` decoded bytes.
    ///
    /// Strings without escapes that lie within one chunk are handed out in place; others are
    /// assembled in the scratch area. Control characters inside the quotes, bad escapes,
    /// lone surrogates and malformed UTF-8 are syntax errors.
    @inline(__always)
    mutating func scanString(keep: Int) throws(SyncError) -> ScannedString {
        // The common case, kept small enough to inline: printable ASCII without escapes, all
        // in the current chunk. Anything else starts over in the general loop.
        let start = pos + 1
        var index = start
        while true {
            index = skippingPlainWords(from: index)
            guard index < end else { break }
            let byte = base[index]
            if byte &- 0x20 < 0x5F && byte != 0x5C {
                if byte != 0x22 {
                    index += 1
                    continue
                }
                pos = index + 1
                let length = index - start
                return ScannedString(
                    bytes: UnsafeBufferPointer(start: base + start, count: min(length, keep)),
                    length: length, hasControl: false, hasNUL: false)
            }
            break
        }
        return try scanStringInGeneral(keep: keep)
    }

    /// `scanString(keep:)` for any string: escapes, control characters, non-ASCII, strings
    /// split across chunks.
    @inline(never)
    mutating func scanStringInGeneral(keep: Int) throws(SyncError) -> ScannedString {
        // Shrinks to what is stored once a character does not fit, so the kept part has no holes.
        var keep = min(keep, scratchCapacity)
        pos += 1
        var runStart = pos
        var index = pos
        var inPlace = true
        var stored = 0
        var length = 0
        var hasControl = false
        var hasNUL = false

        /// Moves the plain run `base[runStart..<index]` into the scratch area (what fits).
        @inline(__always) func flush(_ scanner: borrowing JSONScanner) {
            let count = index - runStart
            length += count
            let room = min(count, keep - stored)
            if room > 0 {
                (scanner.scratch + stored).update(from: scanner.base + runStart, count: room)
                stored += room
            }
            inPlace = false
        }

        while true {
            // The hot loop: plain printable ASCII and valid multi-byte sequences.
            while index < end {
                index = skippingPlainWords(from: index)
                guard index < end else { break }
                let byte = base[index]
                if byte &- 0x20 < 0x5F {
                    if byte == 0x22 || byte == 0x5C { break }
                    index += 1
                    continue
                }
                if byte == 0x7F {
                    hasControl = true
                    index += 1
                    continue
                }
                if byte < 0x20 { break }
                // A multi-byte sequence; near the end of a chunk, bring in the rest first.
                if end - index < 4, file != nil {
                    flush(self)
                    runStart = index
                    pos = index
                    _ = try ensure(4)
                    index = pos
                    runStart = pos
                }
                guard let (_, count) = decodeScalar(at: index, available: end - index) else {
                    throw invalidUTF8(at: index)
                }
                lineContinuations += count - 1
                index += count
            }
            if index == end {
                flush(self)
                pos = index
                if try !refill(keeping: pos) {
                    throw syntaxError(expected: "'\"' to end the string", found: "end of file")
                }
                index = pos
                runStart = pos
                continue
            }
            let byte = base[index]
            if byte == 0x22 {
                if inPlace {
                    length = index - runStart
                    pos = index + 1
                    let bytes = UnsafeBufferPointer(start: base + runStart, count: min(length, keep))
                    return ScannedString(bytes: bytes, length: length, hasControl: hasControl, hasNUL: hasNUL)
                }
                flush(self)
                pos = index + 1
                let bytes = UnsafeBufferPointer(start: UnsafePointer(scratch), count: stored)
                return ScannedString(bytes: bytes, length: length, hasControl: hasControl, hasNUL: hasNUL)
            }
            if byte < 0x20 {
                pos = index
                if byte == 0x0A || byte == 0x0D {
                    throw syntaxError(expected: "'\"' to end the string", found: "end of line")
                }
                throw syntaxError(
                    expected: "a string character",
                    found: "an unescaped control character \(Display.codePoint(UInt32(byte)))")
            }
            // A backslash: decode one escape.
            flush(self)
            pos = index
            let scalar = try scanEscape()
            if scalar < 0x20 || scalar == 0x7F { hasControl = true }
            if scalar == 0 { hasNUL = true }
            let count = scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
            length += count
            if stored + count <= keep {
                let out = scratch + stored
                switch count {
                case 1:
                    out[0] = UInt8(scalar)
                case 2:
                    out[0] = UInt8(0xC0 | scalar >> 6)
                    out[1] = UInt8(0x80 | scalar & 0x3F)
                case 3:
                    out[0] = UInt8(0xE0 | scalar >> 12)
                    out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    out[2] = UInt8(0x80 | scalar & 0x3F)
                default:
                    out[0] = UInt8(0xF0 | scalar >> 18)
                    out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                    out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                    out[3] = UInt8(0x80 | scalar & 0x3F)
                }
                stored += count
            } else {
                keep = stored
            }
            index = pos
            runStart = pos
        }
    }

    /// `index` moved eight bytes at a time past string bytes that need no attention (none is
    /// `"`, `\`, a control character or at least 0x7F): to the first such byte of the first word
    /// that has one, else to fewer than eight bytes before `end`.
    @inline(__always)
    func skippingPlainWords(from index: Int) -> Int {
        var index = index
        #if _endian(little)
        while end - index >= 8 {
            let special = Self.specialBytes(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            if special != 0 { return index + special.trailingZeroBitCount >> 3 }
            index += 8
        }
        #endif
        return index
    }

    /// A mask with the high bit set in (at least) the lowest byte of `word` that is `"`, `\`,
    /// below 0x20 or at least 0x7F, and no bit below it; zero when there is none.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let quote = zeroBytes(word ^ (ones &* 0x22))
        let backslash = zeroBytes(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        let high = (((word & ~highs) &+ ones) | word) & highs
        return quote | backslash | control | high
    }

    /// Decodes the escape at `base[pos]` (a backslash) and consumes it, returning the code
    /// point; a `\u` high surrogate must be followed by a `\u` low surrogate.
    mutating func scanEscape() throws(SyncError) -> UInt32 {
        guard try ensure(2) >= 2 else {
            pos += 1
            throw syntaxError(expected: "an escape sequence after '\\'", found: "end of file")
        }
        let letter = base[pos + 1]
        let simple: UInt32?
        switch letter {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default:
            pos += 1
            throw syntaxError(expected: "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u after '\\'")
        }
        if let simple {
            pos += 2
            return simple
        }
        let firstStart = offset(of: pos)
        pos += 2
        let first = try scanHexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard try ensure(2) >= 2, base[pos] == 0x5C, base[pos + 1] == UInt8(ascii: "u") else {
                throw syntaxError(expected: "a \\u escape for a low surrogate after \\u\(Display.hex(first))")
            }
            let secondStart = offset(of: pos)
            pos += 2
            let second = try scanHexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw syntaxError(
                    expected: "a low surrogate (\\uDC00 to \\uDFFF) after \\u\(Display.hex(first))",
                    found: "\\u\(Display.hex(second))", atOffset: secondStart)
            }
            return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        case 0xDC00...0xDFFF:
            throw syntaxError(
                expected: "a high surrogate (\\uD800 to \\uDBFF) before a low surrogate",
                found: "\\u\(Display.hex(first))", atOffset: firstStart)
        default:
            return first
        }
    }

    /// Reads the four hex digits of a `\u` escape.
    private mutating func scanHexQuad() throws(SyncError) -> UInt32 {
        _ = try ensure(4)
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard pos < end else {
                throw syntaxError(expected: "four hex digits after \\u", found: "end of file")
            }
            let byte = base[pos]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntaxError(expected: "four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            pos += 1
        }
        return value
    }
}
