/// Encodes `Encodable` values as compact JSON with object keys in the order the value encodes
/// them (Foundation's encoder on Linux orders them by hash). Output formats are a contract:
/// the same answer always prints the same bytes.
struct OrderedJSONEncoder {
    func encode(_ value: some Encodable) throws -> String {
        let root = Node()
        try value.encode(to: NodeEncoder(node: root, codingPath: []))
        var output = ""
        root.write(to: &output)
        return output
    }
}

/// A JSON value under construction. Members and elements are appended in place (a copy per
/// append would make a 100,000-image answer quadratic).
private final class Node {
    enum Kind { case null, literal, object, array }

    var kind = Kind.null
    var literal = ""
    var members: [(String, Node)] = []
    var elements: [Node] = []

    func setNull() { kind = .null }

    func setLiteral(_ text: String) {
        kind = .literal
        literal = text
    }

    func write(to output: inout String) {
        switch kind {
        case .null:
            output += "null"
        case .literal:
            output += literal
        case .object:
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                output += jsonString(member.0)
                output += ":"
                member.1.write(to: &output)
            }
            output += "}"
        case .array:
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        }
    }

    func member(_ key: String) -> Node {
        kind = .object
        let node = Node()
        members.append((key, node))
        return node
    }

    func element() -> Node {
        kind = .array
        let node = Node()
        elements.append(node)
        return node
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped.
private func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }
    return result + "\""
}

/// A JSON number: integral values without a fraction, others in Swift's shortest round-trip form.
private func jsonNumber(_ value: Double) throws -> String {
    guard value.isFinite else {
        throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
    }
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
    return "\(value)"
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.kind = .object
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.kind = .array
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleContainer(node: node, codingPath: codingPath)
    }
}

private func encodeValue(_ value: some Encodable, into node: Node, codingPath: [any CodingKey]) throws {
    switch value {
    case let text as String: node.setLiteral(jsonString(text))
    case let number as Double: node.setLiteral(try jsonNumber(number))
    case let flag as Bool: node.setLiteral(flag ? "true" : "false")
    case let number as Int: node.setLiteral(String(number))
    case let number as Int64: node.setLiteral(String(number))
    case let number as Int32: node.setLiteral(String(number))
    default: try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        node.member(key.stringValue).setNull()
    }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.member("super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int { node.elements.count }

    mutating func encodeNil() throws {
        node.element().setNull()
    }

    mutating func encode(_ value: some Encodable) throws {
        try encodeValue(value, into: node.element(), codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.element(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.element(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.element(), codingPath: codingPath)
    }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        node.setNull()
    }

    mutating func encode(_ value: some Encodable) throws {
        try encodeValue(value, into: node, codingPath: codingPath)
    }
}
