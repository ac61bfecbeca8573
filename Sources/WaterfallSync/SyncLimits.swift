/// Bounds applied to untrusted feed and reorder files; anything beyond them is rejected.
///
/// String lengths count UTF-8 bytes after escapes are decoded.
public struct SyncLimits: Hashable, Sendable {
    /// The longest image id, in UTF-8 bytes. Default 256.
    public var idBytes: Int
    /// The longest section id, in UTF-8 bytes. Default 256.
    public var sectionIdBytes: Int
    /// The longest feed name, in UTF-8 bytes. Default 128.
    public var feedNameBytes: Int
    /// The longest image URL, in UTF-8 bytes. Default 4096.
    public var urlBytes: Int
    /// The longest image or section title, in UTF-8 bytes. Default 1024.
    public var titleBytes: Int
    /// The most images in one feed file (and ids in one reorder list). Default 10,000,000.
    public var imagesPerFeed: Int
    /// The largest file accepted, in bytes. Default 4 GiB.
    public var fileBytes: Int
    /// The deepest nesting of arrays and objects, counting the top-level object as 1.
    /// Default 64.
    public var nestingDepth: Int

    /// Creates limits; every parameter defaults to the value in ``default``.
    public init(
        idBytes: Int = 256, sectionIdBytes: Int = 256, feedNameBytes: Int = 128,
        urlBytes: Int = 4096, titleBytes: Int = 1024, imagesPerFeed: Int = 10_000_000,
        fileBytes: Int = 4 << 30, nestingDepth: Int = 64
    ) {
        self.idBytes = idBytes
        self.sectionIdBytes = sectionIdBytes
        self.feedNameBytes = feedNameBytes
        self.urlBytes = urlBytes
        self.titleBytes = titleBytes
        self.imagesPerFeed = imagesPerFeed
        self.fileBytes = fileBytes
        self.nestingDepth = nestingDepth
    }

    /// The limits Waterfall uses unless told otherwise.
    public static let `default` = SyncLimits()
}
