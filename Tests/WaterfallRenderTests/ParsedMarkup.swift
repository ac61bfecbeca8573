import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of a parsed document: its name, attributes, children and text.
final class ParsedElement {
    let name: String
    let attributes: [String: String]
    var children: [ParsedElement] = []
    /// The element's own character data, in document order (not its children's).
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and every element below it, in document order.
    var all: [ParsedElement] {
        [self] + children.flatMap(\.all)
    }

    /// The text of this element and of every element below it, in document order.
    var allText = ""

    /// Every element at or below this one that carries `attribute`.
    func elements(with attribute: String) -> [ParsedElement] {
        all.filter { $0.attributes[attribute] != nil }
    }

    /// A CSS length property of the `style` attribute, in px ("left:10px;top:4px" → 10, 4).
    func style(_ property: String) -> Double? {
        for declaration in (attributes["style"] ?? "").split(separator: ";") {
            let parts = declaration.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == property else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            guard value.hasSuffix("px") else { return nil }
            return Double(value.dropLast(2))
        }
        return nil
    }

    /// A numeric attribute.
    func number(_ attribute: String) -> Double? {
        attributes[attribute].flatMap(Double.init)
    }
}

/// Reads a document with Foundation's XML parser (FoundationXML on Linux).
enum ParsedMarkup {
    /// Whether an XML parser is available on this platform.
    static var isAvailable: Bool {
        #if canImport(FoundationXML) || canImport(Darwin)
        true
        #else
        false
        #endif
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The root element of `text`, or a failure naming the parser's error and line.
    static func parse(_ text: String) throws -> ParsedElement {
        #if canImport(FoundationXML) || canImport(Darwin)
        let parser = XMLParser(data: Data(text.utf8))
        let builder = TreeBuilder()
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw Failure(
                description:
                    "not well-formed XML at line \(parser.lineNumber): \(String(describing: parser.parserError))")
        }
        return root
        #else
        throw Failure(description: "no XML parser on this platform")
        #endif
    }
}

#if canImport(FoundationXML) || canImport(Darwin)
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: ParsedElement?
    private var stack: [ParsedElement] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        let element = ParsedElement(name: elementName, attributes: attributes)
        if let parent = stack.last { parent.children.append(element) } else { root = element }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
        for element in stack { element.allText += string }
    }
}
#endif
