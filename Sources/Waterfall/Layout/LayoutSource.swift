import Foundation
import Synchronization
import WaterfallLayout
import WaterfallSync

/// Which layout a query uses: a named layout of the feed, or a configuration given inline.
/// The same configuration is the same cache entry either way.
public enum LayoutSource: Hashable, Sendable {
    case named(String)
    case inline(AnyLayoutConfiguration)
}

extension AnyLayoutConfiguration {
    /// The canonical JSON of the configuration (every field, keys sorted, `kind` for every
    /// kind but the waterfall): the cache key and the stored form of named layouts.
    ///
    /// A kind's own configuration is written by its field table
    /// (``FieldTable/canonicalJSON(kind:)``), byte for byte what Foundation's `JSONEncoder`
    /// writes with sorted keys (a test compares) without its start-up cost, which every query
    /// would pay; a layout with per-section overrides by `JSONEncoder` itself.
    var canonicalJSON: String {
        switch self {
        case .waterfall(let configuration):
            return configuration.canonicalJSON()
        case .justified(let configuration):
            return configuration.canonicalJSON(kind: LayoutKind.justified.rawValue)
        case .sectioned:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // A validated configuration holds finite numbers only, which always encode.
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }

    /// Decodes a configuration stored by ``canonicalJSON``: a kind's exact canonical text is
    /// read through its field table; anything else (overrides, a database edited by hand) goes
    /// through `JSONDecoder`.
    static func fromCanonicalJSON(_ text: String) throws -> AnyLayoutConfiguration {
        if let configuration = LayoutConfiguration.fromCanonicalJSON(text) { return .waterfall(configuration) }
        if let configuration = JustifiedConfiguration.fromCanonicalJSON(text, kind: LayoutKind.justified.rawValue) {
            return .justified(configuration)
        }
        return try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(text.utf8))
    }

    /// A named layout's stored text decoded (``fromCanonicalJSON(_:)``) with its canonical JSON,
    /// remembered for the texts met last: every answer about a named layout reads its record,
    /// and decoding it and writing its key again took 5% of a random page's time on SQLite
    /// (issue 53). Only stored texts are remembered (a writer adds them, not a reader), by
    /// their exact bytes (Swift's `==` takes "é" and "e\u{301}" for one string, which would
    /// give one layout another's configuration), each of at most ``longestStoredTextRemembered``
    /// bytes and at most ``storedTextsRemembered`` of them (a few MiB); past that the memory
    /// starts over.
    static func fromStored(_ text: String) throws -> (AnyLayoutConfiguration, key: String) {
        let exact = ExactString(text)
        if let known = storedTexts.withLock({ $0[exact] }) { return known }
        let configuration = try fromCanonicalJSON(text)
        let decoded = (configuration, key: configuration.canonicalJSON)
        if text.utf8.count <= longestStoredTextRemembered {
            storedTexts.withLock { texts in
                if texts.count >= storedTextsRemembered { texts.removeAll() }
                texts[exact] = decoded
            }
        }
        return decoded
    }

    private static let storedTexts = Mutex<[ExactString: (AnyLayoutConfiguration, key: String)]>([:])
    static let storedTextsRemembered = 256
    static let longestStoredTextRemembered = 8_192

    /// Runs `work` with the layout engine of the configuration's kind: the one place that
    /// turns a kind into its engine. `work` gets the concrete engine, so the generic code it
    /// runs (the cache, the runner, a scan of a million images) is specialised for each kind
    /// rather than going through an existential's witness tables for every image.
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds, or what
    ///   `work` throws.
    func withEngine<Work: EngineWork>(_ work: Work) throws -> Work.Output {
        switch self {
        case .waterfall(let configuration): try work.run(WaterfallLayout(configuration))
        case .justified(let configuration): try work.run(JustifiedLayout(configuration))
        case .sectioned(let configuration): try work.run(SectionedLayout(configuration))
        }
    }
}

/// Something done with a layout engine of any kind (see ``AnyLayoutConfiguration/withEngine(_:)``).
protocol EngineWork {
    associatedtype Output
    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> Output
}
