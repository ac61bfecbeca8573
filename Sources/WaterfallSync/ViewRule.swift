import Foundation

/// A view's rule (DESIGN section 20): which images of a feed a view holds.
///
/// Written as `{"where": {"tags": {"all": […], "any": […], "none": […]}, "takenAt": {"from": D,
/// "to": D}, "sections": […], "aspect": {"min": A, "max": A}}}`, every part optional. An image
/// matches when it carries every tag of `all`, at least one of `any` (when given) and none of
/// `none`; was taken at or after `from` and before `to` (an image without a date matches no
/// rule on dates); is in one of `sections` (section ids as feeds write them, `null` the unnamed
/// section); and has a width/height between `min` and `max`, both included.
public struct ViewRule: Hashable, Sendable {
    public var allTags: [String] = []
    public var anyTags: [String] = []
    public var noneTags: [String] = []
    /// Taken at or after this moment.
    public var takenFrom: Moment?
    /// Taken before this moment.
    public var takenTo: Moment?
    /// The sections the view takes images from (`nil` in the list: the unnamed one); `nil`:
    /// every section.
    public var sections: [String?]?
    public var aspectMin: Double?
    public var aspectMax: Double?

    /// A bound of a rule on dates: an instant (RFC 3339 with an offset), or a local date or
    /// date and time (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`) read in the feed's time zone whenever
    /// the view's images are chosen.
    public enum Moment: Hashable, Sendable {
        /// Milliseconds since 1970-01-01T00:00:00Z.
        case instant(Int64, text: String)
        /// A local moment, as given.
        case local(String)

        /// As given in the rule.
        public var text: String {
            switch self {
            case .instant(_, let text), .local(let text): text
            }
        }

        /// The instant in `zone`; `nil` for a local moment that zone does not have.
        public func milliseconds(in zone: TimeZone) -> Int64? {
            switch self {
            case .instant(let milliseconds, _): milliseconds
            case .local(let text): TakenAt.milliseconds(localMoment: text, in: zone)
            }
        }
    }

    public init() {}

    /// The most sections a rule may name.
    public static let maximumSections = 1_000
    /// The longest rule document, in bytes.
    public static let maximumBytes = 256 * 1024

    /// Whether the rule says anything about dates.
    public var isOnDates: Bool { takenFrom != nil || takenTo != nil }
}

// MARK: Reading

extension ViewRule {
    /// Reads a rule from its JSON, checking every part; `source` names it in messages.
    /// - Throws: ``ViewRuleError``: one sentence with the JSON path of what is wrong.
    public init(json bytes: [UInt8], source: String) throws(ViewRuleError) {
        guard bytes.count <= Self.maximumBytes else {
            throw ViewRuleError("\(source): a view's rule is at most \(Self.maximumBytes) bytes, got \(bytes.count).")
        }
        let value: RuleJSON
        do {
            value = try JSONDecoder().decode(RuleJSON.self, from: Data(bytes))
        } catch {
            throw ViewRuleError(
                "\(source): expected a view's rule, a JSON object {\"where\": {…}}; it is not valid JSON.")
        }
        self.init()
        let reader = RuleReader(source: source)
        try reader.read(value, into: &self)
    }
}

/// What is wrong with a view's rule, in one sentence.
public struct ViewRuleError: Error, Hashable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// Any JSON value, as a rule is read: no key order, no duplicates (the last wins, as
/// `JSONDecoder` reads objects).
private indirect enum RuleJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([RuleJSON])
    case object([String: RuleJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([RuleJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: RuleJSON].self))
        }
    }

    var found: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
        case .string(let value): "\"\(value.prefix(60))\(value.count > 60 ? "…" : "")\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

private struct RuleReader {
    let source: String

    func fail(_ path: String, expected: String, found: String) -> ViewRuleError {
        ViewRuleError("\(source): \(path): expected \(expected), found \(found).")
    }

