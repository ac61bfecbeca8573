/// The sizes an image is served at (DESIGN section 16): a list of renditions, each a width in
/// pixels and its URL, or one URL template whose `{width}` a client fills in.
///
/// A feed gives one or the other: `"renditions": [{"width": 320, "url": "…"}, …]` (widths
/// 1…1,000,000, strictly ascending, at most ``maximumCount``) or `"urlTemplate":
/// "https://…/{width}/a.jpg"`. A template serves any width from 1 to the image's own.
public enum Renditions: Hashable, Sendable {
    /// Widths strictly ascending, at least one.
    case list([Rendition])
    /// A URL with at least one `{width}`.
    case template(String)

    /// The most renditions an image may list.
    public static let maximumCount = 32
    /// What a template holds where the width goes.
    public static let widthPlaceholder = "{width}"

    /// The URL for a frame that needs `pixels` pixels across: the smallest rendition at least
    /// that wide, else the largest. A template is filled with the pixels rounded up, at least
    /// 1 and at most `imageWidth` (the image's own width is its largest rendition). O(count).
    public func url(forPixels pixels: Double, imageWidth: Int32) -> String {
        switch self {
        case .list(let renditions):
            return (renditions.first { Double($0.width) >= pixels } ?? renditions[renditions.count - 1]).url
        case .template(let template):
            let wanted = pixels.isFinite ? min(max(pixels.rounded(.up), 1), Double(imageWidth)) : Double(imageWidth)
            return template.replacing(Self.widthPlaceholder, with: String(Int(max(wanted, 1))))
        }
    }

    /// How the catalog stores them: one line a rendition, `WIDTH URL`, or one line `* TEMPLATE`
    /// (URLs of renditions hold no control characters, so no line break).
    public var storedText: String {
        switch self {
        case .list(let renditions): renditions.map { "\($0.width) \($0.url)" }.joined(separator: "\n")
        case .template(let template): "* " + template
        }
    }

    /// Renditions from their ``storedText``; `nil` when `text` is not such a text.
    public init?(storedText text: String) {
        if text.hasPrefix("* ") {
            self = .template(String(text.dropFirst(2)))
            return
        }
        var renditions: [Rendition] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let space = line.firstIndex(of: " "), let width = Int32(line[..<space]) else { return nil }
            renditions.append(Rendition(width: width, url: String(line[line.index(after: space)...])))
        }
        guard !renditions.isEmpty else { return nil }
        self = .list(renditions)
    }
}

/// One size of an image: its width in pixels and where to load it.
public struct Rendition: Hashable, Sendable, Encodable {
    /// The width in pixels, 1…1,000,000.
    public var width: Int32
    /// The URL of this size.
    public var url: String

    /// Creates a rendition (not validated here).
    public init(width: Int32, url: String) {
        self.width = width
        self.url = url
    }
}
