import Hummingbird
import Waterfall

/// The query parameters of one request, percent-decoded, each given at most once. A route
/// reads the ones it takes; ``finish()`` then refuses any other, so that a misspelt parameter
/// (`pageSise=10`) is a 400 answer rather than silently ignored.
struct RequestQuery {
    private let values: [String: String]
    private var used: Set<String> = []

    /// Parses the query of `request`'s URI. `+` is a plus sign, not a space (RFC 3986).
    /// - Throws: ``Problem`` 400 for a malformed percent-escape, text that is not UTF-8, a NUL,
    ///   or a parameter given twice.
    init(_ request: Request) throws(Problem) {
        var values: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decode(parts[0]),
                let value = PercentDecoding.decode(parts.count > 1 ? parts[1] : "")
            else {
                throw Problem.badRequest(
                    "the query parameter \(String(pair).quoted) is not valid percent-encoded UTF-8 without NUL (%00).")
            }
            if values.updateValue(value, forKey: name) != nil {
                throw Problem.badRequest("the query parameter \(name.quoted) is given more than once.")
            }
        }
        self.values = values
    }

    /// Whether `name` was given.
    func has(_ name: String) -> Bool {
        values[name] != nil
    }

    mutating func string(_ name: String) -> String? {
        used.insert(name)
        return values[name]
    }

    mutating func int(_ name: String) throws(Problem) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int.strict(text) else {
            throw Problem.badRequest("\(name) must be a whole number, got \(text.quoted).")
        }
        return value
    }

    mutating func double(_ name: String) throws(Problem) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double.strict(text) else {
            throw Problem.badRequest("\(name) must be a number, got \(text.quoted).")
        }
        return value
    }

    mutating func bool(_ name: String) throws(Problem) -> Bool? {
        guard let text = string(name) else { return nil }
        guard let value = Bool.strict(text) else {
            throw Problem.badRequest("\(name) must be true or false, got \(text.quoted).")
        }
        return value
    }

    /// The value of one of the queries' own parameters (``QueryParameter``), as its type reads.
    mutating func int(_ parameter: QueryParameter) throws(Problem) -> Int? { try int(parameter.name) }
    mutating func double(_ parameter: QueryParameter) throws(Problem) -> Double? { try double(parameter.name) }
    mutating func bool(_ parameter: QueryParameter) throws(Problem) -> Bool? { try bool(parameter.name) }
    mutating func string(_ parameter: QueryParameter) -> String? { string(parameter.name) }

    /// A configuration from parameters named like its JSON keys (see ``FieldDecoder``).
    /// - Throws: ``Problem`` 400 with the decoder's sentence.
    mutating func decode<T: Decodable>(_ type: T.Type) throws(Problem) -> T {
        let decoder = FieldDecoder(values)
        defer { used.formUnion(decoder.consumed) }
        do {
            return try decoder.decode(type)
        } catch {
            throw Problem.badRequest(error.message)
        }
    }

    /// Refuses the parameters no one read.
    func finish() throws(Problem) {
        let unknown = values.keys.filter { !used.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        let accepted = used.sorted().joined(separator: ", ")
        throw Problem.badRequest(
            "unknown query parameter \(first.quoted); this route takes \(accepted.isEmpty ? "none" : accepted).")
    }
}

/// RFC 3986 percent-decoding into UTF-8 text.
enum PercentDecoding {
    /// The decoded text, or nil for a malformed escape, bytes that are not UTF-8, or a NUL
    /// (`%00`): no name, id or value holds one, and PostgreSQL cannot take one (a lookup sent
    /// with it failed there, a 500, where SQLite found nothing).
    static func decode(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                guard high != 0 || low != 0 else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
