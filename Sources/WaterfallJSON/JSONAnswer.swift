import Waterfall

/// An answer described once, by a table of its members: the table writes its JSON
/// (``write(to:)``), gives its `Encodable` form (``encode(to:)``, for an answer held by another
/// and for other encoders) and its schema (``schemas``), which the OpenAPI document publishes.
/// A member's schema and the code that writes it are made by one call (``AnswerMember``), so
/// they cannot disagree on a name, a type, or whether the member may be `null` or absent.
public protocol JSONAnswer: JSONWritable {
    /// The members, in the order they are written.
    static var members: [AnswerMember<Self>] { get }
    /// The entries of `components.schemas` that describe this answer: usually one, two when
    /// the same type answers as two things (a header and a footer).
    static var schemas: [AnswerSchema] { get }
}

extension JSONAnswer {
    /// Writes the answer as an object of its members, in the table's order.
    public func write(to json: inout JSONWriter) throws {
        json.beginObject()
        let members = Self.members
        for index in members.indices {
            // The key and the reader only: copying a whole member out of the table (its
            // schemas too) cost a page of 100 images a tenth more instructions.
            try AnswerMember.write(members[index].value, key: members[index].key, of: self, to: &json)
        }
        json.endObject()
    }

    /// The `Encodable` form, from the same table: ``OrderedJSONEncoder`` writes the bytes
    /// ``write(to:)`` writes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MemberKey.self)
        for member in Self.members { try member.encode(self, into: &container) }
    }

    /// The schema of the whole table, named `name`.
    public static func schema(_ name: String, description: String?) -> AnswerSchema {
        AnswerSchema(name: name, description: description, members: members.flatMap(\.schemas))
    }
}

/// One entry of an answer's table: the schemas of the members it writes and how it writes
/// them, both made from the same arguments by the functions below (`.string("id") { $0.id }`).
/// A frame is one entry that writes four members (``frame(_:)``).
///
/// The closures given are kept as they are and called once per answer: a closure that reads a
/// property captures nothing, so calling it costs no reference counting.
public struct AnswerMember<Answer>: Sendable {
    /// The JSON schemas of the members it writes, in order: one, but for a frame.
    public let schemas: [MemberSchema]
    fileprivate let key: StaticString
    fileprivate let value: Value

    /// How the member reads its value from the answer.
    fileprivate enum Value: Sendable {
        case string(@Sendable (Answer) -> String)
        case optionalString(@Sendable (Answer) -> String?, Absence)
        case int(@Sendable (Answer) -> Int)
        case optionalInt(@Sendable (Answer) -> Int?, Absence)
        case int64(@Sendable (Answer) -> Int64)
        case optionalInt64(@Sendable (Answer) -> Int64?, Absence)
        case number(@Sendable (Answer) -> Double)
        case boolean(@Sendable (Answer) -> Bool)
        case optionalBoolean(@Sendable (Answer) -> Bool?, Absence)
        case frame(@Sendable (Answer) -> Frame)
        case constant(StaticString)
        /// Writes the key and the value itself, and encodes them (arrays, integers of other
        /// widths, values written by their `Encodable` form).
        case written(
            @Sendable (Answer, inout JSONWriter) throws -> Void,
            encode: @Sendable (Answer, inout KeyedEncodingContainer<MemberKey>) throws -> Void)
    }

    private init(
        _ key: StaticString, _ type: MemberSchema.Value, _ presence: MemberSchema.Presence,
        _ constraints: [MemberSchema.Constraint], _ description: String?, _ value: Value
    ) {
        schemas = [
            MemberSchema(
                name: key.description, value: type, presence: presence, constraints: constraints,
                description: description)
        ]
        self.key = key
        self.value = value
    }

    /// Writes a member's key and value, or nothing when it is left out.
    @inline(__always)
    fileprivate static func write(_ value: Value, key: StaticString, of answer: Answer, to json: inout JSONWriter)
        throws
    {
        switch value {
        case .string(let read):
            json.key(key)
            json.string(read(answer))
        case .optionalString(let read, let absent):
            if let text = read(answer) {
                json.key(key)
                json.string(text)
            } else if absent == .null {
                json.key(key)
                json.null()
            }
        case .int(let read):
            json.key(key)
            json.integer(read(answer))
        case .optionalInt(let read, let absent):
            if let number = read(answer) {
                json.key(key)
                json.integer(number)
            } else if absent == .null {
                json.key(key)
                json.null()
            }
        case .int64(let read):
            json.key(key)
            json.integer(read(answer))
        case .optionalInt64(let read, let absent):
            if let number = read(answer) {
                json.key(key)
                json.integer(number)
            } else if absent == .null {
                json.key(key)
                json.null()
            }
        case .number(let read):
            json.key(key)
            try json.number(read(answer))
        case .boolean(let read):
            json.key(key)
            json.bool(read(answer))
        case .optionalBoolean(let read, let absent):
            if let flag = read(answer) {
                json.key(key)
                json.bool(flag)
            } else if absent == .null {
                json.key(key)
                json.null()
            }
        case .frame(let read):
            try FrameLengths.write(read(answer), to: &json)
        case .constant(let text):
            json.key(key)
            json.string(text.description)
        case .written(let write, _):
            try write(answer, &json)
        }
    }