    func object(_ value: RuleJSON, _ path: String, keys: Set<String>) throws(ViewRuleError) -> [String: RuleJSON] {
        guard case .object(let fields) = value else {
            throw fail(path, expected: "an object", found: value.found)
        }
        if let unknown = fields.keys.filter({ !keys.contains($0) }).sorted().first {
            throw fail(
                path, expected: "only the fields \(keys.sorted().map { "\"\($0)\"" }.joined(separator: ", "))",
                found: "\"\(unknown.prefix(60))\"")
        }
        return fields
    }

    func read(_ value: RuleJSON, into rule: inout ViewRule) throws(ViewRuleError) {
        let top = try object(value, "the rule", keys: ["where"])
        guard let whereValue = top["where"], case .object = whereValue else {
            if let whereValue = top["where"], case .null = whereValue { return }
            if top["where"] == nil { return }
            throw fail("where", expected: "an object", found: top["where"]!.found)
        }
        let parts = try object(whereValue, "where", keys: ["tags", "takenAt", "sections", "aspect"])
        if let tags = parts["tags"], !tags.isNull {
            let lists = try object(tags, "where.tags", keys: ["all", "any", "none"])
            rule.allTags = try tagList(lists["all"], "where.tags.all")
            rule.anyTags = try tagList(lists["any"], "where.tags.any")
            rule.noneTags = try tagList(lists["none"], "where.tags.none")
        }
        if let taken = parts["takenAt"], !taken.isNull {
            let bounds = try object(taken, "where.takenAt", keys: ["from", "to"])
            rule.takenFrom = try moment(bounds["from"], "where.takenAt.from")
            rule.takenTo = try moment(bounds["to"], "where.takenAt.to")
        }
        if let sections = parts["sections"], !sections.isNull {
            guard case .array(let names) = sections else {
                throw fail("where.sections", expected: "an array of section ids", found: sections.found)
            }
            guard names.count <= ViewRule.maximumSections else {
                throw fail(
                    "where.sections", expected: "at most \(ViewRule.maximumSections) sections",
                    found: "\(names.count)")
            }
            var list: [String?] = []
            for (index, name) in names.enumerated() {
                switch name {
                case .null: list.append(nil)
                case .string(let id) where !id.isEmpty && id.utf8.count <= 256 && !id.hasControlCharacters:
                    list.append(id)
                default:
                    throw fail(
                        "where.sections[\(index)]",
                        expected: "a section id (1 to 256 bytes) or null for the unnamed section",
                        found: name.found)
                }
            }
            rule.sections = list
        }
        if let aspect = parts["aspect"], !aspect.isNull {
            let bounds = try object(aspect, "where.aspect", keys: ["min", "max"])
            rule.aspectMin = try ratio(bounds["min"], "where.aspect.min")
            rule.aspectMax = try ratio(bounds["max"], "where.aspect.max")
            if let min = rule.aspectMin, let max = rule.aspectMax, min > max {
                throw fail("where.aspect", expected: "min at most max", found: "min \(min) and max \(max)")
            }
        }
        if let from = rule.takenFrom, let to = rule.takenTo, case .instant(let a, _) = from,
            case .instant(let b, _) = to, a >= b
        {
            throw fail("where.takenAt", expected: "from before to", found: "\(from.text) and \(to.text)")
        }
    }

    func tagList(_ value: RuleJSON?, _ path: String) throws(ViewRuleError) -> [String] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let items) = value else {
            throw fail(path, expected: "an array of tags", found: value.found)
        }
        guard items.count <= ImageTags.maximumCount else {
            throw fail(path, expected: "at most \(ImageTags.maximumCount) tags", found: "\(items.count)")
        }
        var tags: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let tag) = item, ImageTags.isValid(tag) else {
                throw fail(
                    "\(path)[\(index)]",
                    expected: "a tag: 1 to \(ImageTags.maximumBytes) bytes without control characters",
                    found: item.found)
            }
            if !ImageTags.contains(tags, tag) { tags.append(tag) }
        }
        return tags
    }

    func moment(_ value: RuleJSON?, _ path: String) throws(ViewRuleError) -> ViewRule.Moment? {
        guard let value, !value.isNull else { return nil }
        let expected =
            "a date YYYY-MM-DD, a local date and time YYYY-MM-DDTHH:MM (both in the feed's time zone), or an RFC 3339 date-time with an offset"
        guard case .string(let text) = value else { throw fail(path, expected: expected, found: value.found) }
        if let instant = TakenAt.milliseconds(parsing: Array(text.utf8)) { return .instant(instant, text: text) }
        guard TakenAt.milliseconds(localMoment: text, in: TimeZone(identifier: "UTC")!) != nil else {
            throw fail(path, expected: expected, found: value.found)
        }
        return .local(text)
    }

    func ratio(_ value: RuleJSON?, _ path: String) throws(ViewRuleError) -> Double? {
        guard let value, !value.isNull else { return nil }
        guard case .number(let number) = value, number.isFinite, number > 0, number <= 1_000_000 else {
            throw fail(path, expected: "a width/height ratio above 0 and at most 1000000", found: value.found)
        }
        return number
    }
}

