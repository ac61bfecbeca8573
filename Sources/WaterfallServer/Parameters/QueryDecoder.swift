import Waterfall

/// Decodes a `Decodable` value (a layout or cover-flow configuration) from query parameters
/// named like its JSON keys, so that the type's own `Codable` conformance is the one
/// description of which parameters exist, which are required and what they default to.
///
/// Values are text: integers and numbers are parsed strictly, and a nested object (the insets)
/// is one number for all its members or its members' numbers in order, comma-separated
/// (`sectionInset=10` or `sectionInset=10,20,10,20` for top, left, bottom, right). Every
/// parameter the type reads is recorded in ``consumed``, so that the caller can refuse the rest.
final class QueryDecoder {
    private let values: [String: String]
    /// The names the decoded type asked about.
    private(set) var consumed: Set<String> = []

    init(_ values: [String: String]) {
        self.values = values
    }

    /// Decodes `type`; a parameter that does not parse is a ``Problem`` naming it.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try T(from: TopLevel(decoder: self))
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound(let key, _):
                throw Problem.badRequest("\(key.stringValue) is required.")
            case .dataCorrupted(let context):
                // The configuration's own sentence: a key of another kind, an unknown kind.
                throw Problem.badRequest(context.debugDescription)
            default:
                throw Problem.badRequest("the parameters do not describe a configuration (\(error)).")
            }
        }
    }

    fileprivate func value(_ key: some CodingKey) -> String? {
        consumed.insert(key.stringValue)
        return values[key.stringValue]
    }

    /// The decoder of the whole parameter set: a keyed container only.
    private struct TopLevel: Decoder {
        let decoder: QueryDecoder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Parameters<Key>(decoder: decoder))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw Problem.badRequest("a configuration is a set of named parameters.")
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw Problem.badRequest("a configuration is a set of named parameters.")
        }
    }

    private struct Parameters<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: QueryDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { decoder.values.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            decoder.value(key) != nil
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            decoder.value(key) == nil
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let text = decoder.value(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "missing"))
            }
            return try QueryValue.decode(type, text, name: key.stringValue)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw Problem.badRequest("\(key.stringValue) cannot be nested.")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw Problem.badRequest("\(key.stringValue) cannot be a list.")
        }

        func superDecoder() throws -> any Decoder { TopLevel(decoder: decoder) }
        func superDecoder(forKey key: Key) throws -> any Decoder { TopLevel(decoder: decoder) }
    }
}

/// One parameter's text decoded as a value: a number, a string (or a string enum), or an
/// object whose members are comma-separated numbers.
private struct QueryValue: Decoder, SingleValueDecodingContainer {
    let text: String
    let name: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String, name: String) throws -> T {
        let value = QueryValue(text: text, name: name)
        switch type {
        case is Int.Type: return try value.decode(Int.self) as! T
        case is Double.Type: return try value.decode(Double.self) as! T
        case is String.Type: return text as! T
        default:
            do {
                return try T(from: value)
            } catch is DecodingError {
                let choices = (T.self as? any CaseIterable.Type).map { "; expected one of \(describeCases($0))" } ?? ""
                throw Problem.badRequest("\(name) does not accept \(text.quoted)\(choices).")
            }
        }
    }

    /// The raw values of a case-iterable type, for a message: `shortest, left-to-right, right-to-left`.
    private static func describeCases<C: CaseIterable>(_ type: C.Type) -> String {
        C.allCases.map { value in (value as? any RawRepresentable).map { "\($0.rawValue)" } ?? "\(value)" }
            .joined(separator: ", ")
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double.strict(String($0)) }
        guard (parts.count == 1 || parts.count == 4), parts.allSatisfy({ $0 != nil }) else {
            throw Problem.badRequest("\(name) takes one number or four comma-separated numbers (top,left,bottom,right), got \(text.quoted).")
        }
        let numbers = parts.map { $0! }
        return KeyedDecodingContainer(Members<Key>(numbers: numbers, name: name))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Problem.badRequest("\(name) cannot be a list.")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard let value = Bool.strict(text) else { throw Problem.badRequest("\(name) must be true or false, got \(text.quoted).") }
        return value
    }

    func decode(_ type: String.Type) throws -> String { text }

    func decode(_ type: Double.Type) throws -> Double {
        guard let value = Double.strict(text) else { throw Problem.badRequest("\(name) must be a number, got \(text.quoted).") }
        return value
    }

    func decode(_ type: Int.Type) throws -> Int {
        guard let value = Int.strict(text) else { throw Problem.badRequest("\(name) must be a whole number, got \(text.quoted).") }
        return value
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == Double.self { return try decode(Double.self) as! T }
        if T.self == Int.self { return try decode(Int.self) as! T }
        if T.self == String.self { return text as! T }
        return try T(from: self)
    }

    // The other fixed-width types: none of the configurations has one.
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int8.Type) throws -> Int8 { try narrow(decode(Int.self)) }
    func decode(_ type: Int16.Type) throws -> Int16 { try narrow(decode(Int.self)) }
    func decode(_ type: Int32.Type) throws -> Int32 { try narrow(decode(Int.self)) }
    func decode(_ type: Int64.Type) throws -> Int64 { try narrow(decode(Int.self)) }
    func decode(_ type: UInt.Type) throws -> UInt { try narrow(decode(Int.self)) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try narrow(decode(Int.self)) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try narrow(decode(Int.self)) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try narrow(decode(Int.self)) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try narrow(decode(Int.self)) }

    private func narrow<T: FixedWidthInteger>(_ value: Int) throws -> T {
        guard let narrowed = T(exactly: value) else { throw Problem.badRequest("\(name) is out of range, got \(text.quoted).") }
        return narrowed
    }

    /// The members of an object given as numbers: one for all, or one each in declaration order.
    private struct Members<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let numbers: [Double]
        let name: String
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        static var order: [String] { ["top", "left", "bottom", "right"] }

        func number(_ key: Key) throws -> Double {
            if numbers.count == 1 { return numbers[0] }
            guard let index = Self.order.firstIndex(of: key.stringValue) else {
                throw Problem.badRequest("\(name) has no member \(key.stringValue).")
            }
            return numbers[index]
        }

        func contains(_ key: Key) -> Bool { numbers.count == 1 || Self.order.contains(key.stringValue) }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard type == Double.self else { throw Problem.badRequest("\(name).\(key.stringValue) is not a number.") }
            return try number(key) as! T
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw Problem.badRequest("\(name).\(key.stringValue) cannot be nested.")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw Problem.badRequest("\(name).\(key.stringValue) cannot be a list.")
        }

        func superDecoder() throws -> any Decoder { throw Problem.badRequest("\(name) cannot be nested.") }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw Problem.badRequest("\(name) cannot be nested.") }
    }
}
