/// Decodes and validates feed files (JSON or NDJSON) into a ``FeedDocument``.
///
/// The parser is hand-written and streaming: files are read in 1 MiB chunks and never held
/// whole, no JSON tree is built, and nesting is handled without recursion, so memory beyond
/// the result stays at a few megabytes plus about 16 bytes an image for the duplicate check.
/// It accepts standard JSON only (RFC 8259) and rejects, with one sentence naming the file and
/// the place, anything that breaks the feed rules (see DESIGN section 4):
///
/// - JSON: a top-level object with an optional `"feed"` name, optional `"sections"` and a
///   required `"images"` array. NDJSON: one image object per non-blank line; at least one.
/// - Image: `"id"` (non-empty string or integer, unique), `"width"` and `"height"` (integers
///   1…1,000,000), optional `"url"`, `"title"` (string or null), `"section"` (string,
///   integer or null) and `"span"` (`"full"`, `"normal"` or null).
/// - Unknown fields are skipped (still validated as JSON, at most ``SyncLimits/nestingDepth``
///   levels deep); `null` in an optional field means the same as leaving it out; a known field
///   given twice in one object is rejected.
/// - Integer ids may be negative or longer than 64 bits; they are kept as written (`-0` as `0`).
///   Strings are compared as exact code points (no Unicode normalization).
/// - An NDJSON file needs at least one image: an empty file is more likely a failed export
///   than a wish to empty the feed (send `{"images": []}` for that). A line may not be split.
/// - A leading UTF-8 byte order mark is skipped. Syntax errors give a 1-based line and a column
///   counted in code points; UTF-8 errors give a 0-based byte offset. A file name holding
///   control characters (a line break, say) shows them as `\uXXXX`, so a message stays one line.
/// - Duplicate ids are checked once the whole file is otherwise valid; the pair reported is the
///   first repeat in file order.
public struct FeedDecoder: Sendable {
    /// The bounds applied to the input.
    public var limits: SyncLimits
    /// Called with the number of bytes read so far and the file's size (nil for a pipe or
    /// standard input), every 4 MiB and once at the end of a file, for a progress line. Not
    /// called when decoding bytes already in memory.
    public var progress: (@Sendable (_ bytesRead: Int, _ totalBytes: Int?) -> Void)?
    /// The size of each read from a file; tests make it tiny to cross chunk boundaries
    /// everywhere.
    var chunkSize = 1 << 20

    /// Creates a decoder applying `limits`.
    public init(limits: SyncLimits = .default) {
        self.limits = limits
        progress = nil
    }

    /// Reads and decodes the feed file at `path` (`-` is standard input, named
    /// `standard input` in messages).
    ///
    /// - Throws: `SyncError` of kind `fileUnreadable` when the file is missing, unreadable or
    ///   a directory, of kind `invalidData` for anything wrong inside it.
    /// - Complexity: O(n) in the file's size; memory O(1) besides the result and the
    ///   duplicate-id index.
    public func decode(contentsOf path: String, format: FeedFormat) throws(SyncError) -> FeedDocument {
        try decode(contentsOf: path, format: format, source: FileReader.displayName(of: path))
    }

    /// Reads and decodes the feed file at `path`, naming it `source` in messages (a request
    /// body spooled to a temporary file is `request body`, not the temporary file's name).
    ///
    /// - Throws: `SyncError` as ``decode(contentsOf:format:)``.
    public func decode(contentsOf path: String, format: FeedFormat, source: String) throws(SyncError) -> FeedDocument {
        let name = Display.fileName(source)
        let file = try FileReader(
            path: path, name: name, maximumBytes: limits.fileBytes, chunkSize: chunkSize, progress: progress)
        let parser = FeedParser(
            scanner: JSONScanner(file: file, source: name, limits: limits), limits: limits,
            expectedBytes: file.knownSize)
        return try parser.parse(format)
    }

    /// Decodes a feed already in memory; `source` is the file name used in messages.
    ///
    /// - Throws: `SyncError` of kind `invalidData` for anything wrong in `bytes`.
    public func decode(_ bytes: [UInt8], format: FeedFormat, source: String) throws(SyncError) -> FeedDocument {
        let source = Display.fileName(source)
        try FileReader.checkSize(bytes.count, maximumBytes: limits.fileBytes, name: source)
        let limits = limits
        return try bytes.withUnsafeBufferPointer { (buffer) throws(SyncError) -> FeedDocument in
            let parser = FeedParser(
                scanner: JSONScanner(bytes: buffer, source: source, limits: limits), limits: limits,
                expectedBytes: buffer.count)
            return try parser.parse(format)
        }
    }

    /// Decodes a feed from any byte sequence (such as `Data`); `source` is the file name used
    /// in messages.
    ///
    /// - Throws: `SyncError` of kind `invalidData` for anything wrong in `bytes`.
    public func decode(_ bytes: some Sequence<UInt8>, format: FeedFormat, source: String) throws(SyncError)
        -> FeedDocument
    {
        try decode(Array(bytes), format: format, source: source)
    }
}
