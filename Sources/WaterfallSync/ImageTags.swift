/// An image's tags (DESIGN section 20): the attributes a view filters on.
///
/// A feed gives them as `"tags": ["beach", "família", …]`: at most ``maximumCount`` strings of
/// 1…``maximumBytes`` UTF-8 bytes without control characters, each given once. Tags are
/// compared exactly, as code-point sequences (`"é"` precomposed and decomposed are two tags),
/// and kept in the order the feed gave them.
public enum ImageTags {
    /// The most tags an image may carry.
    public static let maximumCount = 64
    /// The longest tag, in UTF-8 bytes.
    public static let maximumBytes = 64

    /// How the catalog stores an image's tags: one line a tag, in the feed's order (a tag holds
    /// no control character, so no line break); `nil` for an image without tags.
    public static func storedText(_ tags: [String]) -> String? {
        tags.isEmpty ? nil : tags.joined(separator: "\n")
    }

    /// The tags of a ``storedText(_:)``; none for `nil`.
    public static func tags(storedText text: String?) -> [String] {
        guard let text, !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether `tags` holds `tag`, compared exactly.
    public static func contains(_ tags: [String], _ tag: String) -> Bool {
        tags.contains { $0.utf8.elementsEqual(tag.utf8) }
    }

    /// Whether `tag` is a tag a feed may give: 1…``maximumBytes`` UTF-8 bytes, no control
    /// characters.
    public static func isValid(_ tag: String) -> Bool {
        (1...maximumBytes).contains(tag.utf8.count)
            && !tag.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
