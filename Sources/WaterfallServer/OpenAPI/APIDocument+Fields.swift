import Waterfall

/// The document's blocks made from the field tables: a query parameter for every field of a
/// layout (``LayoutParameter``), of a cover flow (``CoverFlowConfiguration/fields``) and of the
/// queries themselves (``QueryParameter``), and the configurations' schemas, as stored and as
/// sent. Only the prose that introduces each schema is written here; every field's type,
/// range, default and sentence comes from its table.
extension APIDocument {
    /// `components.parameters` of the fields: layouts', then the cover flow's own, then the
    /// queries'.
    static func fieldParameters() -> [(key: String, value: JSONValue)] {
        // A cover-flow field of a layout's key (`sectionInset`, `scale`) shares its parameter,
        // which then says what it means there too.
        let coverFlow = Dictionary(CoverFlowConfiguration.fields.map { ($0.key, FieldSummary($0)) }) { first, _ in first
        }
        var entries = LayoutParameter.all.map { parameter in
            (componentName(parameter.key), layoutParameter(parameter, coverFlow: coverFlow[parameter.key]))
        }
        let layoutKeys = Set(LayoutParameter.all.map(\.key))
        for field in CoverFlowConfiguration.fields where !layoutKeys.contains(field.key) {
            let summary = FieldSummary(field)
            entries.append(
                (
                    componentName(field.key),
                    parameter(
                        field.key, description: field.help.withNotes(formNotes(summary)), required: field.isRequired,
                        schema: parameterSchema(summary), example: example(summary))
                ))
        }
        for query in QueryParameter.all {
            entries.append((query.component, queryParameter(query)))
        }
        return entries
    }

    /// The query parameters of an inline layout, in the order operations list them.
    static var inlineLayoutParameters: [ParameterRef] {
        [.query("Kind"), .query("Sections")] + LayoutParameter.all.map { .query(componentName($0.key)) }
    }

    /// The query parameters of an inline cover flow: its table's fields.
    static var coverFlowParameters: [ParameterRef] {
        CoverFlowConfiguration.fields.map { .query(componentName($0.key)) }
    }

    /// `Offset`, `pageSize`: a component's name is its key with a capital.
    static func componentName(_ key: String) -> String {
        key.prefix(1).uppercased() + key.dropFirst()
    }

    /// How a query writes a value of the field, when that needs saying.
    private static func formNotes(_ field: FieldSummary) -> [String] {
        field.shape.textForm.map { [$0 + (field.range.map { ", each \($0.summary)" } ?? "")] } ?? []
    }

    private static func example(_ field: FieldSummary) -> String? {
        field.shape == .insets ? "10,10,10,10" : nil
    }

    private static func layoutParameter(_ parameter: LayoutParameter, coverFlow: FieldSummary?) -> JSONValue {
        let field = parameter.field
        var notes = formNotes(field)
        // The schema's `required` says when every kind requires it.
        notes += parameter.kindNotes(sayingRequired: false)
        var description = parameter.help.withNotes(notes)
        if let coverFlow, coverFlow.help != parameter.help {
            description += " Cover flow: \(coverFlow.help.prefix(1).lowercased())\(coverFlow.help.dropFirst())"
        }
        return self.parameter(
            parameter.key, description: description, required: parameter.requiredBy.count == LayoutKind.allCases.count,
            schema: parameterSchema(field), example: example(field))
    }

    private static func queryParameter(_ query: QueryParameter) -> JSONValue {
        var schema: [(key: String, value: JSONValue)] = [("type", .string(query.type.rawValue))]
        if let minimum = query.minimum {
            schema.append((query.exclusiveMinimum ? "exclusiveMinimum" : "minimum", number(minimum)))
        }
        if let maximum = query.maximum { schema.append(("maximum", number(maximum))) }
        if let value = query.defaultValue {
            let typed: JSONValue =
                switch query.type {
                case .boolean: .bool(value == "true")
                case .string: .string(value)
                case .integer, .number: .number(value)
                }
            schema.append(("default", typed))
        }
        return parameter(
            query.name, description: query.help, required: query.isRequired, schema: .object(schema), example: nil)
    }

