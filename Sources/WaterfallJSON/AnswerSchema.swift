/// The JSON schema of an answer's object, as its member table (``JSONAnswer/members``)
/// describes it: a plain value that the OpenAPI document turns into an entry of
/// `components.schemas` (every answer there is an object without other members).
public struct AnswerSchema: Sendable, Hashable {
    /// The schema's name in `components.schemas`: `Page`, `PlacedImage`.
    public var name: String
    /// What the object is, in a sentence or two.
    public var description: String?
    /// The members, in the order the answer writes them.
    public var members: [MemberSchema]

    /// A schema of `members`.
    public init(name: String, description: String?, members: [MemberSchema]) {
        self.name = name
        self.description = description
        self.members = members
    }

    /// The names of the members every such object has: the required ones and those written as
    /// `null` when absent.
    public var required: [String] {
        members.filter { $0.presence != .omittedWhenNil }.map(\.name)
    }

    /// The same schema where the members `names` are always there: an answer's variant that
    /// always has a value the writer would leave out when absent (a header's `pinned`).
    public func requiring(_ names: Set<String>) -> AnswerSchema {
        var schema = self
        for index in schema.members.indices where names.contains(schema.members[index].name) {
            schema.members[index].presence = .required
        }
        return schema
    }

    /// The same schema without the members `names`: an answer's variant that never has them
    /// (a footer's `pinned`).
    public func removing(_ names: Set<String>) -> AnswerSchema {
        var schema = self
        schema.members.removeAll { names.contains($0.name) }
        return schema
    }
}

/// The JSON schema of one member of an answer: its name, its JSON type, whether it is always
/// there, its bounds and its sentence.
public struct MemberSchema: Sendable, Hashable {
    /// The JSON type of a member's value.
    public enum Value: Sendable, Hashable {
        case string, integer, number, boolean
        /// An array whose elements are objects of the named schema.
        case array(of: String)
        /// An array whose elements are objects described in place (no other members are
        /// refused: the feed's own form, as it gave it).
        case objects(AnswerSchema)
        /// An array of strings.
        case strings
        /// An object of the named schema (`$ref`).
        case reference(String)
        /// An object described in place, without other members (`locate`'s `frame`).
        case object(AnswerSchema)
    }

    /// Whether a member is always written.
    public enum Presence: Sendable, Hashable {
        /// Always written, never `null`.
        case required
        /// Always written, `null` when the answer has no value.
        case nullable
        /// Left out when the answer has no value.
        case omittedWhenNil
    }

    /// A bound or a form of a member's value, as JSON Schema names it.
    public enum Constraint: Sendable, Hashable {
        /// `format`: `date-time`.
        case format(String)
        case minLength(Int)
        case maxLength(Int)
        case pattern(String)
        case minimum(Int)
        case maximum(Int)
        case maxItems(Int)
        /// `const`: the one value a string member has.
        case constant(String)
        /// `enum`: the values a string member takes.
        case oneOf([String])
    }

    /// The member's key.
    public var name: String
    public var value: Value
    public var presence: Presence
    /// Its bounds and forms, in the order JSON Schema documents write them here.
    public var constraints: [Constraint]
    /// What the member means, when its name does not say it all.
    public var description: String?

    /// A member's schema.
    public init(
        name: String, value: Value, presence: Presence, constraints: [Constraint] = [], description: String? = nil
    ) {
        self.name = name
        self.value = value
        self.presence = presence
        self.constraints = constraints
        self.description = description
    }
}
