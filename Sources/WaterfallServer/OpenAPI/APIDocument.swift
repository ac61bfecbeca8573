/// The OpenAPI 3.1 document of the HTTP API, produced from the hand-written skeleton
/// (`Assets/openapi-skeleton.json`: `openapi`, `info`, `servers`, `tags`, `security` and the
/// `components` with their prose), the route table (``APIRoutes``), whose declarations become
/// `paths`, and the tables of the configurations' fields and of the answers' members, which
/// become their schemas.
///
/// The produced text is checked in as `Assets/openapi.json`, the document the server answers
/// `GET /openapi.json` with and WaterfallClient is generated from; a test byte-compares the two,
/// and ``regenerateCommand`` writes the file again.
public enum APIDocument {
    /// The command, run at the repository's root, that writes `openapi.json` again.
    public static let regenerateCommand =
        "swift run waterfall openapi --output Sources/WaterfallServer/Assets/openapi.json"

    /// The document as pretty-printed JSON: the skeleton's keys in their order, with `paths`
    /// (in the route table's order) before `components`. The same routes and skeleton always
    /// give the same bytes.
    public static func produce() -> String {
        let skeleton: JSONValue
        do {
            skeleton = try JSONValue(parsing: Assets.file("openapi-skeleton.json"))
        } catch {
            preconditionFailure("Assets/openapi-skeleton.json, \(error)")
        }
        return document(skeleton: skeleton, routes: APIRoutes.all).prettyPrinted
    }

    /// Entries of `components.parameters` produced from code rather than written in the
    /// skeleton; they follow the skeleton's: every field of the configurations' tables and the
    /// queries' own parameters (``fieldParameters()``).
    static func generatedParameters() -> [(key: String, value: JSONValue)] { fieldParameters() }

    /// Entries of `components.schemas` produced from code rather than written in the skeleton;
    /// they follow the skeleton's: the configurations as stored and as sent, and a section's
    /// override (``configurationSchemas()``), then the answers (``answerSchemas()``).
    static func generatedSchemas() -> [(key: String, value: JSONValue)] {
        configurationSchemas() + answerSchemas()
    }

    /// The skeleton with `paths` from `routes` and the generated components added.
    static func document(skeleton: JSONValue, routes: [Route]) -> JSONValue {
        guard let members = skeleton.members else { preconditionFailure("the OpenAPI skeleton is not an object") }
        var document: [(key: String, value: JSONValue)] = []
        for (key, value) in members {
            precondition(key != "paths", "the OpenAPI skeleton has paths; they come from the route table")
            if key == "components" { document.append(("paths", paths(of: routes))) }
            document.append((key, key == "components" ? components(value) : value))
        }
        if skeleton["components"] == nil {
            document.append(("paths", paths(of: routes)))
            document.append(("components", components(.object([]))))
        }
        return .object(document)
    }

    /// The skeleton's components with the generated parameters and schemas after its own.
    private static func components(_ skeleton: JSONValue) -> JSONValue {
        var sections = skeleton.members ?? []
        for (name, generated) in [("parameters", generatedParameters()), ("schemas", generatedSchemas())]
        where !generated.isEmpty {
            var entries = sections.first { $0.key == name }?.value.members ?? []
            for entry in generated {
                precondition(
                    !entries.contains { $0.key == entry.key },
                    "components.\(name).\(entry.key) is both in the OpenAPI skeleton and generated")
                entries.append(entry)
            }
            if let position = sections.firstIndex(where: { $0.key == name }) {
                sections[position].value = .object(entries)
            } else {
                sections.append((name, .object(entries)))
            }
        }
        return .object(sections)
    }
}
