import ArgumentParser
import Waterfall

/// `--page N [--page-size P]` or `--offset O --limit L`: which images of a layout to answer.
struct SliceOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: .query(.page))
    var page: Int?
    @Option(parsing: .unconditional, help: .query(.pageSize))
    var pageSize: Int?
    @Option(parsing: .unconditional, help: .query(.offset))
    var offset: Int?
    @Option(parsing: .unconditional, help: .query(.limit))
    var limit: Int?

    /// The flags' values.
    var flags: SliceFlags {
        SliceFlags(page: page, pageSize: pageSize, offset: offset, limit: limit)
    }

    /// Whether any of the flags was given.
    var isGiven: Bool { flags.isGiven }

    func validate() throws {
        try flags.validate()
    }

    /// The images asked for: page 0 when no flag was given.
    var slice: (offset: Int, limit: Int) { flags.slice.range }

    /// "page 3" or "images from offset 120", for messages.
    var name: String { flags.name }
}

/// The values of the slice flags, and which images they mean.
struct SliceFlags: Equatable {
    var page: Int?
    var pageSize: Int?
    var offset: Int?
    var limit: Int?

    /// Whether any of the flags was given.
    var isGiven: Bool { slice.isGiven }

    /// The slice the flags give (the rules are the service's, shared with the HTTP API).
    var slice: PageSlice { PageSlice(page: page, pageSize: pageSize, offset: offset, limit: limit) }

    func validate() throws {
        do throws(WaterfallError) {
            try slice.validate()
        } catch {
            throw ValidationError(error.commandLineMessage)
        }
    }

    /// "page 3" or "images from offset 120", for messages.
    var name: String { slice.name }
}

extension SliceFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        switch name {
        case "page", "page-size", "offset", "limit": .value(unconditional: true)
        default: nil
        }
    }

    mutating func set(_ name: Substring, _ value: String?) -> Bool {
        switch name {
        case "page": assign(value, to: &page)
        case "page-size": assign(value, to: &pageSize)
        case "offset": assign(value, to: &offset)
        case "limit": assign(value, to: &limit)
        default: false
        }
    }
}
