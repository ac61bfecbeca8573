import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// Pages, viewports and section indexes of a named or an inline layout, and the cover flow.
    static let queryRoutes: [Route] = [
        Route(
            .get, "/v1/feeds/{feed}/layouts/{name}/page", "getLayoutPage",
            OperationDoc(
                "A page of frames of a named layout", tags: ["queries"],
                description:
                    "Give either `offset` and `limit`, or `page` and `pageSize`; mixing the two styles is a 400.",
                parameters: [.feed, .layoutName] + ParameterGroup.pageSlice + [.ifNoneMatch],
                responses: [.ok("The page.", .json("Page"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await page(request, path, layout: .named(path["name"]), server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/layouts/{name}/viewport", "getLayoutViewport",
            OperationDoc(
                "What a band of a named layout shows", tags: ["queries"],
                parameters: [.feed, .layoutName] + ParameterGroup.viewportBand + [.ifNoneMatch],
                responses: [.ok("The viewport.", .json("Viewport"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await viewport(request, path, layout: .named(path["name"]), server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/layouts/{name}/locate", "getLayoutLocate",
            OperationDoc(
                "Where an image is in a named layout", tags: ["queries"],
                description:
                    "By `id`, or by `date` (the first image, in catalog order, taken at or before that moment in the feed's time zone): the image's catalog index, section and frame, and the offset of the page of `limit` images that holds it, so that a client keeps its place across a reload, a deep link, a change of column count or an insert above it. The same JSON as `waterfall locate --json`. An unknown id, or a date before every dated image, is a 404.",
                parameters: [.feed, .layoutName] + ParameterGroup.locate + [.ifNoneMatch],
                responses: [.ok("Where the image is.", .json("Location"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await locate(request, path, layout: .named(path["name"]), server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/locate", "getLocate",
            OperationDoc(
                "Where an image is in an inline layout", tags: ["queries"],
                description:
                    "As `/v1/feeds/{feed}/layouts/{name}/locate`, for a layout configuration (of either kind) given inline as query parameters named like its JSON keys; the answer's `layout` is null.",
                parameters: [.feed] + ParameterGroup.locate + ParameterGroup.inlineLayout + [.ifNoneMatch],
                responses: [.ok("Where the image is.", .json("Location"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await locate(request, path, layout: nil, server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/layouts/{name}/sections", "getLayoutSectionIndex",
            OperationDoc(
                "The section index of a named layout", tags: ["queries"],
                description:
                    "Every section of the feed in catalog order, empty ones included, with the catalog index of its first image (of the next image when it is empty), its image count, where it begins (`y`, above its header) and how tall it is down to where the next section begins (below its footer): what a timeline scrubber needs. The same JSON as `waterfall sections --layout NAME --json`. Answered from the server's in-memory copy of the feed without reading an image row, else from the layout cache.",
                parameters: [.feed, .layoutName, .ifNoneMatch],
                responses: [.ok("The section index.", .json("SectionIndex"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let (feed, name) = (path["feed"], path["name"])
            return try await sectionIndex(request, path, feed: feed, layout: .named(name), server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/section-index", "getSectionIndex",
            OperationDoc(
                "The section index of an inline layout", tags: ["queries"],
                description:
                    #"The section index of a layout given inline as query parameters named like its JSON keys (of either kind), as `/v1/feeds/{feed}/layouts/{name}/sections` answers it for a named layout: every section of the feed in catalog order, empty ones included, with the catalog index of its first image, its image count, where it begins (`y`) and how tall it is. The web gallery's scrubber reads it for its "fit the window" layouts."#,
                parameters: [.feed] + ParameterGroup.inlineLayout + [.ifNoneMatch],
                responses: [.ok("The section index.", .json("SectionIndex"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            var query = try RequestQuery(request)
            let source = LayoutSource.inline(try query.decode(AnyLayoutConfiguration.self))
            try query.finish()
            return try await sectionIndex(request, path, feed: path["feed"], layout: source, server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/page", "getPage",
            OperationDoc(
                "A page of frames of an inline layout", tags: ["queries"],
                description:
                    "The layout configuration (of either kind) is given inline as query parameters named like its JSON keys; the answer's `layout` is null. Give either `offset` and `limit`, or `page` and `pageSize`; mixing the two styles is a 400.",
                parameters: [.feed] + ParameterGroup.pageSlice + ParameterGroup.inlineLayout + [.ifNoneMatch],
                responses: [.ok("The page.", .json("Page"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await page(request, path, layout: nil, server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/viewport", "getViewport",
            OperationDoc(
                "What a band of an inline layout shows", tags: ["queries"],
                description:
                    "The layout configuration (of either kind) is given inline as query parameters named like its JSON keys; the answer's `layout` is null.",
                parameters: [.feed] + ParameterGroup.viewportBand + ParameterGroup.inlineLayout + [.ifNoneMatch],
                responses: [.ok("The viewport.", .json("Viewport"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try await viewport(request, path, layout: nil, server.runner)
        },
        Route(
            .get, "/v1/feeds/{feed}/coverflow", "getCoverFlow",
            OperationDoc(
                "The cover-flow layout at an offset, with its scaling and snapping", tags: ["queries"],
                parameters: [.feed] + ParameterGroup.coverFlow + [.ifNoneMatch],
                responses: [.ok("The visible images.", .json("CoverFlow"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            var query = try RequestQuery(request)
            let x = try query.double(.x)
            let viewportWidth = try query.double(.viewportWidth)
            let dpr = try query.double(.dpr)
            let configuration = try query.decode(CoverFlowConfiguration.self)
            try query.finish()
            if let dpr { try DevicePixelRatio.validate(dpr) }
            guard let x else { throw Problem.badRequest("x is required.") }
            guard let viewportWidth else { throw Problem.badRequest("viewportWidth is required.") }
            do throws(LayoutConfigurationError) {
                try configuration.validate()
            } catch {
                throw WaterfallError.invalidConfiguration(error)
            }
            let feed = path["feed"]
            return try await server.runner.answer(for: request, path) { service in
                var answer = try await service.coverFlow(
                    feed: feed, configuration: configuration, x: x, viewportWidth: viewportWidth)
                if let dpr { answer = answer.choosingRenditions(dpr: dpr) }
                return (try StableJSON.document(of: answer), answer.version)
            }.response(to: request)
        },
    ]

    /// `…/page`: the slice from `offset`/`limit` or `page`/`pageSize`; an inline layout's
    /// configuration from the parameters named like its JSON keys.
    private static func page(_ request: Request, _ path: PathParameters, layout: LayoutSource?, _ runner: ServiceRunner)
        async throws -> Response
    {
        let feed = path["feed"]
        var query = try RequestQuery(request)
        let slice = PageSlice(
            page: try query.int(.page), pageSize: try query.int(.pageSize),
            offset: try query.int(.offset), limit: try query.int(.limit))
        let dpr = try query.double(.dpr)
        let source = try layout ?? .inline(try query.decode(AnyLayoutConfiguration.self))
        try query.finish()
        try slice.validate()
        if let dpr { try DevicePixelRatio.validate(dpr) }
        let range = slice.range
        @Sendable func encoded(_ page: LayoutPage) throws -> ([UInt8], FeedVersion?) {
            (try StableJSON.document(of: dpr.map(page.choosingRenditions(dpr:)) ?? page), page.version)
        }
        return try await runner.answer(for: request, path) { service in
            try await encoded(service.page(feed: feed, layout: source, offset: range.offset, limit: range.limit))
        }.response(to: request)
    }

    /// `…/locate`: where an image is, by `id` or `date`; an inline layout's configuration from
    /// the parameters named like its JSON keys.
    private static func locate(
        _ request: Request, _ path: PathParameters, layout: LayoutSource?, _ runner: ServiceRunner
    ) async throws -> Response {
        let feed = path["feed"]
        var query = try RequestQuery(request)
        let id = query.string(.id)
        let date = query.string(.date)
        let limit = try query.int(.locateLimit) ?? WaterfallService.defaultLocateLimit
        let source = try layout ?? .inline(try query.decode(AnyLayoutConfiguration.self))
        try query.finish()
        let target: LocateTarget
        switch (id, date) {
        case (let id?, nil): target = .id(id)
        case (nil, let date?): target = .date(date)
        case (nil, nil): throw Problem.badRequest("id or date is required.")
        case (_?, _?): throw Problem.badRequest("id and date cannot be given together.")
        }
        return try await runner.answer(for: request, path) { service in
            let located = try await service.locate(feed: feed, layout: source, target, limit: limit)
            return (try StableJSON.document(of: located), located.version)
        }.response(to: request)
    }

    /// `…/sections` and `…/section-index`.
    private static func sectionIndex(
        _ request: Request, _ path: PathParameters, feed: String, layout: LayoutSource, _ runner: ServiceRunner
    ) async throws -> Response {
        @Sendable func encoded(_ index: SectionIndex) throws -> ([UInt8], FeedVersion?) {
            (try StableJSON.document(of: index), index.version)
        }
        return try await runner.answer(for: request, path) { service in
            try await encoded(service.sectionIndex(feed: feed, layout: layout))
        }.response(to: request)
    }

    /// `…/viewport`: the band `y`, `height`; pinned headers with `pinHeaders=true` or a `pinOffset`.
    private static func viewport(
        _ request: Request, _ path: PathParameters, layout: LayoutSource?, _ runner: ServiceRunner
    ) async throws -> Response {
        let feed = path["feed"]
        var query = try RequestQuery(request)
        let y = try query.double(.y)
        let height = try query.double(.height)
        let pinHeaders = try query.bool(.pinHeaders)
        let pinOffset = try query.double(.pinOffset)
        let anchor = query.string(.anchor)
        let anchorY = try query.double(.anchorY)
        let dpr = try query.double(.dpr)
        let source = try layout ?? .inline(try query.decode(AnyLayoutConfiguration.self))
        try query.finish()
        if let dpr { try DevicePixelRatio.validate(dpr) }
        guard let height else { throw Problem.badRequest("height is required.") }
        if pinHeaders == false && pinOffset != nil {
            throw Problem.badRequest("pinOffset pins the headers and cannot be combined with pinHeaders=false.")
        }
        let pin = pinOffset ?? (pinHeaders == true ? 0 : nil)
        @Sendable func encoded(_ viewport: ViewportPage) throws -> ([UInt8], FeedVersion?) {
            (try StableJSON.document(of: dpr.map(viewport.choosingRenditions(dpr:)) ?? viewport), viewport.version)
        }
        if let anchor {
            guard y == nil else {
                throw Problem.badRequest(
                    "y and anchor cannot be given together: the anchor decides where the band starts.")
            }
            return try await runner.answer(for: request, path) { service in
                try await encoded(
                    service.viewport(
                        feed: feed, layout: source, anchor: anchor, anchorY: anchorY ?? 0, height: height,
                        pinOffset: pin))
            }.response(to: request)
        }
        guard anchorY == nil else { throw Problem.badRequest("anchorY goes with anchor.") }
        guard let y else { throw Problem.badRequest("y is required.") }
        return try await runner.answer(for: request, path) { service in
            try await encoded(service.viewport(feed: feed, layout: source, y: y, height: height, pinOffset: pin))
        }.response(to: request)
    }
}