    /// Encodes the member into `container` as ``write(_:key:of:to:)`` writes it.
    fileprivate func encode(_ answer: Answer, into container: inout KeyedEncodingContainer<MemberKey>) throws {
        let name = MemberKey(key)
        switch value {
        case .string(let read):
            try container.encode(read(answer), forKey: name)
        case .optionalString(let read, let absent):
            try container.encode(read(answer), forKey: name, ifAbsent: absent)
        case .int(let read):
            try container.encode(read(answer), forKey: name)
        case .optionalInt(let read, let absent):
            try container.encode(read(answer), forKey: name, ifAbsent: absent)
        case .int64(let read):
            try container.encode(read(answer), forKey: name)
        case .optionalInt64(let read, let absent):
            try container.encode(read(answer), forKey: name, ifAbsent: absent)
        case .number(let read):
            try container.encode(read(answer), forKey: name)
        case .boolean(let read):
            try container.encode(read(answer), forKey: name)
        case .optionalBoolean(let read, let absent):
            try container.encode(read(answer), forKey: name, ifAbsent: absent)
        case .frame(let read):
            try FrameLengths.encode(read(answer), into: &container)
        case .constant(let text):
            try container.encode(text.description, forKey: name)
        case .written(_, let encode):
            try encode(answer, &container)
        }
    }

    /// A string that is always there.
    public static func string(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> String
    ) -> Self {
        Self(name, .string, .required, constraints, description, .string(value))
    }

    /// A string that may be absent: `null` or left out.
    public static func string(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., ifAbsent absent: Absence,
        description: String? = nil, _ value: @escaping @Sendable (Answer) -> String?
    ) -> Self {
        Self(name, .string, absent.presence, constraints, description, .optionalString(value, absent))
    }

    /// A string member that always has the one value `value` (`const`).
    public static func constant(_ name: StaticString, _ value: StaticString, description: String? = nil) -> Self {
        Self(name, .string, .required, [.constant(value.description)], description, .constant(value))
    }

    /// An integer that is always there.
    public static func integer(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> Int
    ) -> Self {
        Self(name, .integer, .required, constraints, description, .int(value))
    }

    /// An integer that may be absent: `null` or left out.
    public static func integer(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., ifAbsent absent: Absence,
        description: String? = nil, _ value: @escaping @Sendable (Answer) -> Int?
    ) -> Self {
        Self(name, .integer, absent.presence, constraints, description, .optionalInt(value, absent))
    }

    /// A 64-bit integer (a revision) that is always there.
    public static func integer(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> Int64
    ) -> Self {
        Self(name, .integer, .required, constraints, description, .int64(value))
    }

    /// A 64-bit integer that may be absent: `null` or left out.
    public static func integer(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., ifAbsent absent: Absence,
        description: String? = nil, _ value: @escaping @Sendable (Answer) -> Int64?
    ) -> Self {
        Self(name, .integer, absent.presence, constraints, description, .optionalInt64(value, absent))
    }

    /// An integer of another width that is always there.
    public static func integer<Integer: BinaryInteger & Encodable & Sendable>(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> Integer
    ) -> Self {
        Self(
            name, .integer, .required, constraints, description,
            .written(
                { answer, json in
                    json.key(name)
                    json.integer(value(answer))
                },
                encode: { answer, container in try container.encode(value(answer), forKey: MemberKey(name)) }))
    }

    /// A number that is always there (integral values are written without a fraction).
    public static func number(
        _ name: StaticString, _ constraints: MemberSchema.Constraint..., description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> Double
    ) -> Self {
        Self(name, .number, .required, constraints, description, .number(value))
    }

    /// A boolean that is always there.
    public static func boolean(
        _ name: StaticString, description: String? = nil, _ value: @escaping @Sendable (Answer) -> Bool
    ) -> Self {
        Self(name, .boolean, .required, [], description, .boolean(value))
    }

    /// A boolean that may be absent: `null` or left out.
    public static func boolean(
        _ name: StaticString, ifAbsent absent: Absence, description: String? = nil,
        _ value: @escaping @Sendable (Answer) -> Bool?
    ) -> Self {
        Self(name, .boolean, absent.presence, [], description, .optionalBoolean(value, absent))
    }

    /// An array of answers, described by the schema named `schema`.
    public static func array<Element: JSONWritable & Sendable>(
        _ name: StaticString, of schema: String, _ constraints: MemberSchema.Constraint...,
        description: String? = nil, _ value: @escaping @Sendable (Answer) -> [Element]
    ) -> Self {
        Self(
            name, .array(of: schema), .required, constraints, description,
            .written(
                { answer, json in
                    json.key(name)
                    json.beginArray()
                    for element in value(answer) { try element.write(to: &json) }
                    json.endArray()
                },
                encode: { answer, container in try container.encode(value(answer), forKey: MemberKey(name)) }))
    }

