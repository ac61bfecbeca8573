extension JSONScanner {
    /// Skips a UTF-8 byte order mark at the very start of the input (RFC 8259 §8.1 lets a
    /// parser ignore one; some Windows tools write it).
    mutating func skipByteOrderMark() throws(SyncError) {
        guard offset(of: pos) == 0, try ensure(3) >= 3,
            base[pos] == 0xEF, base[pos + 1] == 0xBB, base[pos + 2] == 0xBF
        else { return }
        pos += 3
        lineStart = 3
    }

    /// Consumes the opening `{` of the top-level object, or throws: an empty file, another
    /// kind of value (`found an array`), or a syntax error.
    mutating func openTopLevelObject() throws(SyncError) {
        try skipByteOrderMark()
        let expected: StaticString = "a JSON object at the top level"
        guard let byte = try skipWhitespace() else {
            if offset(of: pos) == 0 {
                throw SyncError(kind: .invalidData, message: "\(source): expected \(expected), found an empty file.")
            }
            throw syntaxError(expected: "\(expected)", found: "end of file")
        }
        if byte == UInt8(ascii: "{") {
            pos += 1
            return
        }
        let found = try describeValue(valueStart(expected: expected))
        throw SyncError(kind: .invalidData, message: "\(source): expected \(expected), found \(found).")
    }

    /// Checks that only whitespace follows the top-level value.
    mutating func closeTopLevel() throws(SyncError) {
        if try skipWhitespace() != nil {
            throw syntaxError(expected: "the end of the file after the top-level object")
        }
    }

    /// Moves to the next field of an object whose `{` (and any earlier fields) are consumed:
    /// consumes `,` (unless `isFirst`), the name and `:`, and returns the name's index in
    /// `names` (`names.count` for an unknown name). Returns `nil` after consuming `}`.
    mutating func nextField(isFirst: Bool, names: FieldNames) throws(SyncError) -> Int? {
        var byte = try skipWhitespace()
        if byte == UInt8(ascii: "}") {
            pos += 1
            return nil
        }
        if !isFirst {
            guard byte == UInt8(ascii: ",") else { throw syntaxError(expected: "',' or '}'") }
            pos += 1
            byte = try skipWhitespace()
        }
        guard byte == UInt8(ascii: "\"") else {
            throw syntaxError(expected: isFirst ? "'\"' to start a field name or '}'" : "'\"' to start a field name")
        }
        // Fast path: a known name of at most 7 bytes, then its closing quote, in one load.
        if end - pos >= 9 {
            let word = UnsafeRawPointer(base + pos + 1).loadUnaligned(as: UInt64.self)
            if let index = names.index(ofQuotedWord: word) {
                pos += names.lengths[index] + 2
                if pos < end && base[pos] == UInt8(ascii: ":") {
                    pos += 1
                    return index
                }
                try expect(UInt8(ascii: ":"), "':' after the field name")
                return index
            }
        }
        let name = try scanString(keep: FieldNames.longest)
        let index = names.index(of: name)
        try expect(UInt8(ascii: ":"), "':' after the field name")
        return index
    }

    /// Moves to the next element of an array whose `[` (and any earlier elements) are
    /// consumed: consumes `,` (unless `isFirst`) and returns `true` when an element follows;
    /// returns `false` after consuming `]`.
    mutating func nextElement(isFirst: Bool) throws(SyncError) -> Bool {
        let byte = try skipWhitespace()
        if byte == UInt8(ascii: "]") {
            pos += 1
            return false
        }
        if isFirst { return true }
        guard byte == UInt8(ascii: ",") else { throw syntaxError(expected: "',' or ']'") }
        pos += 1
        return true
    }
}

/// The field names an object may hold, matched in one comparison each: every name of at most
/// 8 bytes is packed into a 64-bit word; longer ones (at most 16 bytes, such as `sectionBy`)
/// are compared byte by byte.
struct FieldNames {
    let names: [StaticString]
    /// Each name packed into a word (little-endian), for names met in the general way.
    private let words: [UInt64]
    /// Each name's length in bytes.
    let lengths: [Int]
    /// Each name followed by `"`, and the mask of those bytes (all zero for 8-byte names,
    /// which do not fit).
    private let quotedWords: [UInt64]
    private let quotedMasks: [UInt64]

    init(_ names: [StaticString]) {
        precondition(names.allSatisfy { $0.utf8CodeUnitCount <= FieldNames.longest })
        self.names = names
        words = names.map { name in
            FieldNames.pack(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }
        lengths = names.map(\.utf8CodeUnitCount)
        quotedWords = zip(words, lengths).map { word, length in
            length < 8 ? word | UInt64(UInt8(ascii: "\"")) << (length * 8) : 0
        }
        quotedMasks = lengths.map { length in
            length < 7 ? 1 << ((length + 1) * 8) - 1 : length == 7 ? ~0 : 0
        }
    }

    /// The index of the name whose bytes and closing quote start `word`, if any.
    @inline(__always)
    func index(ofQuotedWord word: UInt64) -> Int? {
        quotedWords.withUnsafeBufferPointer { quotedWords in
            quotedMasks.withUnsafeBufferPointer { quotedMasks in
                for index in 0..<quotedWords.count
                where quotedMasks[index] != 0 && word & quotedMasks[index] == quotedWords[index] {
                    return index
                }
                return nil
            }
        }
    }

    /// The number of names.
    var count: Int { names.count }

    /// The name at `index`.
    subscript(index: Int) -> StaticString { names[index] }

    /// The longest name, in bytes.
    static let longest = 16

    /// The index of `name` among the names, or `count` when it is none of them.
    func index(of name: ScannedString) -> Int {
        guard name.length > 8 else { return index(ofWord: FieldNames.pack(name.bytes), length: name.length) }
        guard name.isComplete else { return names.count }
        for (index, candidate) in names.enumerated() where lengths[index] == name.length {
            if UnsafeBufferPointer(start: candidate.utf8Start, count: candidate.utf8CodeUnitCount).elementsEqual(
                name.bytes)
            {
                return index
            }
        }
        return names.count
    }

    /// The index of the name packed as `word` with `length` bytes, or `count`.
    @inline(__always)
    func index(ofWord word: UInt64, length: Int) -> Int {
        words.withUnsafeBufferPointer { words in
            lengths.withUnsafeBufferPointer { lengths in
                for index in 0..<words.count where words[index] == word && lengths[index] == length {
                    return index
                }
                return words.count
            }
        }
    }

    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << (index * 8) }
        return word
    }
}
