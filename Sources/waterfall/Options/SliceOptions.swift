import ArgumentParser
import Waterfall

/// `--page N [--page-size P]` or `--offset O --limit L`: which images of a layout to answer.
struct SliceOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "The page number, from 0.")
    var page: Int?
    @Option(parsing: .unconditional, help: "Images per page with --page (default 50).")
    var pageSize: Int?
    @Option(parsing: .unconditional, help: "Index of the first image (with --limit).")
    var offset: Int?
    @Option(parsing: .unconditional, help: "How many images (with --offset).")
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
    var slice: (offset: Int, limit: Int) { flags.slice }

    /// "page 3" or "images from offset 120", for messages.
    var name: String { flags.name }
}

/// The values of the slice flags, and which images they mean.
struct SliceFlags: Equatable {
    var page: Int?
    var pageSize: Int?
    var offset: Int?
    var limit: Int?

    /// Images per page when --page-size is not given.
    static let defaultPageSize = 50

    /// Whether any of the flags was given.
    var isGiven: Bool {
        page != nil || pageSize != nil || offset != nil || limit != nil
    }

    func validate() throws {
        if (page != nil || pageSize != nil) && (offset != nil || limit != nil) {
            throw ValidationError("give either --page N [--page-size P] or --offset O --limit L, not both.")
        }
        if pageSize != nil && page == nil { throw ValidationError("--page-size goes with --page N.") }
        if (offset == nil) != (limit == nil) { throw ValidationError("--offset and --limit go together.") }
        if let page, page < 0 { throw ValidationError("--page must be 0 or more, got \(page).") }
        if let page, page > Int(Int32.max) { throw ValidationError("--page must be at most \(Int32.max), got \(page).") }
        if let pageSize, pageSize < 1 || pageSize > WaterfallService.maximumLimit {
            throw ValidationError("--page-size must be between 1 and \(WaterfallService.maximumLimit), got \(pageSize).")
        }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more, got \(offset).") }
        if let limit, limit < 1 || limit > WaterfallService.maximumLimit {
            throw ValidationError("--limit must be between 1 and \(WaterfallService.maximumLimit), got \(limit).")
        }
    }

    /// The images asked for: page 0 when no flag was given.
    var slice: (offset: Int, limit: Int) {
        if let offset, let limit { return (offset, limit) }
        let size = pageSize ?? Self.defaultPageSize
        return ((page ?? 0) * size, size)
    }

    /// "page 3" or "images from offset 120", for messages.
    var name: String {
        if let offset { return "images from offset \(offset)" }
        return "page \(page ?? 0)"
    }
}

extension SliceFlags: FastLaneFields {
    static func kind(of name: Substring) -> FastLaneOptionKind? {
        ["page", "page-size", "offset", "limit"].contains(name) ? .value(unconditional: true) : nil
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
