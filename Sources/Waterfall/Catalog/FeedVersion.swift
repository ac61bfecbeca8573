import WaterfallStore

/// An answer about one state of one feed.
public protocol FeedAnswer {
    var revision: Int64 { get }
    /// The feed's id when the answer was read (``FeedVersion``).
    var incarnation: Int64 { get }
}

extension FeedAnswer {
    /// The state of the feed the answer shows.
    public var version: FeedVersion { FeedVersion(incarnation: incarnation, revision: revision) }
}

extension LayoutPage: FeedAnswer {}
extension ViewportPage: FeedAnswer {}
extension SectionIndex: FeedAnswer {}
extension CoverFlowPage: FeedAnswer {}
extension LocatedImage: FeedAnswer {}
extension ImageList: FeedAnswer {}
extension SectionList: FeedAnswer {}
extension ViewList: FeedAnswer {}
extension ChangeList: FeedAnswer {}
extension FeedList.Feed: FeedAnswer {}
