/// Which images of a layout a page query asks for: page `page` of `pageSize` images, or `limit`
/// images from `offset`. Every front end fills one from its own parameters and the rules live
/// here: the two styles do not mix; a missing `page` or `offset` is 0, a missing `pageSize` or
/// `limit` is ``defaultPageSize``; nothing given is page 0.
public struct PageSlice: Hashable, Sendable {
    public var page: Int?
    public var pageSize: Int?
    public var offset: Int?
    public var limit: Int?

    /// Images per page when no size is given.
    public static let defaultPageSize = 50

    public init(page: Int? = nil, pageSize: Int? = nil, offset: Int? = nil, limit: Int? = nil) {
        self.page = page
        self.pageSize = pageSize
        self.offset = offset
        self.limit = limit
    }

    /// Whether any of the four values was given.
    public var isGiven: Bool {
        self != PageSlice()
    }

    /// Checks the values against each other and their ranges.
    /// - Throws: ``WaterfallError`` `conflictingValues` or `invalidValue` naming the parameter.
    public func validate() throws(WaterfallError) {
        if page != nil || pageSize != nil, offset != nil || limit != nil {
            throw .conflictingValues(page != nil ? .page : .pageSize, offset != nil ? .offset : .limit)
        }
        if let page, page < 0 { throw .invalidValue(.page, "must be 0 or more, got \(page).") }
        if let page, page > Int(Int32.max) { throw .invalidValue(.page, "must be at most \(Int32.max), got \(page).") }
        if let pageSize, pageSize < 1 || pageSize > WaterfallService.maximumLimit {
            throw .invalidValue(.pageSize, "must be between 1 and \(WaterfallService.maximumLimit), got \(pageSize).")
        }
        if let page, page * (pageSize ?? Self.defaultPageSize) > WaterfallService.maximumOffset {
            throw .invalidValue(
                .page,
                "\(page) of \(pageSize ?? Self.defaultPageSize) images starts past the largest offset, \(WaterfallService.maximumOffset)."
            )
        }
        try WaterfallService.validateSlice(offset: offset ?? 0, limit: limit ?? Self.defaultPageSize)
    }

    /// The images asked for, as an offset and a count (of values that ``validate()`` accepts).
    public var range: (offset: Int, limit: Int) {
        if offset != nil || limit != nil { return (offset ?? 0, limit ?? Self.defaultPageSize) }
        let size = pageSize ?? Self.defaultPageSize
        return ((page ?? 0) * size, size)
    }

    /// "page 3" or "images from offset 120", for messages.
    public var name: String {
        if offset != nil || limit != nil { return "images from offset \(offset ?? 0)" }
        return "page \(page ?? 0)"
    }
}
