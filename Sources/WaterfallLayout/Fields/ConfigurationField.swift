/// One field of a configuration, described once: its JSON key, what it holds, its default (none
/// when it is required), the values it accepts and a help sentence. A configuration's field table
/// (``FieldTable``) is the one description every front end derives from: the type's `Codable`
/// conformance (and so its canonical JSON and the query parameters, through `FieldDecoder`), its
/// range checks, the command line's flags and help, and the OpenAPI document's parameter and
/// schema blocks.
public struct ConfigurationField<Root: Sendable>: Sendable {
    /// The JSON key, also the query parameter's name; the flag is it in kebab case.
    public let key: String
    /// What the field holds.
    public let shape: FieldShape
    /// The values it accepts beyond its shape (nil: any value of the shape).
    public let range: FieldRange?
    /// The default, as JSON writes it; nil for a required field.
    public let defaultValue: ConfigurationValue?
    /// One sentence for people: what the field means (the range and default are added by each
    /// front end from ``range`` and ``defaultValue``).
    public let help: String
    /// The placeholder of the value in a usage line: `n`, `points`, `t,l,b,r`.
    public let valueName: String
    /// The Swift type of the value (`PlacementOrder`, `EdgeInsets`): the name of its schema.
    /// Found when asked (the OpenAPI document asks): `String(describing:)` of a type looks
    /// through the runtime's conformance tables, two thirds of a `waterfall page` of a static
    /// binary when every field of the tables found its own at start-up.
    public var typeName: String { nameOfType() }
    private let nameOfType: @Sendable () -> String

    let decode: @Sendable (KeyedDecodingContainer<FieldKey>, inout Root) throws -> Void
    let encode: @Sendable (Root, inout KeyedEncodingContainer<FieldKey>) throws -> Void
    let check: @Sendable (Root) throws(LayoutConfigurationError) -> Void
    let applyDefault: @Sendable (inout Root) -> Void
    let writeCanonical: @Sendable (Root, inout String) -> Void
    let readCanonical: @Sendable (inout CanonicalReader, inout Root) -> Bool

    /// A field stored at `path`, of a type that knows its shape and checks.
    public init<Value: ConfigurationFieldValue>(
        _ key: String, _ path: WritableKeyPath<Root, Value> & Sendable, default defaultValue: Value?,
        range: FieldRange? = nil, valueName: String, help: String
    ) {
        self.key = key
        self.shape = Value.shape
        self.range = range
        self.defaultValue = defaultValue?.json
        self.help = help
        self.valueName = valueName
        self.nameOfType = { String(describing: Value.self) }
        let codingKey = FieldKey(key)
        if let defaultValue {
            decode = { container, root in
                root[keyPath: path] = try container.decodeIfPresent(Value.self, forKey: codingKey) ?? defaultValue
            }
            applyDefault = { root in root[keyPath: path] = defaultValue }
        } else {
            decode = { container, root in
                root[keyPath: path] = try container.decode(Value.self, forKey: codingKey)
            }
            applyDefault = { _ in }
        }
        encode = { root, container in try container.encode(root[keyPath: path], forKey: codingKey) }
        writeCanonical = { root, text in root[keyPath: path].writeCanonical(to: &text) }
        readCanonical = { reader, root in
            guard let value = Value.readCanonical(&reader) else { return false }
            root[keyPath: path] = value
            return true
        }
        check = { root throws(LayoutConfigurationError) in
            guard let range else { return }
            try root[keyPath: path].check(range, field: key)
        }
    }

    /// Whether a configuration must give the field.
    public var isRequired: Bool { defaultValue == nil }
}

/// What a field holds, as its front ends spell it.
public enum FieldShape: Hashable, Sendable {
    /// A whole number.
    case integer
    /// A number.
    case number
    /// Four lengths (``EdgeInsets``): an object in JSON, `10` or `10,20,10,20` in a query or flag.
    case insets

    /// How a query or a flag writes a value of this shape, when it needs saying.
    public var textForm: String? {
        self == .insets ? "one number for all four sides, or top,left,bottom,right" : nil
    }
    /// One of a few words.
    case choice([String])
}

