/// A pull scanner over JSON bytes that arrive whole (in memory) or in chunks (from a file).
///
/// It hands out tokens one at a time and keeps no tree, so memory stays flat whatever the
/// input's size. Line breaks are counted only where they can legally occur (between tokens),
/// and columns count code points, so syntax errors name `line L, column C` without keeping
/// old bytes around.
///
/// Invariant: `base[pos..<end]` are the bytes not yet consumed of the current chunk;
/// `bufferOffset` is the file offset of `base[0]`.
struct JSONScanner: ~Copyable {
    /// The file name used in messages.
    let source: String
    var base: UnsafePointer<UInt8>
    var pos: Int
    var end: Int
    var bufferOffset = 0
    let file: FileReader?

    /// Whether a line break ends the current value (NDJSON) instead of being whitespace.
    var lineBreakEndsValue = false

    /// The current line (1-based) and the file offset where it starts.
    var line = 1
    var lineStart = 0
    /// UTF-8 continuation bytes passed on the current line, to turn byte columns into
    /// code-point columns.
    var lineContinuations = 0

    /// Where decoded strings that cannot be handed out in place are assembled.
    let scratch: UnsafeMutablePointer<UInt8>
    let scratchCapacity: Int
    /// The first bytes of the last number scanned.
    let numberText: UnsafeMutablePointer<UInt8>
    let numberTextCapacity: Int
    /// Open containers while skipping a value: `true` for an object, `false` for an array.
    var skipStack: [Bool] = []
    /// The deepest nesting allowed, counting the top-level value as 1.
    let nestingLimit: Int

    /// A scanner over bytes that stay valid (and unchanged) for the scanner's lifetime.
    init(bytes: UnsafeBufferPointer<UInt8>, source: String, limits: SyncLimits) {
        self.source = source
        (scratch, scratchCapacity, numberText, numberTextCapacity) = JSONScanner.allocateScratch(limits)
        // An empty buffer may have no address; any valid pointer does when `end` is 0.
        base = bytes.baseAddress ?? UnsafePointer(scratch)
        pos = 0
        end = bytes.count
        file = nil
        nestingLimit = limits.nestingDepth
    }

    /// A scanner over a file read in chunks.
    init(file: FileReader, source: String, limits: SyncLimits) {
        self.source = source
        base = UnsafePointer(file.buffer)
        pos = 0
        end = 0
        self.file = file
        (scratch, scratchCapacity, numberText, numberTextCapacity) = JSONScanner.allocateScratch(limits)
        nestingLimit = limits.nestingDepth
    }

    deinit {
        scratch.deallocate()
        numberText.deallocate()
    }

    private static func allocateScratch(_ limits: SyncLimits)
        -> (UnsafeMutablePointer<UInt8>, Int, UnsafeMutablePointer<UInt8>, Int)
    {
        let longest = max(
            limits.idBytes, limits.sectionIdBytes, limits.feedNameBytes, limits.urlBytes,
            limits.titleBytes, JSONScanner.displayBytes, 64)
        let numbers = max(limits.idBytes, limits.sectionIdBytes, JSONScanner.displayBytes) + 1
        return (.allocate(capacity: longest + 8), longest, .allocate(capacity: numbers), numbers)
    }

    /// How many bytes of a string or number are kept to show it in a message.
    static let displayBytes = 200

    // MARK: Position

    /// The file offset of `base[index]`.
    @inline(__always)
    func offset(of index: Int) -> Int { bufferOffset + index }

    /// The 1-based code-point column of `base[index]` on the current line.
    func column(of index: Int) -> Int {
        offset(of: index) - lineStart - lineContinuations + 1
    }

    /// Records a line break at `base[index]` (already known to be `\n`).
    @inline(__always)
    mutating func noteLineBreak(at index: Int) {
        line += 1
        lineStart = offset(of: index) + 1
        lineContinuations = 0
    }

    // MARK: Chunks

    /// Brings in the next chunk, keeping `base[keep..<end]` (moved to the front).
    ///
    /// Indices into the buffer shift down by `keep`; `pos` is adjusted. Returns `false` when no
    /// new byte arrived (end of input).
    mutating func refill(keeping keep: Int) throws(SyncError) -> Bool {
        guard let file else { return false }
        let kept = end - keep
        if kept > 0 && keep > 0 {
            file.buffer.update(from: file.buffer + keep, count: kept)
        }
        bufferOffset += keep
        pos -= keep
        end = kept
        let count = try file.read(into: kept)
        end += count
        return count > 0
    }