    /// An array of answers that may be absent (`null` or left out), described by the schema
    /// named `schema`.
    public static func array<Element: JSONWritable & Sendable>(
        _ name: StaticString, of schema: String, _ constraints: MemberSchema.Constraint..., ifAbsent absent: Absence,
        description: String? = nil, _ value: @escaping @Sendable (Answer) -> [Element]?
    ) -> Self {
        Self(
            name, .array(of: schema), absent.presence, constraints, description,
            .written(
                { answer, json in
                    if let elements = value(answer) {
                        json.key(name)
                        json.beginArray()
                        for element in elements { try element.write(to: &json) }
                        json.endArray()
                    } else if absent == .null {
                        json.key(name)
                        json.null()
                    }
                },
                encode: { answer, container in
                    try container.encode(value(answer), forKey: MemberKey(name), ifAbsent: absent)
                }))
    }

    /// A value written by its own `Encodable` form and described by `type`: a configuration,
    /// whose canonical form its field table defines, or renditions as the feed gave them.
    public static func encoded<Value: Encodable & Sendable>(
        _ name: StaticString, as type: MemberSchema.Value, _ constraints: MemberSchema.Constraint...,
        ifAbsent absent: Absence? = nil, description: String? = nil, _ value: @escaping @Sendable (Answer) -> Value?
    ) -> Self {
        Self(
            name, type, absent?.presence ?? .required, constraints, description,
            .written(
                { answer, json in
                    if let encodable = value(answer) {
                        json.key(name)
                        try json.encoded(encodable)
                    } else if absent != .omitted {
                        json.key(name)
                        json.null()
                    }
                },
                encode: { answer, container in
                    try container.encode(value(answer), forKey: MemberKey(name), ifAbsent: absent ?? .null)
                }))
    }

    /// A frame as an object of its own under `name`, with the members `x`, `y`, `width` and
    /// `height`, in points (`locate`'s answer; a page flattens its frames: ``frame(_:)``).
    public static func frame(
        _ name: StaticString, description: String? = nil, _ value: @escaping @Sendable (Answer) -> Frame
    ) -> Self {
        Self(
            name,
            .object(AnswerSchema(name: name.description, description: nil, members: FrameLengths.schemas)),
            .required, [], description,
            .written(
                { answer, json in
                    json.key(name)
                    json.beginObject()
                    try FrameLengths.write(value(answer), to: &json)
                    json.endObject()
                },
                encode: { answer, container in
                    var lengths = container.nestedContainer(keyedBy: MemberKey.self, forKey: MemberKey(name))
                    try FrameLengths.encode(value(answer), into: &lengths)
                }))
    }

    /// A frame flattened into the members `x`, `y`, `width` and `height`, in points.
    public static func frame(_ value: @escaping @Sendable (Answer) -> Frame) -> Self {
        Self(schemas: FrameLengths.schemas, key: "x", value: .frame(value))
    }

    private init(schemas: [MemberSchema], key: StaticString, value: Value) {
        self.schemas = schemas
        self.key = key
        self.value = value
    }
}

/// A frame's four lengths as members `x`, `y`, `width` and `height`, in points: described,
/// written and encoded once, whether they stand among the answer's own members (a page's
/// items) or in an object of their own (`locate`'s frame).
private enum FrameLengths {
    static let schemas = ["x", "y", "width", "height"].map {
        MemberSchema(name: $0, value: .number, presence: .required)
    }

    static func write(_ frame: Frame, to json: inout JSONWriter) throws {
        // Keys as `StaticString`s: a literal alone would be a `String`, escaped as any key.
        json.key("x" as StaticString)
        try json.number(frame.x)
        json.key("y" as StaticString)
        try json.number(frame.y)
        json.key("width" as StaticString)
        try json.number(frame.width)
        json.key("height" as StaticString)
        try json.number(frame.height)
    }

    static func encode(_ frame: Frame, into container: inout KeyedEncodingContainer<MemberKey>) throws {
        try container.encode(frame.x, forKey: MemberKey("x"))
        try container.encode(frame.y, forKey: MemberKey("y"))
        try container.encode(frame.width, forKey: MemberKey("width"))
        try container.encode(frame.height, forKey: MemberKey("height"))
    }
}

/// What a member of an answer with no value is written as.
public enum Absence: Sendable {
    /// `null`: the key is always there.
    case null
    /// Nothing: the key is left out.
    case omitted

    var presence: MemberSchema.Presence { self == .null ? .nullable : .omittedWhenNil }
}

/// A member's key as a coding key: the `Encodable` form of a member table.
public struct MemberKey: CodingKey, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }

    init(_ key: StaticString) { stringValue = key.description }

    public init?(stringValue: String) { self.stringValue = stringValue }

    public init?(intValue: Int) { nil }
}

extension KeyedEncodingContainer<MemberKey> {
    /// `value`, or for `nil` a `null` or nothing, as the member's table says.
    fileprivate mutating func encode(
        _ value: (some Encodable)?, forKey key: MemberKey, ifAbsent absent: Absence
    ) throws {
        if let value {
            try encode(value, forKey: key)
        } else if absent == .null {
            try encodeNil(forKey: key)
        }
    }
}
