/// The two feed file formats.
public enum FeedFormat: Sendable {
    /// One JSON object with an `"images"` array (and optional `"feed"` and `"sections"`).
    case json
    /// Newline-delimited JSON (JSON Lines): one image object per non-blank line.
    case ndjson

    /// Picks the format from a file name: a `.ndjson` or `.jsonl` extension (any letter case)
    /// means ``ndjson``, anything else (including `-`, standard input) means ``json``.
    public init(path: String) {
        let lowercased = path.lowercased()
        self = lowercased.hasSuffix(".ndjson") || lowercased.hasSuffix(".jsonl") ? .ndjson : .json
    }
}
