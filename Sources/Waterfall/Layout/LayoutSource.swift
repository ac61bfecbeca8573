import Foundation
import WaterfallLayout

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
    /// A waterfall's is written by hand (see ``LayoutConfiguration/canonicalJSON``), the form
    /// databases held before kinds existed; other kinds' by Foundation's `JSONEncoder` with
    /// sorted keys, which is what the waterfall's hand-written form equals (a test compares).
    var canonicalJSON: String {
        switch self {
        case .waterfall(let configuration):
            return configuration.canonicalJSON
        case .justified, .sectioned:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            // A validated configuration holds finite numbers only, which always encode.
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
    }

    /// Decodes a configuration stored by ``canonicalJSON``: a waterfall's exact canonical text
    /// is read directly; anything else (another kind, a database edited by hand) goes through
    /// `JSONDecoder`.
    static func fromCanonicalJSON(_ text: String) throws -> AnyLayoutConfiguration {
        var reader = CanonicalReader(text)
        if let configuration = reader.configuration() { return .waterfall(configuration) }
        return try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(text.utf8))
    }

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

extension LayoutConfiguration {
    /// The canonical JSON of the configuration (every field, keys sorted): the cache key and the
    /// stored form of named layouts.
    ///
    /// Written by hand, byte for byte what Foundation's `JSONEncoder` writes with `.sortedKeys`
    /// (the format stored databases hold; a test compares the two), without the encoder's
    /// start-up cost, which every query would pay.
    var canonicalJSON: String {
        let number = Self.canonicalNumber
        func insets(_ insets: EdgeInsets) -> String {
            #"{"bottom":\#(number(insets.bottom)),"left":\#(number(insets.left)),"right":\#(number(insets.right)),"top":\#(number(insets.top))}"#
        }
        return #"{"captionHeight":\#(number(captionHeight)),"columnSpacing":\#(number(columnSpacing)),"columns":\#(columns),"#
            + #""footerHeight":\#(number(footerHeight)),"footerInset":\#(insets(footerInset)),"#
            + #""headerHeight":\#(number(headerHeight)),"headerInset":\#(insets(headerInset)),"#
            + #""minimumContentHeight":\#(number(minimumContentHeight)),"order":"\#(order.rawValue)","#
            + #""rowSpacing":\#(number(rowSpacing)),"scale":\#(scale),"sectionInset":\#(insets(sectionInset)),"#
            + #""width":\#(number(width))}"#
    }

    /// A length as `JSONEncoder` writes it: Swift's shortest round-trip form, without ".0".
    static func canonicalNumber(_ value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

}

/// Reads the exact form ``LayoutConfiguration/canonicalJSON`` writes, or gives up (`nil`).
private struct CanonicalReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        bytes = Array(text.utf8)
    }

    mutating func configuration() -> LayoutConfiguration? {
        guard literal(#"{"captionHeight":"#), let captionHeight = number(),
              literal(#","columnSpacing":"#), let columnSpacing = number(),
              literal(#","columns":"#), let columns = integer(),
              literal(#","footerHeight":"#), let footerHeight = number(),
              literal(#","footerInset":"#), let footerInset = insets(),
              literal(#","headerHeight":"#), let headerHeight = number(),
              literal(#","headerInset":"#), let headerInset = insets(),
              literal(#","minimumContentHeight":"#), let minimumContentHeight = number(),
              literal(#","order":""#), let order = token().flatMap(PlacementOrder.init(rawValue:)), literal(#"""#),
              literal(#","rowSpacing":"#), let rowSpacing = number(),
              literal(#","scale":"#), let scale = integer(),
              literal(#","sectionInset":"#), let sectionInset = insets(),
              literal(#","width":"#), let width = number(),
              literal("}"), position == bytes.count
        else { return nil }
        return LayoutConfiguration(
            columns: columns, width: width, columnSpacing: columnSpacing, rowSpacing: rowSpacing,
            sectionInset: sectionInset, headerHeight: headerHeight, footerHeight: footerHeight,
            headerInset: headerInset, footerInset: footerInset, captionHeight: captionHeight,
            minimumContentHeight: minimumContentHeight, order: order, scale: scale)
    }

    private mutating func insets() -> EdgeInsets? {
        guard literal(#"{"bottom":"#), let bottom = number(), literal(#","left":"#), let left = number(),
              literal(#","right":"#), let right = number(), literal(#","top":"#), let top = number(), literal("}")
        else { return nil }
        return EdgeInsets(top: top, left: left, bottom: bottom, right: right)
    }

    private mutating func literal(_ text: String) -> Bool {
        let expected = text.utf8
        guard bytes.count - position >= expected.count,
              bytes[position..<position + expected.count].elementsEqual(expected)
        else { return false }
        position += expected.count
        return true
    }

    /// The run of characters up to the next `,`, `}` or `"`.
    private mutating func token() -> String? {
        let start = position
        while position < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "\"")].contains(bytes[position]) {
            position += 1
        }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// A number exactly as ``LayoutConfiguration/canonicalNumber(_:)`` writes it.
    private mutating func number() -> Double? {
        guard let text = token(), let value = Double(text), LayoutConfiguration.canonicalNumber(value) == text else { return nil }
        return value
    }

    private mutating func integer() -> Int? {
        guard let text = token(), let value = Int(text), String(value) == text else { return nil }
        return value
    }
}
