/// Encodes `Encodable` values as compact JSON with object keys in the order the value encodes
/// them (Foundation's encoder on Linux orders them by hash). Output formats are a contract:
/// the same answer always prints the same bytes.
///
/// It writes as the value encodes, straight into one byte buffer: no tree of nodes, no coding
/// path arrays (a page of 100 images encodes in tens of microseconds, not most of a
/// millisecond). That needs the value to encode in order, as every synthesized and hand-written
/// `encode(to:)` does: a container is written until its encoder's parent, or a sibling, writes
/// again; then it is closed for good.
public struct OrderedJSONEncoder {
    /// Creates an encoder.
    public init() {}

    /// The compact JSON of `value`, keys in the order it encodes them.
    /// - Throws: `EncodingError` for a number JSON cannot hold (NaN, infinity).
    public func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encodeBytes(value), as: UTF8.self)
    }

    /// The same JSON as UTF-8 bytes.
    public func encodeBytes(_ value: some Encodable) throws -> [UInt8] {
        let stream = JSONStream()
        try stream.encode(value, depth: 0)
        stream.close(downTo: 0)
        return stream.json.bytes
    }
}

extension JSONWriter {
    /// Writes `value` through its `Encodable` form, as ``OrderedJSONEncoder`` writes it: a
    /// member of an answer that its own type encodes (a configuration).
    /// - Throws: `EncodingError` for a number JSON cannot hold.
    public mutating func encoded(_ value: some Encodable) throws {
        let stream = JSONStream()
        swap(&self, &stream.json)
        defer { swap(&self, &stream.json) }
        try stream.encode(value, depth: 0)
        stream.close(downTo: 0)
    }
}

/// A ``JSONWriter`` and the containers still open in it, outermost first: the writer places
/// commas and brackets, the stream decides when a container ends (when something shallower
/// writes next).
private final class JSONStream {
    // Unchecked: every access is a short, non-overlapping call on this one thread, and the
    // runtime's exclusivity checks cost more than the writing.
    @exclusivity(unchecked) var json = JSONWriter()
    /// For each open container, whether it is an object (else an array).
    @exclusivity(unchecked) var open: [Bool] = []

    /// Closes the containers at `depth` and deeper: something shallower writes next.
    func close(downTo depth: Int) {
        while open.count > depth {
            if open.removeLast() { json.endObject() } else { json.endArray() }
        }
    }

    /// Opens the container of the value at `depth`, or goes on with it when the value asks for
    /// its container again.
    func openContainer(isObject: Bool, depth: Int) {
        if open.count > depth {
            close(downTo: depth + 1)
            return
        }
        precondition(open.count == depth, "OrderedJSONEncoder: a value encoded out of order")
        open.append(isObject)
        if isObject { json.beginObject() } else { json.beginArray() }
    }

    /// Starts the next value of the container at `depth`: closes what the previous value left
    /// open, then writes the key in an object (the writer places the comma).
    func startMember(key: String?, depth: Int) {
        close(downTo: depth + 1)
        precondition(open.count == depth + 1, "OrderedJSONEncoder: a value encoded out of order")
        if let key { json.key(key) }
    }

    /// Writes the value at `depth`: scalars directly, anything else through its `encode(to:)`.
    func encode(_ value: some Encodable, depth: Int) throws {
        switch value {
        case let text as String: json.string(text)
        case let number as Double: try json.number(number)
        case let flag as Bool: json.bool(flag)
        case let number as Int: json.integer(number)
        case let number as Int64: json.integer(number)
        case let number as Int32: json.integer(number)
        default:
            let start = json.bytes.count
            try value.encode(to: StreamEncoder(stream: self, depth: depth))
            // A value that asked for no container at all is an empty object, as in Foundation.
            if json.bytes.count == start {
                json.beginObject()
                json.endObject()
            }
        }
    }
}

/// The encoder of the value at `depth`. Coding paths are not tracked (nothing here reads them).
private struct StreamEncoder: Encoder {
    let stream: JSONStream
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        stream.openContainer(isObject: true, depth: depth)
        return KeyedEncodingContainer(KeyedStreamContainer<Key>(stream: stream, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        stream.openContainer(isObject: false, depth: depth)
        return UnkeyedStreamContainer(stream: stream, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueStreamContainer(stream: stream, depth: depth)
    }
}

private struct KeyedStreamContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: JSONStream
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        stream.startMember(key: key.stringValue, depth: depth)
        stream.json.null()
    }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        stream.startMember(key: key.stringValue, depth: depth)
        try stream.encode(value, depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        stream.startMember(key: key.stringValue, depth: depth)
        return StreamEncoder(stream: stream, depth: depth + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        stream.startMember(key: key.stringValue, depth: depth)
        return StreamEncoder(stream: stream, depth: depth + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        stream.startMember(key: "super", depth: depth)
        return StreamEncoder(stream: stream, depth: depth + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        stream.startMember(key: key.stringValue, depth: depth)
        return StreamEncoder(stream: stream, depth: depth + 1)
    }
}

private struct UnkeyedStreamContainer: UnkeyedEncodingContainer {
    let stream: JSONStream
    let depth: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { [] }

    init(stream: JSONStream, depth: Int) {
        self.stream = stream
        self.depth = depth
    }

    mutating func encodeNil() throws {
        stream.startMember(key: nil, depth: depth)
        stream.json.null()
        count += 1
    }

    mutating func encode(_ value: some Encodable) throws {
        stream.startMember(key: nil, depth: depth)
        try stream.encode(value, depth: depth + 1)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        stream.startMember(key: nil, depth: depth)
        count += 1
        return StreamEncoder(stream: stream, depth: depth + 1).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        stream.startMember(key: nil, depth: depth)
        count += 1
        return StreamEncoder(stream: stream, depth: depth + 1).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        stream.startMember(key: nil, depth: depth)
        count += 1
        return StreamEncoder(stream: stream, depth: depth + 1)
    }
}

private struct SingleValueStreamContainer: SingleValueEncodingContainer {
    let stream: JSONStream
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws {
        stream.json.null()
    }

    mutating func encode(_ value: some Encodable) throws {
        try stream.encode(value, depth: depth)
    }
}
