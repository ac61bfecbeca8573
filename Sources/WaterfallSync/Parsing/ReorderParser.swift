/// Turns the tokens of a reorder file into a `ReorderDocument`, checking every rule.
struct ReorderParser: ~Copyable {
    private var scanner: JSONScanner
    private let limits: SyncLimits

    private static let topLevelFields = FieldNames(["feed", "order", "moves", "remove"])
    private static let moveFields = FieldNames(["id", "before", "after", "to"])
    private static let idExpectation: StaticString = "a non-empty string or an integer"

    init(scanner: consuming JSONScanner, limits: SyncLimits) {
        self.scanner = scanner
        self.limits = limits
    }

    private var source: String { scanner.source }

    consuming func parse() throws(SyncError) -> ReorderDocument {
        try scanner.openTopLevelObject()
        var feed: String?
        var order: [String]?
        var moves: [ReorderMove]?
        var removals: [String]?
        var seen = [false, false, false, false]
        var isFirst = true
        while let field = try scanner.nextField(isFirst: isFirst, names: ReorderParser.topLevelFields) {
            isFirst = false
            guard field < seen.count else {
                try scanner.skipValue(depth: 1)
                continue
            }
            let name = ReorderParser.topLevelFields[field]
            if seen[field] { throw .repeatedField(source, Place(container: .root), name) }
            seen[field] = true
            let place = Place(container: .root, field: name)
            switch field {
            case 0: feed = try scanner.readFeedName(place, limit: limits.feedNameBytes)
            case 1: order = try readIDs(place, name: "order", nonEmpty: true)
            case 2: moves = try readMoves(place)
            default: removals = try readIDs(place, name: "remove", nonEmpty: false)
            }
        }
        try scanner.closeTopLevel()
        if let order {
            if moves != nil || removals != nil {
                throw SyncError(
                    kind: .invalidData,
                    message:
                        "\(source): expected either \"order\" or \"moves\" and \"remove\", found both \"order\" and \"\(moves != nil ? "moves" : "remove")\"."
                )
            }
            return ReorderDocument(feed: feed, operations: .order(order))
        }
        guard moves != nil || removals != nil else {
            throw SyncError(
                kind: .invalidData,
                message:
                    "\(source): expected an \"order\", \"moves\" or \"remove\" field in the top-level object, found none."
            )
        }
        return ReorderDocument(feed: feed, operations: .edits(moves: moves ?? [], removals: removals ?? []))
    }

    /// An array of distinct ids (`null` gives `nil`).
    private mutating func readIDs(_ place: Place, name: StaticString, nonEmpty: Bool) throws(SyncError) -> [String]? {
        if try scanner.skipNull() { return nil }
        try scanner.openArray(place, expected: "an array of ids")
        var ids: [String] = []
        var finder = DuplicateFinder()
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            let element = Place(container: .element(name, ids.count))
            if ids.count >= limits.imagesPerFeed {
                throw .value(source, place, expected: "at most \(limits.imagesPerFeed) ids", found: "more")
            }
            let id = try scanner.readIdentifier(element, limit: limits.idBytes, expected: ReorderParser.idExpectation)!
            finder.append(id)
            ids.append(id)
        }
        if let (earlier, later) = finder.firstDuplicate(idAt: { ids[$0] }) {
            throw SyncError(
                kind: .invalidData,
                message:
                    "\(source): \(name)[\(later)] \(Display.quoted(ids[later])) is a duplicate of \(name)[\(earlier)].")
        }
        if nonEmpty && ids.isEmpty {
            throw .value(source, place, expected: "a non-empty array of ids", found: "an empty array")
        }
        return ids
    }

    /// The `"moves"` array (`null` gives `nil`).
    private mutating func readMoves(_ place: Place) throws(SyncError) -> [ReorderMove]? {
        if try scanner.skipNull() { return nil }
        try scanner.openArray(place, expected: "an array of move objects")
        var moves: [ReorderMove] = []
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            if moves.count >= limits.imagesPerFeed {
                throw .value(source, place, expected: "at most \(limits.imagesPerFeed) moves", found: "more")
            }
            let element = Place(container: .element("moves", moves.count))
            try scanner.openObject(element, expected: "a move object")
            moves.append(try readMove(element))
        }
        return moves
    }

    /// One move object whose `{` is consumed.
    private mutating func readMove(_ place: Place) throws(SyncError) -> ReorderMove {
        var id: String?
        var target: MoveTarget?
        var targetField: StaticString = ""
        var isFirst = true
        while let field = try scanner.nextField(isFirst: isFirst, names: ReorderParser.moveFields) {
            isFirst = false
            let name = field < ReorderParser.moveFields.count ? ReorderParser.moveFields[field] : ""
            switch field {
            case 0:
                if id != nil { throw .repeatedField(source, place, name) }
                id = try scanner.readIdentifier(
                    place.field(name), limit: limits.idBytes, expected: ReorderParser.idExpectation)
            case 1, 2, 3:
                if target != nil {
                    let found =
                        targetField.description == name.description
                        ? "two \"\(name)\" fields" : "both \"\(targetField)\" and \"\(name)\""
                    throw .value(
                        source, place, expected: "exactly one of \"before\", \"after\" or \"to\"", found: found)
                }
                targetField = name
                if field == 3 {
                    target = .index(
                        try scanner.readInteger(
                            place.field(name), in: 0...Int.max, expected: "a non-negative integer"))
                } else {
                    let other = try scanner.readIdentifier(
                        place.field(name), limit: limits.idBytes, expected: ReorderParser.idExpectation)!
                    target = field == 1 ? .before(other) : .after(other)
                }
            default:
                try scanner.skipValue(depth: 3)
            }
        }
        guard let id else { throw .missingField(source, place, "id") }
        guard let target else {
            throw .value(source, place, expected: "one of \"before\", \"after\" or \"to\"", found: "none")
        }
        switch target {
        case .before(let other) where other.utf8.elementsEqual(id.utf8),
            .after(let other) where other.utf8.elementsEqual(id.utf8):
            throw SyncError(
                kind: .moveOntoItself,
                message: "\(source): \(place.description): cannot move \(Display.quoted(id)) \(targetField) itself.")
        default:
            break
        }
        return ReorderMove(id: id, target: target, path: place.description)
    }
}
