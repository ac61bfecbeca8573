// Shared by both fuzz targets; compiled into the WaterfallSync module with them (see build.sh),
// so it reaches the decoder's internals (FileReader, JSONScanner, the parsers).

#if canImport(Glibc)
import Glibc
#endif

/// Bounds much tighter than the defaults, so that a 64 KiB input reaches every limit check
/// (lengths, image counts, nesting) instead of only the syntax.
let tightLimits = SyncLimits(
    idBytes: 6, sectionIdBytes: 5, feedNameBytes: 4, urlBytes: 9, titleBytes: 7, imagesPerFeed: 3,
    fileBytes: 4096, nestingDepth: 3)

/// One unlinked file in /dev/shm (memory, no disk IO) rewritten for each input, so that the
/// file path of the decoders (chunked reads, refills, bytes carried over between chunks) is
/// fuzzed too. It is reached through /proc/self/fd, and vanishes when the fuzzer exits.
let fuzzFileDescriptor: Int32 = {
    let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let path = "\(folder)/waterfall-fuzz-\(getpid())"
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    precondition(descriptor >= 0, "cannot create \(path)")
    unlink(path)
    return descriptor
}()

/// Replaces the in-memory file's contents with `bytes` and returns a path that opens it.
func fuzzFile(holding bytes: [UInt8]) -> String {
    precondition(ftruncate(fuzzFileDescriptor, 0) == 0)
    let written = bytes.withUnsafeBytes { pwrite(fuzzFileDescriptor, $0.baseAddress, $0.count, 0) }
    precondition(written == bytes.count)
    return "/proc/self/fd/\(fuzzFileDescriptor)"
}

/// A chunk size derived from the input, 1…17 bytes, so that every input is also read in tiny
/// pieces (the real decoder reads 1 MiB at a time; a fuzz input never spans two such chunks).
func chunkSize(for bytes: [UInt8]) -> Int {
    var hash = bytes.count
    for byte in bytes.prefix(8) { hash = hash &* 31 &+ Int(byte) }
    return 1 + (hash & 0x7FFF_FFFF) % 17
}

/// A decoder's answer, comparable across the two ways of reading the same bytes.
enum Outcome<Document: Equatable>: Equatable {
    case decoded(Document)
    case rejected(SyncError.Kind, String)
}

/// Runs `body`, turning the only error it may throw into an outcome. Any other failure (a trap,
/// an out-of-bounds access) is what the fuzzer looks for.
func outcome<Document: Equatable>(_ body: () throws(SyncError) -> Document) -> Outcome<Document> {
    do {
        return .decoded(try body())
    } catch {
        checkMessage(error)
        return .rejected(error.kind, error.message)
    }
}

/// Every rejection is one sentence on one line: what the command line prints as is.
func checkMessage(_ error: SyncError) {
    let message = error.message
    check(!message.isEmpty && message.hasSuffix("."), "message is not a sentence: \(message)")
    check(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
          "message holds a control character: \(message.debugDescription)")
}

/// Crashes (so that libFuzzer records the input) when `condition` is false.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

/// Whether `string` has a control character (U+0000–U+001F, U+007F).
func hasControl(_ string: String) -> Bool {
    string.utf8.contains { $0 < 0x20 || $0 == 0x7F }
}

/// Whether `bytes` is one JSON text by the grammar of RFC 8259 (after an optional UTF-8 byte
/// order mark), in valid UTF-8: anything Waterfall accepts as a JSON file must be JSON.
///
/// A reference written for the oracle, independent of the decoder. Foundation's parser is no
/// oracle here: it rejects numbers beyond `Double` (`1E400`), which the grammar allows.
func isStrictJSON<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool where Bytes.Index == Int {
    var validator = StrictJSON(bytes: Array(bytes))
    return validator.isValidText()
}

/// A recursive-descent recognizer of RFC 8259 JSON (the oracle only runs on inputs the decoder
/// accepted, which are at most 64 levels deep, so recursion is bounded).
struct StrictJSON {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func isValidText() -> Bool {
        guard String(validating: bytes, as: UTF8.self) != nil else { return false }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        guard value() else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard next == byte else { return false }
        index += 1
        return true
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    mutating func value() -> Bool {
        switch next {
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return true }
            repeat {
                skipWhitespace()
                guard string() else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard value() else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            repeat {
                skipWhitespace()
                guard value() else { return false }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            return consume(UInt8(ascii: "]"))
        case UInt8(ascii: "\""): return string()
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return number()
        }
    }

    mutating func string() -> Bool {
        guard consume(UInt8(ascii: "\"")) else { return false }
        while let byte = next {
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return true
            case UInt8(ascii: "\\"):
                guard let escape = next else { return false }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        guard let digit = next, isHexDigit(digit) else { return false }
                        index += 1
                    }
                default: return false
                }
            case 0..<0x20: return false
            default: continue
            }
        }
        return false
    }

    mutating func number() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
        } else {
            guard digits() else { return false }
        }
        if consume(UInt8(ascii: ".")) {
            guard digits() else { return false }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits() else { return false }
        }
        return true
    }

    mutating func digits() -> Bool {
        let start = index
        while let byte = next, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}

/// Whether every non-blank line of `bytes` (split at `\n`) is a JSON object: anything
/// Waterfall accepts as an NDJSON file must be that.
func isStrictNDJSON(_ bytes: [UInt8]) -> Bool {
    guard String(validating: bytes, as: UTF8.self) != nil else { return false }
    var body = bytes[...]
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
    for line in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
        let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        if trimmed.isEmpty { continue }
        guard trimmed.first == UInt8(ascii: "{"), isStrictJSON(Array(line)) else { return false }
    }
    return true
}
