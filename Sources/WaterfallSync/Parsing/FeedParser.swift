/// Turns the tokens of a feed file into a `FeedDocument`, checking every rule on the way.
///
/// One pass, no tree: each image is built from its fields and appended as soon as its object
/// closes, and the first error met ends the parse. Duplicate ids are looked for once the last
/// image is in (see `DuplicateFinder`): the one reported is the first repeat in file order,
/// but any other error in the file is reported before it.
struct FeedParser: ~Copyable {
    private var scanner: JSONScanner
    private let limits: SyncLimits
    /// The input's size when known, to size the image array once instead of doubling it.
    private let expectedBytes: Int?

    private var feed: String?
    private var sectionBy: SectionBy?
    private var timeZone: String?
    private var images: [FeedImage] = []
    private var imageIDs = DuplicateFinder()
    /// For NDJSON, each image's line, to name both lines of a duplicate.
    private var imageLines: [Int] = []
    private var sectionNames: [String] = []
    private var sectionIndex = ExactStringTable()
    /// For each entry of `sectionNames`, its position in `declared`, or -1.
    private var declaredPositions: [Int32] = []
    private var declared: [FeedSection] = []
    private var hasReserved = false
    /// The section of the last image that named one by string, or -1.
    private var lastSection = -1

    private static let topLevelFields = FieldNames(["feed", "sections", "images", "sectionBy", "timeZone"])
    private static let imageFields = FieldNames([
        "id", "width", "height", "url", "title", "section", "span", "takenAt", "placeholder", "color", "renditions",
        "urlTemplate", "tags",
    ])
    /// `imageFields`, held here so the per-image loop does not go through a lazy global.
    private let imageFields = FeedParser.imageFields
    private static let sectionFields = FieldNames(["id", "title"])
    private static let renditionFields = FieldNames(["width", "url"])
    private static let sizeExpectation: StaticString = "an integer from 1 to 1000000"
    private static let idExpectation: StaticString = "a non-empty string or an integer"

    init(scanner: consuming JSONScanner, limits: SyncLimits, expectedBytes: Int?) {
        self.scanner = scanner
        self.limits = limits
        self.expectedBytes = expectedBytes
    }

    private var source: String { scanner.source }

    /// Parses the whole input in `format`.
    consuming func parse(_ format: FeedFormat) throws(SyncError) -> FeedDocument {
        switch format {
        case .json: try parseJSON()
        case .ndjson: try parseNDJSON()
        }
        try checkDuplicateIDs(isNDJSON: format == .ndjson)
        orderSections()
        return FeedDocument(
            feed: feed, declaredSections: declared, sectionNames: sectionNames, images: images,
            sectionBy: sectionBy, timeZone: timeZone)
    }

    // MARK: Files

    private mutating func parseJSON() throws(SyncError) {
        try scanner.openTopLevelObject()
        var seen = [false, false, false, false, false]
        var isFirst = true
        while let field = try scanner.nextField(isFirst: isFirst, names: FeedParser.topLevelFields) {
            isFirst = false
            guard field < seen.count else {
                try scanner.skipValue(depth: 1)
                continue
            }
            let name = FeedParser.topLevelFields[field]
            if seen[field] { throw .repeatedField(source, Place(container: .root), name) }
            seen[field] = true
            let place = Place(container: .root, field: name)
            switch field {
            case 0: feed = try scanner.readFeedName(place, limit: limits.feedNameBytes)
            case 1: try parseSections(place)
            case 2: try parseImages(place)
            case 3: sectionBy = try readSectionBy(place)
            default: timeZone = try readTimeZone(place)
            }
        }
        guard seen[2] else { throw .missingField(source, Place(container: .root), "images") }
        try scanner.closeTopLevel()
    }

    private mutating func parseNDJSON() throws(SyncError) {
        scanner.lineBreakEndsValue = true
        try scanner.skipByteOrderMark()
        while let byte = try scanner.skipWhitespace() {
            if byte == 0x0A {
                scanner.noteLineBreak(at: scanner.pos)
                scanner.pos += 1
                continue
            }
            let line = scanner.line
            let place = Place(container: .line(line))
            try checkImageCount()
            try scanner.openObject(place, expected: "an image object")
            try parseImage(place, depth: 1)
            imageLines.append(line)
            guard let next = try scanner.skipWhitespace() else { break }
            guard next == 0x0A else {
                throw scanner.syntaxError(expected: "the end of the line after the image object")
            }
        }
        if images.isEmpty {
            let found = scanner.offset(of: scanner.pos) == 0 ? "an empty file" : "only blank lines"
            throw SyncError(
                kind: .invalidData, message: "\(source): expected at least one image object, found \(found).")
        }
    }