extension RuleJSON {
    fileprivate var isNull: Bool {
        if case .null = self { true } else { false }
    }
}

extension String {
    fileprivate var hasControlCharacters: Bool {
        unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}

// MARK: Writing

extension ViewRule: Encodable {
    private enum Key: String, CodingKey {
        case `where`, tags, takenAt, sections, aspect, all, any, none, from, to, min, max
    }

    /// The canonical form: every part given, in the order DESIGN section 20 writes them (tags,
    /// takenAt, sections, aspect; all, any, none; from, to; min, max), empty parts left out;
    /// what the catalog stores and every front end shows.
    public func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: Key.self)
        var parts = top.nestedContainer(keyedBy: Key.self, forKey: .where)
        if !allTags.isEmpty || !anyTags.isEmpty || !noneTags.isEmpty {
            var tags = parts.nestedContainer(keyedBy: Key.self, forKey: .tags)
            if !allTags.isEmpty { try tags.encode(allTags, forKey: .all) }
            if !anyTags.isEmpty { try tags.encode(anyTags, forKey: .any) }
            if !noneTags.isEmpty { try tags.encode(noneTags, forKey: .none) }
        }
        if isOnDates {
            var taken = parts.nestedContainer(keyedBy: Key.self, forKey: .takenAt)
            try taken.encodeIfPresent(takenFrom?.text, forKey: .from)
            try taken.encodeIfPresent(takenTo?.text, forKey: .to)
        }
        if let sections { try parts.encode(sections, forKey: .sections) }
        if aspectMin != nil || aspectMax != nil {
            var aspect = parts.nestedContainer(keyedBy: Key.self, forKey: .aspect)
            try aspect.encodeIfPresent(aspectMin, forKey: .min)
            try aspect.encodeIfPresent(aspectMax, forKey: .max)
        }
    }

    /// The canonical JSON text, written here member by member in the order of ``encode(to:)``,
    /// numbers and strings as the service's JSON writer writes them (an integral ratio without a
    /// fraction), so that the stored rule, the table and the JSON answers agree byte for byte.
    public var canonicalJSON: String {
        func string(_ text: String) -> String {
            var json = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case "\u{2028}": json += "\\u2028"
                case "\u{2029}": json += "\\u2029"
                default:
                    if scalar.value < 0x20 {
                        json += "\\u00" + String(scalar.value, radix: 16, uppercase: false).leftPadded(to: 2)
                    } else {
                        json.unicodeScalars.append(scalar)
                    }
                }
            }
            return json + "\""
        }
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 9_007_199_254_740_992 ? String(Int64(value)) : "\(value)"
        }
        func object(_ members: [(String, String?)]) -> String? {
            let present = members.compactMap { name, value in value.map { string(name) + ":" + $0 } }
            return present.isEmpty ? nil : "{" + present.joined(separator: ",") + "}"
        }
        func list(_ tags: [String]) -> String? {
            tags.isEmpty ? nil : "[" + tags.map(string).joined(separator: ",") + "]"
        }
        let parts = object([
            ("tags", object([("all", list(allTags)), ("any", list(anyTags)), ("none", list(noneTags))])),
            (
                "takenAt",
                object([("from", takenFrom.map { string($0.text) }), ("to", takenTo.map { string($0.text) })])
            ),
            ("sections", sections.map { "[" + $0.map { $0.map(string) ?? "null" }.joined(separator: ",") + "]" }),
            ("aspect", object([("min", aspectMin.map(number)), ("max", aspectMax.map(number))])),
        ])
        return "{\"where\":" + (parts ?? "{}") + "}"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
