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
}

extension CachedLayout {
    /// The cache of `query`'s layout, as ``init(tx:feed:name:engine:key:stride:)`` opens it.
    init(tx: any CatalogTransaction, query: LayoutQuery, engine: Kind, stride: Int) throws {
        try self.init(
            tx: tx, feed: query.feed, name: query.name, engine: engine, key: query.configuration.canonicalJSON,
            stride: stride)
    }
}
