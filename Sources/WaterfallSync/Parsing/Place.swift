/// Where a value sits in a file, as messages name it: `images[3].width`, `line 57: width`,
/// `feed`, `moves[2]`.
///
/// Built from static parts and indices, so passing one around costs nothing until a message
/// needs its text.
struct Place {
    /// The object holding the value.
    enum Container {
        /// The top-level object.
        case root
        /// An element of a top-level array, such as `images[3]`.
        case element(StaticString, Int)
        /// An NDJSON line (1-based).
        case line(Int)
    }

    var container: Container
    /// The field inside the container, if the place is a field.
    var field: StaticString?
    /// Inside the field's array: an element, and that element's field, as in
    /// `renditions[1].width`.
    var inner: (index: Int, field: StaticString?)?

    init(container: Container, field: StaticString? = nil) {
        self.container = container
        self.field = field
    }

    /// The same container's field `name`.
    func field(_ name: StaticString) -> Place {
        Place(container: container, field: name)
    }

    /// Element `index` of the array in this place's field, or that element's field `name`.
    func element(_ index: Int, field name: StaticString? = nil) -> Place {
        var place = self
        place.inner = (index, name)
        return place
    }

    /// The place's text.
    var description: String {
        guard let inner else { return outerDescription }
        return "\(outerDescription)[\(inner.index)]" + (inner.field.map { ".\($0)" } ?? "")
    }

    private var outerDescription: String {
        switch (container, field) {
        case (.root, nil): return "the top-level object"
        case (.root, let field?): return "\(field)"
        case (.element(let array, let index), nil): return "\(array)[\(index)]"
        case (.element(let array, let index), let field?): return "\(array)[\(index)].\(field)"
        case (.line(let line), nil): return "line \(line)"
        case (.line(let line), let field?): return "line \(line): \(field)"
        }
    }
}

extension SyncError {
    /// `file: place: expected X, found Y.`
    @inline(never)
    static func value(_ source: String, _ place: Place, expected: String, found: String) -> SyncError {
        SyncError(kind: .invalidData, message: "\(source): \(place.description): expected \(expected), found \(found).")
    }

    /// `file: place: expected a "name" field, found none.`
    static func missingField(_ source: String, _ place: Place, _ name: StaticString) -> SyncError {
        let article = "aeiou".contains("\(name)".first!) ? "an" : "a"
        if case .root = place.container {
            return SyncError(
                kind: .invalidData,
                message: "\(source): expected \(article) \"\(name)\" field in the top-level object, found none.")
        }
        return value(source, place, expected: "\(article) \"\(name)\" field", found: "none")
    }

    /// `file: place: expected one "name" field, found two.`
    static func repeatedField(_ source: String, _ place: Place, _ name: StaticString) -> SyncError {
        if case .root = place.container {
            return SyncError(
                kind: .invalidData,
                message: "\(source): expected one \"\(name)\" field in the top-level object, found two.")
        }
        return value(source, place, expected: "one \"\(name)\" field", found: "two")
    }
}