    /// Makes at least `count` bytes from `pos` available when the input has them; returns how
    /// many are available (possibly fewer at the end of input).
    mutating func ensure(_ count: Int) throws(SyncError) -> Int {
        while end - pos < count {
            if try !refill(keeping: pos) { break }
        }
        return end - pos
    }

    /// The next byte, without consuming it; `nil` at the end of input.
    @inline(__always)
    mutating func peek() throws(SyncError) -> UInt8? {
        if pos < end { return base[pos] }
        return try peekSlow()
    }

    @inline(never)
    mutating func peekSlow() throws(SyncError) -> UInt8? {
        while pos >= end {
            if try !refill(keeping: pos) { return nil }
        }
        return base[pos]
    }

    /// Skips whitespace and returns the next byte without consuming it; `nil` at the end of
    /// input. In NDJSON mode a line break is returned, not skipped.
    @inline(__always)
    mutating func skipWhitespace() throws(SyncError) -> UInt8? {
        if pos < end {
            let byte = base[pos]
            if byte > 0x20 { return byte }
        }
        return try skipWhitespaceSlow()
    }

    @inline(never)
    mutating func skipWhitespaceSlow() throws(SyncError) -> UInt8? {
        while true {
            while pos < end {
                let byte = base[pos]
                switch byte {
                case 0x20, 0x09, 0x0D:
                    pos += 1
                case 0x0A:
                    if lineBreakEndsValue { return byte }
                    noteLineBreak(at: pos)
                    pos += 1
                default:
                    return byte
                }
            }
            if try !refill(keeping: pos) { return nil }
        }
    }

    // MARK: Errors

    /// A syntax error at `base[pos]`: `file: line L, column C: expected X, found Y.`
    @inline(never)
    mutating func syntaxError(expected: String) -> SyncError {
        let found: String
        do {
            found = try describeByte()
        } catch {
            return error
        }
        return syntaxError(expected: expected, found: found)
    }

    /// A syntax error at `base[pos]` (or at file offset `atOffset` on the current line) with a
    /// given description of what is there.
    @inline(never)
    func syntaxError(expected: String, found: String, atOffset: Int? = nil) -> SyncError {
        let column = (atOffset ?? offset(of: pos)) - lineStart - lineContinuations + 1
        return SyncError(
            kind: .invalidData,
            message: "\(source): line \(line), column \(column): expected \(expected), found \(found).")
    }

    /// The error for a malformed UTF-8 sequence starting at `base[index]`.
    func invalidUTF8(at index: Int) -> SyncError {
        SyncError(kind: .invalidData, message: "\(source): is not valid UTF-8 at byte \(offset(of: index)).")
    }

    /// Describes the character at `pos` for a syntax error: `'x'`, `end of file`,
    /// `control character U+0001`, `the character U+00E9`. Throws the UTF-8 error when the
    /// bytes there are not valid UTF-8.
    mutating func describeByte() throws(SyncError) -> String {
        let available = try ensure(4)
        guard available > 0 else { return "end of file" }
        let byte = base[pos]
        if byte == 0x0A && lineBreakEndsValue { return "end of line" }
        if byte < 0x80 {
            if byte < 0x20 || byte == 0x7F { return "control character \(Display.codePoint(UInt32(byte)))" }
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        guard let (scalar, _) = decodeScalar(at: pos, available: available) else {
            throw invalidUTF8(at: pos)
        }
        return "the character \(Display.codePoint(scalar))"
    }

    /// Decodes one multi-byte UTF-8 sequence at `base[index]` (whose first byte is ≥ 0x80),
    /// with `available` bytes readable from there; `nil` when it is malformed or cut short.
    /// Rejects overlong forms, surrogates and values above U+10FFFF (Unicode Table 3-7).
    @inline(__always)
    func decodeScalar(at index: Int, available: Int) -> (UInt32, Int)? {
        let b0 = base[index]
        @inline(__always) func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> UInt32? {
            guard k < available else { return nil }
            let byte = base[index + k]
            return byte >= low && byte <= high ? UInt32(byte & 0x3F) : nil
        }
        switch b0 {
        case 0xC2...0xDF:
            guard let c1 = continuation(1) else { return nil }
            return (UInt32(b0 & 0x1F) << 6 | c1, 2)
        case 0xE0...0xEF:
            let low: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = b0 == 0xED ? 0x9F : 0xBF
            guard let c1 = continuation(1, low, high), let c2 = continuation(2) else { return nil }
            return (UInt32(b0 & 0x0F) << 12 | c1 << 6 | c2, 3)
        case 0xF0...0xF4:
            let low: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
            guard let c1 = continuation(1, low, high), let c2 = continuation(2), let c3 = continuation(3)
            else { return nil }
            return (UInt32(b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3, 4)
        default:
            return nil
        }
    }
}