    private static func parameter(
        _ name: String, description: String, required: Bool, schema: JSONValue, example: String?
    ) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(name)), ("in", .string("query")), ("description", .string(description)),
        ]
        if required { members.append(("required", .bool(true))) }
        members.append(("schema", schema))
        if let example { members.append(("example", .string(example))) }
        return .object(members)
    }

    /// The schema of a field given as text in a query: insets are a string of one or four
    /// numbers; a choice is its named schema.
    private static func parameterSchema(_ field: FieldSummary) -> JSONValue {
        switch field.shape {
        case .insets:
            var schema: [(key: String, value: JSONValue)] = [("type", .string("string"))]
            if let value = field.defaultValue { schema.append(("default", .string(value.parameterText))) }
            return .object(schema)
        default:
            return fieldSchema(field, input: true)
        }
    }

    /// The JSON schema of a field's value: as stored (`input` false: type, and the bounds a
    /// reader may rely on) or as sent (bounds and default).
    private static func fieldSchema(_ field: FieldSummary, input: Bool) -> JSONValue {
        var schema: [(key: String, value: JSONValue)]
        switch field.shape {
        case .integer, .number:
            schema = [("type", .string(field.shape == .integer ? "integer" : "number"))]
            switch field.range {
            case .oneOf(let values)?:
                schema.append(("enum", .array(values.map { .number(String($0)) })))
            case let range?:
                let bounds = range.bounds
                if let minimum = bounds.minimum {
                    schema.append((bounds.exclusiveMinimum ? "exclusiveMinimum" : "minimum", number(minimum)))
                }
                if let maximum = bounds.maximum { schema.append(("maximum", number(maximum))) }
            case nil:
                break
            }
        case .insets:
            schema = [("$ref", .string("#/components/schemas/\(input ? "EdgeInsetsInput" : "EdgeInsets")"))]
        case .choice:
            schema = [("$ref", .string("#/components/schemas/\(field.typeName)"))]
        }
        if input, let value = field.defaultValue, field.shape != .insets { schema.append(("default", json(value))) }
        return .object(schema)
    }

    /// A bound as JSON writes it: whole numbers without a fraction or an exponent.
    private static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 1e18 { return .number(String(Int64(value))) }
        return .number(ConfigurationValue.number(value).parameterText)
    }

    private static func json(_ value: ConfigurationValue) -> JSONValue {
        switch value {
        case .number(let number): .number(ConfigurationValue.number(number).parameterText)
        case .string(let text): .string(text)
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .array(let values): .array(values.map(json))
        case .object(let members):
            .object(["top", "left", "bottom", "right"].compactMap { key in members[key].map { (key, json($0)) } })
        }
    }
}

