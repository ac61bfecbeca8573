/// Decodes and validates reorder files into a ``ReorderDocument``.
///
/// A reorder file is a top-level object with an optional `"feed"` name and either an
/// `"order"` array of distinct ids (at least one), or a `"moves"` array (objects with `"id"`
/// and exactly one of `"before"`, `"after"` (ids) or `"to"` (an index, 0 or more)) and/or a
/// `"remove"` array of distinct ids. `"order"` cannot be combined with the others; a move of an
/// image before or after itself is rejected. Unknown fields are skipped; `null` means absent.
/// Same parser and guarantees as ``FeedDecoder``.
public struct ReorderDecoder: Sendable {
    /// The bounds applied to the input.
    public var limits: SyncLimits
    /// The size of each read from a file; tests make it tiny to cross chunk boundaries
    /// everywhere.
    var chunkSize = 1 << 20

    /// Creates a decoder applying `limits`.
    public init(limits: SyncLimits = .default) {
        self.limits = limits
    }

    /// Reads and decodes the reorder file at `path` (`-` is standard input).
    ///
    /// - Throws: `SyncError` of kind `fileUnreadable` when the file is missing, unreadable or
    ///   a directory, of kind `invalidData` for anything wrong inside it.
    public func decode(contentsOf path: String) throws(SyncError) -> ReorderDocument {
        let name = FileReader.displayName(of: path)
        let file = try FileReader(
            path: path, name: name, maximumBytes: limits.fileBytes, chunkSize: chunkSize, progress: nil)
        let parser = ReorderParser(scanner: JSONScanner(file: file, source: name, limits: limits), limits: limits)
        return try parser.parse()
    }

    /// Decodes a reorder file already in memory; `source` is the file name used in messages.
    ///
    /// - Throws: `SyncError` of kind `invalidData` for anything wrong in `bytes`.
    public func decode(_ bytes: [UInt8], source: String) throws(SyncError) -> ReorderDocument {
        let source = Display.fileName(source)
        try FileReader.checkSize(bytes.count, maximumBytes: limits.fileBytes, name: source)
        let limits = limits
        return try bytes.withUnsafeBufferPointer { (buffer) throws(SyncError) -> ReorderDocument in
            let parser = ReorderParser(
                scanner: JSONScanner(bytes: buffer, source: source, limits: limits), limits: limits)
            return try parser.parse()
        }
    }
}