/// The values a field accepts beyond its shape; each says so in one sentence when it refuses
/// one (DESIGN section 2's and 8's bounds).
public enum FieldRange: Hashable, Sendable {
    /// Whole numbers of a range: `columns must be a whole number from 1 to 64, got 65.`
    case wholeNumbers(ClosedRange<Int>)
    /// A few whole numbers: `scale must be 1, 2 or 3, got 4.`
    case oneOf([Int])
    /// A length of 0 to 1,000,000 points (for insets, each side).
    case length
    /// A length above 0 and at most 1,000,000 points.
    case positiveLength
    /// A number from 0 to 1.
    case fraction
    /// A finite number of 0 or more.
    case nonNegative

    /// The bounds as numbers, for a schema: minimum (and whether it is excluded) and maximum.
    public var bounds: (minimum: Double?, exclusiveMinimum: Bool, maximum: Double?) {
        switch self {
        case .wholeNumbers(let range): (Double(range.lowerBound), false, Double(range.upperBound))
        case .oneOf(let values): (values.min().map(Double.init), false, values.max().map(Double.init))
        case .length: (0, false, LayoutConfigurationError.maximumLength)
        case .positiveLength: (0, true, LayoutConfigurationError.maximumLength)
        case .fraction: (0, false, 1)
        case .nonNegative: (0, false, nil)
        }
    }

    /// The range in a few words, for help: `1 to 64`, `1, 2 or 3`, `0 to 1,000,000`.
    public var summary: String {
        switch self {
        case .wholeNumbers(let range): "\(range.lowerBound) to \(range.upperBound)"
        case .oneOf(let values): Self.list(values.map(String.init))
        case .length: "0 to 1,000,000"
        case .positiveLength: "above 0, at most 1,000,000"
        case .fraction: "0 to 1"
        case .nonNegative: "0 or more"
        }
    }

    /// `1, 2 or 3`.
    static func list(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Checks a number; `name` is how the message names it (`sectionInset.top`).
    func check(_ value: Double, field: String, name: String) throws(LayoutConfigurationError) {
        let format = LayoutConfigurationError.format
        let maximum = LayoutConfigurationError.maximumLength
        switch self {
        case .wholeNumbers, .oneOf:
            guard let whole = Int(exactly: value) else {
                throw LayoutConfigurationError(
                    field: field, message: "\(name) must be a whole number, got \(format(value)).")
            }
            try check(whole, field: field, name: name)
        case .length:
            guard value >= 0, value <= maximum else {
                throw LayoutConfigurationError(
                    field: field, message: "\(name) must be a number from 0 to 1000000 points, got \(format(value)).")
            }
        case .positiveLength:
            guard value > 0, value <= maximum else {
                throw LayoutConfigurationError(
                    field: field,
                    message: "\(name) must be greater than 0 and at most 1000000 points, got \(format(value)).")
            }
        case .fraction:
            guard value >= 0, value <= 1 else {
                throw LayoutConfigurationError(
                    field: field, message: "\(name) must be a number from 0 to 1, got \(format(value)).")
            }
        case .nonNegative:
            guard value >= 0, value.isFinite else {
                throw LayoutConfigurationError(
                    field: field, message: "\(name) must be a finite number of 0 or more, got \(format(value)).")
            }
        }
    }

    /// Checks a whole number.
    func check(_ value: Int, field: String, name: String) throws(LayoutConfigurationError) {
        switch self {
        case .wholeNumbers(let range):
            guard range.contains(value) else {
                throw LayoutConfigurationError(
                    field: field,
                    message:
                        "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(value).")
            }
        case .oneOf(let values):
            guard values.contains(value) else {
                throw LayoutConfigurationError(
                    field: field, message: "\(name) must be \(Self.list(values.map(String.init))), got \(value).")
            }
        case .length, .positiveLength, .fraction, .nonNegative:
            try check(Double(value), field: field, name: name)
        }
    }
}

/// The coding key of any field.
public struct FieldKey: CodingKey, Sendable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(_ key: String) { stringValue = key }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
