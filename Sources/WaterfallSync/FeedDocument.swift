/// A decoded, validated feed file: plain values, ready to be imported.
///
/// Guarantees: image ids are unique (as exact code-point sequences), section ids in
/// ``declaredSections`` are unique, and every ``FeedImage/section`` is a valid index into
/// ``sectionNames``.
public struct FeedDocument: Equatable, Sendable {
    /// The feed's name from the file's `"feed"` field; `nil` when absent or `null`, and always
    /// `nil` for NDJSON feeds, which have no place for it.
    public var feed: String?
    /// The file's `"sections"` array, in file order.
    public var declaredSections: [FeedSection]
    /// Every distinct section id, declared or used by an image: the declared ones first, in
    /// their order, then the others in the order of their first image.
    public var sectionNames: [String]
    /// The images, in file order.
    public var images: [FeedImage]
    /// The file's `"sectionBy"`: sections by date (DESIGN section 17); `nil` when absent or
    /// `null`, and always `nil` for NDJSON feeds.
    public var sectionBy: SectionBy?
    /// The file's `"timeZone"`: an IANA time zone name (`Europe/Paris`, `UTC`) that
    /// ``TimeZoneName`` accepts; `nil` when absent or `null`.
    public var timeZone: String?

    /// Creates a document (values are not validated here).
    public init(
        feed: String? = nil, declaredSections: [FeedSection] = [], sectionNames: [String] = [],
        images: [FeedImage] = [], sectionBy: SectionBy? = nil, timeZone: String? = nil
    ) {
        self.feed = feed
        self.declaredSections = declaredSections
        self.sectionNames = sectionNames
        self.images = images
        self.sectionBy = sectionBy
        self.timeZone = timeZone
    }
}
