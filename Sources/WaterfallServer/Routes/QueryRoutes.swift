import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// Pages, viewports and section indexes of a named or an inline layout, and the cover flow.
    static func queryRoutes(_ runner: ServiceRunner) -> [Route] {
        [
            Route(.get, "/v1/feeds/{feed}/layouts/{name}/page", "getLayoutPage") { request, path in
                try await page(request, path, layout: .named(path["name"]), runner)
            },
            Route(.get, "/v1/feeds/{feed}/layouts/{name}/viewport", "getLayoutViewport") { request, path in
                try await viewport(request, path, layout: .named(path["name"]), runner)
            },
            Route(.get, "/v1/feeds/{feed}/layouts/{name}/sections", "getLayoutSectionIndex") { request, path in
                try RequestQuery(request).finish()
                let (feed, name) = (path["feed"], path["name"])
                return try await runner.answer(for: request, path) { service in
                    let answer = try service.sectionIndex(feed: feed, layout: .named(name))
                    return (try StableJSON.document(of: answer), answer.revision)
                }.response(to: request)
            },
            Route(.get, "/v1/feeds/{feed}/section-index", "getSectionIndex") { request, path in
                var query = try RequestQuery(request)
                let source = LayoutSource.inline(try query.decode(AnyLayoutConfiguration.self))
                try query.finish()
                let feed = path["feed"]
                return try await runner.answer(for: request, path) { service in
                    let answer = try service.sectionIndex(feed: feed, layout: source)
                    return (try StableJSON.document(of: answer), answer.revision)
                }.response(to: request)
            },
            Route(.get, "/v1/feeds/{feed}/page", "getPage") { request, path in
                try await page(request, path, layout: nil, runner)
            },
            Route(.get, "/v1/feeds/{feed}/viewport", "getViewport") { request, path in
                try await viewport(request, path, layout: nil, runner)
            },
            Route(.get, "/v1/feeds/{feed}/coverflow", "getCoverFlow") { request, path in
                var query = try RequestQuery(request)
                let x = try query.double(.x)
                let viewportWidth = try query.double(.viewportWidth)
                let configuration = try query.decode(CoverFlowConfiguration.self)
                try query.finish()
                guard let x else { throw Problem.badRequest("x is required.") }
                guard let viewportWidth else { throw Problem.badRequest("viewportWidth is required.") }
                do throws(LayoutConfigurationError) {
                    try configuration.validate()
                } catch {
                    throw WaterfallError.invalidConfiguration(error)
                }
                let feed = path["feed"]
                return try await runner.answer(for: request, path) { service in
                    let answer = try service.coverFlow(feed: feed, configuration: configuration, x: x, viewportWidth: viewportWidth)
                    return (try StableJSON.document(of: answer), answer.revision)
                }.response(to: request)
            },
        ]
    }

    /// `…/page`: the slice from `offset`/`limit` or `page`/`pageSize`; an inline layout's
    /// configuration from the parameters named like its JSON keys.
    private static func page(_ request: Request, _ path: PathParameters, layout: LayoutSource?, _ runner: ServiceRunner) async throws -> Response {
        let feed = path["feed"]
        var query = try RequestQuery(request)
        let slice = PageSlice(
            page: try query.int(.page), pageSize: try query.int(.pageSize),
            offset: try query.int(.offset), limit: try query.int(.limit))
        let source = try layout ?? .inline(try query.decode(AnyLayoutConfiguration.self))
        try query.finish()
        try slice.validate()
        let range = slice.range
        return try await runner.answer(for: request, path) { service in
            let answer = try service.page(feed: feed, layout: source, offset: range.offset, limit: range.limit)
            return (try StableJSON.document(of: answer), answer.revision)
        }.response(to: request)
    }

    /// `…/viewport`: the band `y`, `height`; pinned headers with `pinHeaders=true` or a `pinOffset`.
    private static func viewport(_ request: Request, _ path: PathParameters, layout: LayoutSource?, _ runner: ServiceRunner) async throws -> Response {
        let feed = path["feed"]
        var query = try RequestQuery(request)
        let y = try query.double(.y)
        let height = try query.double(.height)
        let pinHeaders = try query.bool(.pinHeaders)
        let pinOffset = try query.double(.pinOffset)
        let source = try layout ?? .inline(try query.decode(AnyLayoutConfiguration.self))
        try query.finish()
        guard let y else { throw Problem.badRequest("y is required.") }
        guard let height else { throw Problem.badRequest("height is required.") }
        if pinHeaders == false && pinOffset != nil {
            throw Problem.badRequest("pinOffset pins the headers and cannot be combined with pinHeaders=false.")
        }
        let pin = pinOffset ?? (pinHeaders == true ? 0 : nil)
        return try await runner.answer(for: request, path) { service in
            let answer = try service.viewport(feed: feed, layout: source, y: y, height: height, pinOffset: pin)
            return (try StableJSON.document(of: answer), answer.revision)
        }.response(to: request)
    }
}
