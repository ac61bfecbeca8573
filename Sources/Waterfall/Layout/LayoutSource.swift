import Foundation
import WaterfallLayout

/// Which layout a query uses: a named layout of the feed, or a configuration given inline.
/// The same configuration is the same cache entry either way.
public enum LayoutSource: Hashable, Sendable {
    case named(String)
    case inline(LayoutConfiguration)
}

extension LayoutConfiguration {
    /// The canonical JSON of the configuration (every field, keys sorted): the cache key and the
    /// stored form of named layouts.
    var canonicalJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a struct of numbers and strings cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// Decodes a configuration stored by ``canonicalJSON``.
    static func fromCanonicalJSON(_ text: String) throws -> LayoutConfiguration {
        try JSONDecoder().decode(LayoutConfiguration.self, from: Data(text.utf8))
    }
}
