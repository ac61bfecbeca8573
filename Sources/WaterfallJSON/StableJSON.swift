/// The stable machine format of every answer: the command line's `--json` output and every
/// HTTP body are these bytes. Compact JSON, object keys in the order the answer's type
/// encodes them (the order DESIGN and the README document), numbers exact.
public enum StableJSON {
    /// The JSON of an answer through its `Encodable` form.
    /// - Throws: `EncodingError` for a number JSON cannot hold (NaN, infinity).
    public static func bytes(of value: some Encodable) throws -> [UInt8] {
        try OrderedJSONEncoder().encodeBytes(value)
    }

    /// The JSON of an answer that writes itself (``JSONWritable``): pages, viewports and the
    /// other answers described by a member table, without the generic machinery's first-use
    /// cost.
    public static func bytes(of value: some JSONWritable) throws -> [UInt8] {
        var json = JSONWriter()
        try value.write(to: &json)
        return json.bytes
    }
}

extension StableJSON {
    /// An answer as a whole document: its JSON and a line feed, as the command line prints it
    /// (one document per line) and the HTTP API sends it, byte for byte.
    public static func document(of value: some Encodable) throws -> [UInt8] {
        var bytes = try bytes(of: value)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// The same for an answer that writes itself.
    public static func document(of value: some JSONWritable) throws -> [UInt8] {
        var bytes = try bytes(of: value)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}
