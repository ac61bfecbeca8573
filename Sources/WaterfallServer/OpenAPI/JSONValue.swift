/// A JSON value that keeps the order of an object's keys, as the OpenAPI document is read from
/// its skeleton and written back: its key order is part of how it reads.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number, as its literal text (written back exactly as it was read).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in their order; keys are unique.
    case object([(key: String, value: JSONValue)])

    /// `{"$ref": reference}`.
    static func ref(_ reference: String) -> JSONValue {
        .object([("$ref", .string(reference))])
    }

    /// The members of an object, else nil.
    var members: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { members } else { nil }
    }

    /// The value of an object's `key`, else nil.
    subscript(key: String) -> JSONValue? {
        members?.first { $0.key == key }?.value
    }

    /// The text of a string, else nil.
    var text: String? {
        if case .string(let text) = self { text } else { nil }
    }
}
