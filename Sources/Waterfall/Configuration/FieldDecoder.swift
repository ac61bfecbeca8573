import Foundation
import WaterfallLayout

/// Decodes a `Decodable` value (a layout or cover-flow configuration) from named text values:
/// the HTTP API's query parameters and the command line's flags. The type's own `Codable`
/// conformance is the one description of which fields exist, which are required and what they
/// default to; each front end only names them (`sectionInset` in a query, `--inset` on the
/// command line) through ``naming``.
///
/// Values are text: integers and numbers are parsed strictly (decimal; `nan` and `inf` pass on
/// to the range checks), and a nested object (the insets) is one number for all its members or
/// its members' numbers in order, comma-separated (`10` or `10,20,10,20` for top, left, bottom,
/// right); a layout's `sections` is its JSON list, as in a request body. Every field the type
/// reads is recorded in ``consumed``, so that the caller can refuse the rest.
public final class FieldDecoder {
    private let values: [String: String]
    /// The front end's name of a field, for messages: the key itself, `--row-height`.
    private let naming: (String) -> String
    /// The keys the decoded type asked about.
    public private(set) var consumed: Set<String> = []

    /// A decoder of `values`, keyed by the JSON keys of the type to decode.
    public init(_ values: [String: String], naming: @escaping (String) -> String = { $0 }) {
        self.values = values
        self.naming = naming
    }

    /// Decodes `type`.
    /// - Throws: ``FieldDecodingError`` with one sentence naming the field at fault.
    public func decode<T: Decodable>(_ type: T.Type) throws(FieldDecodingError) -> T {
        do {
            return try T(from: TopLevel(decoder: self))
        } catch let error as FieldDecodingError {
            throw error
        } catch let error as ConfigurationKeyError {
            throw FieldDecodingError(error.sentence(naming: naming))
        } catch let error as LayoutConfigurationError {
            throw FieldDecodingError(error.message)
        } catch DecodingError.keyNotFound(let key, _) {
            throw FieldDecodingError("\(naming(key.stringValue)) is required.", missingField: key.stringValue)
        } catch DecodingError.dataCorrupted(let context) {
            throw FieldDecodingError(context.debugDescription)
        } catch {
            throw FieldDecodingError("the values do not describe a configuration (\(error)).")
        }
    }

    fileprivate func value(_ key: some CodingKey) -> String? {
        consumed.insert(key.stringValue)
        return values[key.stringValue]
    }

    fileprivate func name(_ key: String) -> String {
        naming(key)
    }
}

/// A value that does not decode: one sentence, naming the field as the front end does.
public struct FieldDecodingError: Error, Hashable, Sendable {
    public var message: String
    /// The key of a required field that is missing, for a front end that says more about it.
    public var missingField: String?

    public init(_ message: String, missingField: String? = nil) {
        self.message = message
        self.missingField = missingField
    }
}

extension FieldDecoder {
    /// The decoder of the whole parameter set: a keyed container only.
    private struct TopLevel: Decoder {
        let decoder: FieldDecoder
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            KeyedDecodingContainer(Parameters<Key>(decoder: decoder))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw FieldDecodingError("a configuration is a set of named values.")
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            throw FieldDecodingError("a configuration is a set of named values.")
        }
    }

    private struct Parameters<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: FieldDecoder
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
            return try FieldValue.decode(type, text, name: decoder.name(key.stringValue))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw FieldDecodingError("\(decoder.name(key.stringValue)) cannot be nested.")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw FieldDecodingError("\(decoder.name(key.stringValue)) cannot be a list.")
        }

        func superDecoder() throws -> any Decoder { TopLevel(decoder: decoder) }
        func superDecoder(forKey key: Key) throws -> any Decoder { TopLevel(decoder: decoder) }
    }
}

/// One field's text decoded as a value: a number, a string (or a string enum), or an
/// object whose members are comma-separated numbers.
private struct FieldValue: Decoder, SingleValueDecodingContainer {
    let text: String
    let name: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String, name: String) throws -> T {
        let value = FieldValue(text: text, name: name)
        switch type {
        case is Int.Type: return try value.decode(Int.self) as! T
        case is Double.Type: return try value.decode(Double.self) as! T
        case is String.Type: return text as! T
        case is [[String: ConfigurationValue]].Type:
            // A layout's per-section overrides (DESIGN section 14): their JSON, as in a body.
            guard let value = try? JSONDecoder().decode(T.self, from: Data(text.utf8)) else {
                throw FieldDecodingError(
                    "\(name) takes the JSON list of the sections' own settings, e.g. [{\"section\":\"2024-05\",\"columns\":1}], got \(text.quoted)."
                )
            }
            return value
        default:
            do {
                return try T(from: value)
            } catch is DecodingError {
                let choices = (T.self as? any CaseIterable.Type).map { "; expected one of \(describeCases($0))" } ?? ""
                throw FieldDecodingError("\(name) does not accept \(text.quoted)\(choices).")
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
        guard parts.count == 1 || parts.count == 4, parts.allSatisfy({ $0 != nil }) else {
            throw FieldDecodingError(
                "\(name) takes one number or four comma-separated numbers (top,left,bottom,right), got \(text.quoted).")
        }
        let numbers = parts.map { $0! }
        return KeyedDecodingContainer(Members<Key>(numbers: numbers, name: name))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw FieldDecodingError("\(name) cannot be a list.")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard let value = Bool.strict(text) else {
            throw FieldDecodingError("\(name) must be true or false, got \(text.quoted).")
        }
        return value
    }

    func decode(_ type: String.Type) throws -> String { text }

    func decode(_ type: Double.Type) throws -> Double {
        guard let value = Double.strict(text) else {
            throw FieldDecodingError("\(name) must be a number, got \(text.quoted).")
        }
        return value
    }

    func decode(_ type: Int.Type) throws -> Int {
        guard let value = Int.strict(text) else {
            throw FieldDecodingError("\(name) must be a whole number, got \(text.quoted).")
        }
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
        guard let narrowed = T(exactly: value) else {
            throw FieldDecodingError("\(name) is out of range, got \(text.quoted).")
        }
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
                throw FieldDecodingError("\(name) has no member \(key.stringValue).")
            }
            return numbers[index]
        }

        func contains(_ key: Key) -> Bool { numbers.count == 1 || Self.order.contains(key.stringValue) }
        func decodeNil(forKey key: Key) throws -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard type == Double.self else { throw FieldDecodingError("\(name).\(key.stringValue) is not a number.") }
            return try number(key) as! T
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw FieldDecodingError("\(name).\(key.stringValue) cannot be nested.")
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw FieldDecodingError("\(name).\(key.stringValue) cannot be a list.")
        }

        func superDecoder() throws -> any Decoder { throw FieldDecodingError("\(name) cannot be nested.") }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            throw FieldDecodingError("\(name) cannot be nested.")
        }
    }
}

extension Double {
    /// A number as a query parameter or a flag writes it (`12`, `-2.5`, `1e3`), or nil.
    /// Decimal only: hexadecimal (`0x10`) is refused, `nan` and `inf` pass to the range checks.
    public static func strict(_ text: String) -> Double? {
        guard !text.isEmpty, text.count <= 64, !text.lowercased().contains("x") else { return nil }
        return Double(text)
    }
}

extension Int {
    /// A whole number as a query parameter or a flag writes it (`12`, `-3`), or nil.
    public static func strict(_ text: String) -> Int? {
        Int(text)
    }
}

extension Bool {
    /// `true`/`false` (or `1`/`0`) as a query parameter writes it, or nil.
    public static func strict(_ text: String) -> Bool? {
        switch text {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }
}