    // MARK: Sections

    private mutating func parseSections(_ place: Place) throws(SyncError) {
        if try scanner.skipNull() { return }
        try scanner.openArray(place, expected: "an array of section objects")
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            let element = Place(container: .element("sections", declared.count))
            try scanner.openObject(element, expected: "a section object")
            var id: String?
            var title: String?
            var seenTitle = false
            var isFirstField = true
            while let field = try scanner.nextField(isFirst: isFirstField, names: FeedParser.sectionFields) {
                isFirstField = false
                switch field {
                case 0:
                    if id != nil { throw .repeatedField(source, element, "id") }
                    id = try scanner.readIdentifier(
                        element.field("id"), limit: limits.sectionIdBytes, expected: FeedParser.idExpectation)
                case 1:
                    if seenTitle { throw .repeatedField(source, element, "title") }
                    seenTitle = true
                    title = try scanner.readText(element.field("title"), limit: limits.titleBytes)
                default:
                    try scanner.skipValue(depth: 3)
                }
            }
            guard let id else { throw .missingField(source, element, "id") }
            let index = internSection(id)
            let earlier = declaredPositions[index]
            if earlier >= 0 {
                throw SyncError(
                    kind: .invalidData,
                    message:
                        "\(source): sections[\(declared.count)].id \(Display.quoted(id)) is a duplicate of sections[\(earlier)].id."
                )
            }
            declaredPositions[index] = Int32(declared.count)
            declared.append(FeedSection(id: id, title: title))
        }
    }

    /// An image's `"section"`: the index of the named section (added when new), or `nil` for
    /// `null`. Images usually come grouped by section, so the previous image's section is tried
    /// first, before any hashing or string creation.
    private mutating func readSectionReference(_ place: Place) throws(SyncError) -> Int32? {
        let expected: StaticString = "a non-empty string, an integer or null"
        let limit = limits.sectionIdBytes
        let start = try scanner.valueStart(expected: expected)
        guard start == .string else {
            guard let name = try scanner.readIdentifier(place, limit: limit, expected: expected, allowsNull: true)
            else { return nil }
            return Int32(internSection(name))
        }
        let string = try scanner.scanString(keep: limit)
        if string.length > 0, string.length <= limit, !string.hasControl, lastSection >= 0,
            JSONBytes.equal(sectionNames[lastSection], string.bytes)
        {
            return Int32(lastSection)
        }
        let name = try scanner.checkedName(string, place, limit: limit, expected: expected)
        lastSection = internSection(name)
        return Int32(lastSection)
    }

    /// The index of section `name` in `sectionNames`, adding it when new.
    private mutating func internSection(_ name: String) -> Int {
        var name = name
        let position = sectionNames.count
        let existing = name.withUTF8 { bytes in
            sectionIndex.insert(bytes, position: position, in: sectionNames, keyAt: { $0 })
        }
        if let existing { return existing }
        sectionNames.append(name)
        declaredPositions.append(-1)
        return position
    }

    /// Puts the declared sections first, in their order, then the others in order of first
    /// use; images' section indices follow.
    private mutating func orderSections() {
        var mapping = [Int32](repeating: 0, count: sectionNames.count)
        var nextUndeclared = Int32(declared.count)
        var isIdentity = true
        for (index, position) in declaredPositions.enumerated() {
            if position >= 0 {
                mapping[index] = position
            } else {
                mapping[index] = nextUndeclared
                nextUndeclared += 1
            }
            if mapping[index] != Int32(index) { isIdentity = false }
        }
        guard !isIdentity else { return }
        var names = sectionNames
        for (index, name) in sectionNames.enumerated() { names[Int(mapping[index])] = name }
        sectionNames = names
        for index in images.indices {
            if let section = images[index].section { images[index].section = mapping[Int(section)] }
        }
    }

    // MARK: Images

    private mutating func parseImages(_ place: Place) throws(SyncError) {
        try scanner.openArray(place, expected: "an array of image objects")
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            try checkImageCount()
            let element = Place(container: .element("images", images.count))
            try scanner.openObject(element, expected: "an image object")
            try parseImage(element, depth: 3)
        }
    }

    private mutating func checkImageCount() throws(SyncError) {
        if images.count >= limits.imagesPerFeed {
            throw .value(
                source, Place(container: .root, field: "images"),
                expected: "at most \(limits.imagesPerFeed) images", found: "more")
        }
        if !hasReserved && images.count == 1024 { reserveImages() }
    }

    /// Sizes the image array from the average size of the first images, so a large feed is
    /// allocated about once instead of being copied at every doubling.
    private mutating func reserveImages() {
        hasReserved = true
        guard let expectedBytes else { return }
        let consumed = max(1, scanner.offset(of: scanner.pos))
        let estimate = Double(expectedBytes) / Double(consumed) * Double(images.count) * 1.05
        let capacity = min(Int(estimate) + 16, limits.imagesPerFeed)
        if capacity > images.capacity {
            images.reserveCapacity(capacity)
            imageIDs.reserveCapacity(capacity)
            if !imageLines.isEmpty || scanner.lineBreakEndsValue { imageLines.reserveCapacity(capacity) }
        }
    }

    /// Parses one image object whose `{` is consumed and appends it.
    private mutating func parseImage(_ place: Place, depth: Int) throws(SyncError) {
        var id: String?
        var width: Int32 = 0
        var height: Int32 = 0
        var url: String?
        var title: String?
        var section: Int32?
        var span = Span.normal
        var takenAt: Int64?
        var placeholder: String?
        var color: String?
        var renditions: Renditions?
        var tags: [String] = []
        var seen: UInt16 = 0
        var isFirst = true
        while let field = try scanner.nextField(isFirst: isFirst, names: imageFields) {
            isFirst = false
            if field < 13 {
                let bit: UInt16 = 1 << field
                if seen & bit != 0 { throw .repeatedField(source, place, imageFields[field]) }
                seen |= bit
            }
            switch field {
            case 0:
                id = try scanner.readIdentifier(
                    place.field("id"), limit: limits.idBytes, expected: FeedParser.idExpectation)
            case 1:
                width = Int32(
                    try scanner.readInteger(
                        place.field("width"), in: 1...1_000_000, expected: FeedParser.sizeExpectation))
            case 2:
                height = Int32(
                    try scanner.readInteger(
                        place.field("height"), in: 1...1_000_000, expected: FeedParser.sizeExpectation))
            case 3:
                url = try scanner.readText(place.field("url"), limit: limits.urlBytes)
            case 4:
                title = try scanner.readText(place.field("title"), limit: limits.titleBytes)
            case 5:
                section = try readSectionReference(place.field("section"))
            case 6:
                span = try readSpan(place.field("span"))
            case 7:
                takenAt = try readTakenAt(place.field("takenAt"))
            case 8:
                placeholder = try readPlaceholder(place.field("placeholder"))
            case 9:
                color = try readColor(place.field("color"))
            case 10:
                if let list = try readRenditions(place.field("renditions"), depth: depth + 1) {
                    if case .template = renditions {
                        throw .value(source, place, expected: "renditions or urlTemplate", found: "both")
                    }
                    renditions = list
                }
            case 11:
                if let template = try readURLTemplate(place.field("urlTemplate")) {
                    if case .list = renditions {
                        throw .value(source, place, expected: "renditions or urlTemplate", found: "both")
                    }
                    renditions = template
                }
            case 12:
                tags = try readTags(place.field("tags"))
            default:
                try scanner.skipValue(depth: depth)
            }
        }
        guard let id else { throw .missingField(source, place, "id") }
        guard seen & 2 != 0 else { throw .missingField(source, place, "width") }
        guard seen & 4 != 0 else { throw .missingField(source, place, "height") }
        imageIDs.append(id)
        images.append(
            FeedImage(
                id: id, width: width, height: height, url: url, title: title, section: section, span: span,
                takenAt: takenAt, placeholder: placeholder, color: color, renditions: renditions, tags: tags))
    }

    /// An image's `"tags"`: an array of at most ``ImageTags/maximumCount`` strings of 1 to
    /// ``ImageTags/maximumBytes`` bytes without control characters, none given twice; null or
    /// `[]` is none.
    private mutating func readTags(_ place: Place) throws(SyncError) -> [String] {
        if try scanner.skipNull() { return [] }
        try scanner.openArray(place, expected: "an array of tags (strings), or null")
        let expected: StaticString = "a tag: a non-empty string"
        var tags: [String] = []
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            let element = place.element(tags.count)
            guard tags.count < ImageTags.maximumCount else {
                throw .value(source, place, expected: "at most \(ImageTags.maximumCount) tags", found: "more")
            }
            let start = try scanner.valueStart(expected: expected)
            guard start == .string else { throw scanner.wrongValue(start, element, expected: expected) }
            let tag = try scanner.checkedName(
                scanner.scanString(keep: ImageTags.maximumBytes), element, limit: ImageTags.maximumBytes,
                expected: expected)
            if ImageTags.contains(tags, tag) {
                throw .value(source, element, expected: "a tag not given before", found: Display.quoted(tag) + " again")
            }
            tags.append(tag)
        }
        return tags
    }

    private mutating func readSpan(_ place: Place) throws(SyncError) -> Span {
        try readString(place, expected: "\"full\", \"normal\" or null") { string in
            string.equals("full") ? .full : string.equals("normal") ? .normal : nil
        } ?? .normal
    }

    /// An image's `"takenAt"`: an RFC 3339 date-time with an offset (see ``TakenAt``), or null.
    private mutating func readTakenAt(_ place: Place) throws(SyncError) -> Int64? {
        try readString(
            place, expected: "an RFC 3339 date-time with an offset such as \"2017-11-14T16:28:13+01:00\", or null"
        ) { string in
            string.isComplete ? TakenAt.milliseconds(parsing: string.bytes) : nil
        }
    }

    /// An image's `"placeholder"`: a ThumbHash or BlurHash, 1 to 64 printable ASCII
    /// characters (no spaces), or null.
    private mutating func readPlaceholder(_ place: Place) throws(SyncError) -> String? {
        try readString(
            place, expected: "a ThumbHash or BlurHash of 1 to 64 printable ASCII characters without spaces, or null"
        ) { string in
            string.isComplete && (1...64).contains(string.length)
                && string.bytes.allSatisfy { (0x21...0x7E).contains($0) } ? string.string : nil
        }
    }

    /// An image's `"color"`: `#rrggbb` (hex digits in either case, kept in lower case), or null.
    private mutating func readColor(_ place: Place) throws(SyncError) -> String? {
        try readString(place, expected: "a colour \"#rrggbb\" such as \"#a0b1c2\", or null") { string in
            guard string.length == 7, string.bytes[0] == UInt8(ascii: "#"),
                string.bytes.dropFirst().allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x46).contains($0 & 0xDF) })
            else { return nil }
            return string.string.lowercased()
        }
    }

    /// An image's `"urlTemplate"`: a URL with `{width}`, without control characters, within
    /// the URL limit; or null.
    private mutating func readURLTemplate(_ place: Place) throws(SyncError) -> Renditions? {
        let expected: StaticString = "a URL containing \"{width}\", or null"
        guard let text = try scanner.readText(place, limit: limits.urlBytes) else { return nil }
        guard text.contains(Renditions.widthPlaceholder),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .value(source, place, expected: "\(expected)", found: Display.quoted(text))
        }
        return .template(text)
    }

    /// An image's `"renditions"`: an array of `{"width", "url"}` objects, widths 1…1,000,000
    /// strictly ascending, at most ``Renditions/maximumCount``; null or `[]` is none.
    private mutating func readRenditions(_ place: Place, depth: Int) throws(SyncError) -> Renditions? {
        if try scanner.skipNull() { return nil }
        try scanner.openArray(place, expected: "an array of rendition objects {\"width\", \"url\"}, or null")
        var renditions: [Rendition] = []
        var isFirst = true
        while try scanner.nextElement(isFirst: isFirst) {
            isFirst = false
            let element = place.element(renditions.count)
            guard renditions.count < Renditions.maximumCount else {
                throw .value(source, place, expected: "at most \(Renditions.maximumCount) renditions", found: "more")
            }
            try scanner.openObject(element, expected: "a rendition object {\"width\", \"url\"}")
            var width: Int32?
            var url: String?
            var isFirstField = true
            while let field = try scanner.nextField(isFirst: isFirstField, names: FeedParser.renditionFields) {
                isFirstField = false
                switch field {
                case 0:
                    if width != nil { throw .repeatedField(source, element, "width") }
                    let value = Int32(
                        try scanner.readInteger(
                            place.element(renditions.count, field: "width"), in: 1...1_000_000,
                            expected: FeedParser.sizeExpectation))
                    if let previous = renditions.last, value <= previous.width {
                        throw .value(
                            source, place.element(renditions.count, field: "width"),
                            expected: "a width above \(previous.width) (widths strictly ascending)", found: "\(value)")
                    }
                    width = value
                case 1:
                    if url != nil { throw .repeatedField(source, element, "url") }
                    url = try readRenditionURL(place.element(renditions.count, field: "url"))
                default:
                    try scanner.skipValue(depth: depth + 1)
                }
            }
            guard let width else { throw .missingField(source, element, "width") }
            guard let url else { throw .missingField(source, element, "url") }
            renditions.append(Rendition(width: width, url: url))
        }
        return renditions.isEmpty ? nil : .list(renditions)
    }

    /// A rendition's `"url"`: a non-empty string without control characters within the URL
    /// limit.
    private mutating func readRenditionURL(_ place: Place) throws(SyncError) -> String {
        let expected: StaticString = "a non-empty URL"
        let start = try scanner.valueStart(expected: expected)
        guard start == .string else { throw scanner.wrongValue(start, place, expected: expected) }
        let string = try scanner.scanString(keep: limits.urlBytes)
        return try scanner.checkedName(string, place, limit: limits.urlBytes, expected: expected)
    }

    /// The feed's `"sectionBy"`: `"day"`, `"month"`, `"year"`, `"none"` or null.
    private mutating func readSectionBy(_ place: Place) throws(SyncError) -> SectionBy? {
        try readString(place, expected: "\"day\", \"month\", \"year\", \"none\" or null") { string in
            string.isComplete ? SectionBy(rawValue: string.string) : nil
        }
    }

    /// The feed's `"timeZone"`: an IANA time zone name (see ``TimeZoneName``), or null.
    private mutating func readTimeZone(_ place: Place) throws(SyncError) -> String? {
        try readString(place, expected: "an IANA time zone name such as \"Europe/Paris\" or \"UTC\", or null") {
            string in
            string.isComplete && !string.hasControl && TimeZoneName.zone(named: string.string) != nil
                ? string.string : nil
        }
    }

    /// A string that `parse` reads (`nil` when it refuses it: the error names `expected` and
    /// quotes the string), or `null` (`nil`).
    private mutating func readString<Value>(
        _ place: Place, expected: StaticString, _ parse: (ScannedString) -> Value?
    ) throws(SyncError) -> Value? {
        let start = try scanner.valueStart(expected: expected)
        switch start {
        case .string:
            let string = try scanner.scanString(keep: JSONScanner.displayBytes)
            if let value = parse(string) { return value }
            throw .value(
                source, place, expected: "\(expected)",
                found: string.length == 0 ? "an empty string" : Display.quoted(string))
        case .null:
            try scanner.scanLiteral("null")
            return nil
        default:
            throw scanner.wrongValue(start, place, expected: expected)
        }
    }

    /// Rejects the first image (in file order) whose id an earlier image has.
    private mutating func checkDuplicateIDs(isNDJSON: Bool) throws(SyncError) {
        var finder = DuplicateFinder()
        swap(&finder, &imageIDs)
        let duplicate = finder.firstDuplicate(idAt: { [images] in images[$0].id })
        if let (earlier, later) = duplicate {
            throw self.duplicate(earlier: earlier, later: later, isNDJSON: isNDJSON)
        }
    }

    private func duplicate(earlier: Int, later: Int, isNDJSON: Bool) -> SyncError {
        let id = Display.quoted(images[later].id)
        let message =
            isNDJSON
            ? "\(source): line \(imageLines[later]): id \(id) is a duplicate of the id on line \(imageLines[earlier])."
            : "\(source): images[\(later)].id \(id) is a duplicate of images[\(earlier)].id."

        return SyncError(kind: .invalidData, message: message)
    }
}