extension APIDocument {
    /// `components.schemas` of the configurations, as stored (canonical: every field) and as
    /// sent (only the required ones required), and of a section's override.
    static func configurationSchemas() -> [(key: String, value: JSONValue)] {
        let sectionsStored = JSONValue.object([
            ("type", .string("array")), ("items", .ref("#/components/schemas/SectionOverride")),
            ("minItems", .number("1")),
            (
                "description",
                .string("Per-section overrides, in the order given (DESIGN section 14); absent when there are none.")
            ),
        ])
        let sectionsSent = JSONValue.object([
            ("type", .string("array")), ("items", .ref("#/components/schemas/SectionOverride")),
            (
                "description",
                .string(
                    "Per-section overrides, in the order given (DESIGN section 14); an empty list is the same as none.")
            ),
        ])
        let waterfall = LayoutConfiguration.fields.map(FieldSummary.init)
        let justified = JustifiedConfiguration.fields.map(FieldSummary.init)
        let justifiedKind = JSONValue.object([("type", .string("string")), ("const", .string("justified"))])
        return [
            (
                "LayoutConfiguration",
                configurationSchema(
                    "A waterfall layout's configuration in its canonical form: every field present, lengths in points. A waterfall is the default kind, so its form has no `kind` key (as before kinds existed).",
                    kind: nil, fields: waterfall, sections: sectionsStored, input: false)
            ),
            (
                "LayoutConfigurationInput",
                configurationSchema(
                    "A waterfall configuration as sent: `kind` absent or `waterfall`; only the fields without a default are required, a missing or null field takes its default, and an unknown field (or one of justified rows) is a 422. The section insets must leave room for the columns (`width - sectionInset.left - sectionInset.right - (columns - 1) * columnSpacing` above 0), else 422.",
                    kind: (.object([("type", .string("string")), ("const", .string("waterfall"))]), required: false),
                    fields: waterfall, sections: sectionsSent, input: true)
            ),
            (
                "JustifiedConfiguration",
                configurationSchema(
                    "A justified-rows layout's configuration in its canonical form (DESIGN section 8): `kind` first, every field present, lengths in points.",
                    kind: (justifiedKind, required: true), fields: justified, sections: sectionsStored, input: false)
            ),
            (
                "JustifiedConfigurationInput",
                configurationSchema(
                    "A justified-rows configuration as sent: `kind` is `justified`; only the fields without a default are required, a missing or null field takes its default, and an unknown field (or `columns` or `order`) is a 422. The section insets must leave a content width above 0, else 422.",
                    kind: (justifiedKind, required: true), fields: justified, sections: sectionsSent, input: true)
            ),
            ("SectionOverride", sectionOverrideSchema()),
        ]
    }

    private static func configurationSchema(
        _ description: String, kind: (schema: JSONValue, required: Bool)?, fields: [FieldSummary], sections: JSONValue,
        input: Bool
    ) -> JSONValue {
        var properties: [(key: String, value: JSONValue)] = []
        var required: [String] = []
        if let kind {
            properties.append(("kind", kind.schema))
            if kind.required { required.append("kind") }
        }
        for field in fields {
            var schema = fieldSchema(field, input: input)
            if input, case .object(var members) = schema {
                members.append(("description", .string(field.help)))
                schema = .object(members)
            }
            properties.append((field.key, schema))
            if !input || field.defaultValue == nil { required.append(field.key) }
        }
        properties.append(("sections", sections))
        return .object([
            ("type", .string("object")), ("description", .string(description)), ("properties", .object(properties)),
            ("required", .array(required.map { .string($0) })), ("additionalProperties", .bool(false)),
        ])
    }

    /// An override: `section`, `kind`, and any field of either kind but `width` and `scale`.
    private static func sectionOverrideSchema() -> JSONValue {
        var properties: [(key: String, value: JSONValue)] = [
            ("section", .object([("type", .string("string")), ("description", .string("The section's catalog id."))])),
            ("kind", .ref("#/components/schemas/LayoutKind")),
        ]
        for parameter in LayoutParameter.all where parameter.key != "width" && parameter.key != "scale" {
            var schema = fieldSchema(parameter.field, input: false)
            if parameter.key == "minimumContentHeight", case .object(var members) = schema {
                members.append(
                    ("description", .string("Accepted, without effect: the content height is the layout's.")))
                schema = .object(members)
            }
            properties.append((parameter.key, schema))
        }
        return .object([
            ("type", .string("object")),
            (
                "description",
                .string(
                    "One section's own settings (DESIGN section 14): `section` names the section by its catalog id (it may not exist yet), and any field of either kind but `width` and `scale` may follow, `kind` included. An override of the layout's kind inherits every field it does not set from the layout; one of the other kind inherits the shared fields (insets, header, footer, caption, spacing) and must give the rest (`columns` for a waterfall, `rowHeight` for justified rows). Two overrides of one section, `width`, `scale`, or a field its kind refuses are a 422 naming the JSON path (`sections[2].columns`). Kept as given, in the order given."
                )
            ),
            ("properties", .object(properties)), ("required", .array([.string("section")])),
            ("additionalProperties", .bool(false)),
        ])
    }
}
