import WaterfallLayout
import WaterfallStore

/// What an answer about a layout is asked of, once the reader's transaction has resolved it:
/// the feed as that transaction shows it, the layout's name (`nil` for a configuration given
/// inline) and its configuration. Every answer (a page, a viewport, a section index) carries
/// the three, from the layout cache or from a server's kept feed alike.
struct LayoutQuery: Sendable {
    let feed: FeedRecord
    let name: String?
    let configuration: AnyLayoutConfiguration
    /// The configuration's canonical JSON (``AnyLayoutConfiguration/canonicalJSON``): the key
    /// of its layout cache and of its kept layout.
    let key: String

    init(feed: FeedRecord, name: String?, configuration: AnyLayoutConfiguration, key: String) {
        self.feed = feed
        self.name = name
        self.configuration = configuration
        self.key = key
    }

    init(feed: FeedRecord, name: String?, configuration: AnyLayoutConfiguration) {
        self.init(feed: feed, name: name, configuration: configuration, key: configuration.canonicalJSON)
    }
}

extension CachedLayout {
    /// The cache of `query`'s layout, as ``init(tx:feed:name:engine:key:stride:)`` opens it.
    init(tx: any CatalogTransaction, query: LayoutQuery, engine: Kind, stride: Int) throws {
        try self.init(
            tx: tx, feed: query.feed, name: query.name, engine: engine, key: query.key, stride: stride)
    }
}
