/// A field of the layout configurations as a front end that takes either kind sees it: one
/// query parameter or flag for a key both kinds have (`width`), with what each kind makes of it.
/// Made from the kinds' field tables (``LayoutConfiguration/fields``,
/// ``JustifiedConfiguration/fields``), never written by hand.
@dynamicMemberLookup
public struct LayoutParameter: Sendable {
    /// The field as one description: its key, shape, range, default (where a kind has one: the
    /// kinds that share a field share its default), value name, type name, and help (where the
    /// kinds' sentences differ, the first kind's, then the others' introduced by their names).
    public let field: FieldSummary
    /// The kinds that have the field, in ``LayoutKind`` order.
    public let kinds: [LayoutKind]
    /// The kinds that require it.
    public let requiredBy: [LayoutKind]

    /// The notes on which kinds have and require the field, as a flag's help and an API
    /// document's description say them: "justified rows only" when one kind has it; "required",
    /// or "required for …" when only some of its kinds require it. `sayingRequired` false leaves
    /// out a requirement every kind has, for a front end that says it otherwise (an API schema's
    /// `required`).
    public func kindNotes(sayingRequired: Bool = true) -> [String] {
        var notes: [String] = []
        if kinds.count == 1 { notes.append("\(kinds[0].title) only") }
        let requiredByAll = requiredBy.count == LayoutKind.allCases.count
        if !requiredBy.isEmpty, sayingRequired || !requiredByAll {
            notes.append(
                requiredBy == kinds ? "required" : "required for \(requiredBy.map(\.title).joined(separator: ", "))")
        }
        return notes
    }

    /// The field's description (`parameter.key`, `parameter.help`, …).
    public subscript<Value>(dynamicMember path: KeyPath<FieldSummary, Value>) -> Value {
        field[keyPath: path]
    }

    /// The parameters of every kind: the waterfall's fields in their order, then those only
    /// justified rows have.
    public static let all: [LayoutParameter] = {
        var byKey: [String: [(LayoutKind, FieldSummary)]] = [:]
        var order: [String] = []
        for (kind, fields) in [
            (LayoutKind.waterfall, LayoutConfiguration.fields.map(FieldSummary.init)),
            (.justified, JustifiedConfiguration.fields.map(FieldSummary.init)),
        ] {
            for field in fields {
                if byKey[field.key] == nil { order.append(field.key) }
                byKey[field.key, default: []].append((kind, field))
            }
        }
        return order.map { key in
            let owners = byKey[key]!
            var field = owners[0].1
            for (kind, other) in owners.dropFirst() where other.help != owners[0].1.help {
                field.help +=
                    " \(kind.title.prefix(1).uppercased() + kind.title.dropFirst()): \(other.help.prefix(1).lowercased())\(other.help.dropFirst())"
            }
            field.defaultValue = owners.lazy.compactMap(\.1.defaultValue).first
            return LayoutParameter(
                field: field, kinds: owners.map(\.0), requiredBy: owners.filter { $0.1.defaultValue == nil }.map(\.0))
        }
    }()
}

/// A field's description without its type's accessors.
public struct FieldSummary: Sendable {
    public let key: String
    public let shape: FieldShape
    public let range: FieldRange?
    public fileprivate(set) var defaultValue: ConfigurationValue?
    public let valueName: String
    /// ``ConfigurationField/typeName``, found when asked.
    public var typeName: String { nameOfType() }
    private let nameOfType: @Sendable () -> String
    public fileprivate(set) var help: String

    public init<Root>(_ field: ConfigurationField<Root>) {
        key = field.key
        shape = field.shape
        range = field.range
        defaultValue = field.defaultValue
        valueName = field.valueName
        nameOfType = { field.typeName }
        help = field.help
    }
}

extension String {
    /// A field's help with notes (its form, range, default) in brackets before its full stop,
    /// as a flag's help and an API document's description say it.
    public func withNotes(_ notes: [String]) -> String {
        let stem = hasSuffix(".") ? String(dropLast()) : self
        return notes.isEmpty ? "\(stem)." : "\(stem) (\(notes.joined(separator: "; ")))."
    }
}

extension LayoutKind {
    /// The kind's name in a sentence: `waterfall`, `justified rows`.
    public var title: String {
        switch self {
        case .waterfall: "waterfall"
        case .justified: "justified rows"
        }
    }
}

extension ConfigurationValue {
    /// The value as a flag or query parameter writes it: `10`, `shortest`, insets as one
    /// number when their sides agree, else `top,left,bottom,right`.
    public var parameterText: String {
        switch self {
        case .number(let value): return LayoutConfigurationError.format(value)
        case .string(let value): return value
        case .bool(let value): return String(value)
        case .object(let members):
            let sides = ["top", "left", "bottom", "right"].compactMap { members[$0] }.map(\.parameterText)
            return Set(sides).count == 1 ? sides[0] : sides.joined(separator: ",")
        case .array, .null: return shortDescription
        }
    }
}
