import Waterfall
import WaterfallJSON

/// The answers' schemas, made from their member tables (``JSONAnswer``): the same tables write
/// the answers, so a schema cannot say a member the answer does not write.
extension APIDocument {
    /// The answers whose schemas are produced from code, in the order their schemas follow the
    /// skeleton's.
    static var answers: [any JSONAnswer.Type] {
        [
            PlacedImage.self, PlacedSupplement.self, LayoutPage.self, ViewportPage.self, SectionIndex.Section.self,
            SectionIndex.self, CoverFlowImage.self, CoverFlowPage.self, ImageList.Image.self, ImageList.self,
            SectionList.Section.self, SectionList.self, ViewList.View.self, ViewList.self, ShareList.Share.self,
            ShareList.self, NewShare.self, NamedLayout.self,
            LayoutList.self, ChangeList.Change.self,
            ChangeList.self, ChangeSummary.self, ChangeEvent.self, StreamReset.self, FeedList.Feed.self, FeedList.self,
            KeptFeedReport.self, LayoutCoverage.self, DatabaseStats.self, BackupReport.self, Problem.self,
            CallerAccess.self, LocatedImage.self, ImageStreamHead.self, MirrorHead.Section.self, MirrorHead.Named.self,
            MirrorHead.self, MirrorImageLine.self, Health.self,
        ]
    }

    /// `components.schemas` of the answers.
    static func answerSchemas() -> [(key: String, value: JSONValue)] {
        answers.flatMap { $0.schemas }.map { ($0.name, schema($0)) }
    }

    /// An answer's object: its members, which are required, and (but for objects described in
    /// place, which are the feed's) no others.
    static func schema(_ answer: AnswerSchema, inPlace: Bool = false) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("type", .string("object"))]
        if let description = answer.description { members.append(("description", .string(description))) }
        members += [
            ("properties", .object(answer.members.map { ($0.name, schema($0)) })),
            ("required", .array(answer.required.map { .string($0) })),
        ]
        if !inPlace { members.append(("additionalProperties", .bool(false))) }
        return .object(members)
    }

    /// A member's schema: its type (with `null` when it may be null), bounds, elements and
    /// sentence, in that order.
    private static func schema(_ member: MemberSchema) -> JSONValue {
        var schema: [(key: String, value: JSONValue)]
        let type: String
        switch member.value {
        case .string: type = "string"
        case .integer: type = "integer"
        case .number: type = "number"
        case .boolean: type = "boolean"
        case .array, .objects, .strings: type = "array"
        case .object(let object):
            precondition(member.presence == .required, "\(member.name): an object in place is always there")
            return Self.schema(
                AnswerSchema(name: object.name, description: member.description, members: object.members))
        case .reference(let name):
            precondition(member.presence != .nullable, "\(member.name): a nullable reference has no schema here")
            precondition(member.constraints.isEmpty, "\(member.name): a reference has no bounds of its own")
            schema = [("$ref", .string("#/components/schemas/\(name)"))]
            if let description = member.description { schema.append(("description", .string(description))) }
            return .object(schema)
        }
        schema = [("type", member.presence == .nullable ? .array([.string(type), .string("null")]) : .string(type))]
        for constraint in member.constraints {
            switch constraint {
            case .format(let format): schema.append(("format", .string(format)))
            case .minLength(let length): schema.append(("minLength", .number(String(length))))
            case .maxLength(let length): schema.append(("maxLength", .number(String(length))))
            case .pattern(let pattern): schema.append(("pattern", .string(pattern)))
            case .minimum(let bound): schema.append(("minimum", .number(String(bound))))
            case .maximum(let bound): schema.append(("maximum", .number(String(bound))))
            case .maxItems(let count): schema.append(("maxItems", .number(String(count))))
            case .constant(let value): schema.append(("const", .string(value)))
            case .oneOf(let values): schema.append(("enum", .array(values.map { .string($0) })))
            }
        }
        switch member.value {
        case .array(let element): schema.append(("items", .ref("#/components/schemas/\(element)")))
        case .objects(let element): schema.append(("items", self.schema(element, inPlace: true)))
        case .strings: schema.append(("items", .object([("type", .string("string"))])))
        default: break
        }
        if let description = member.description { schema.append(("description", .string(description))) }
        return .object(schema)
    }
}
