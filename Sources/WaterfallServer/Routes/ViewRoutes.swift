import Foundation
import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// A feed's views (DESIGN section 20): list, read, save, remove; and every read of a feed
    /// (and its reorder: a move given in a view is a move in the feed) for a view, made from the
    /// feed's routes (``Route/forView()``).
    static let viewRoutes: [Route] =
        [
            Route(
                .get, "/v1/feeds/{feed}/views", "listViews",
                OperationDoc(
                    "A feed's views, with their rules and counts", tags: ["views"],
                    parameters: [.feed, .ifNoneMatch],
                    responses: [.ok("The views, by name.", .json("ViewList"), headers: [.eTag])],
                    problems: .feedRead)
            ) { request, path, server in
                try RequestQuery(request).finish()
                let feed = path["feed"]
                return try await server.runner.answer(for: request, path) { service in
                    let list = try await service.views(feed: feed)
                    return (try StableJSON.document(of: list), list.version)
                }.response(to: request)
            },
            Route(
                .get, "/v1/feeds/{feed}/views/{view}", "getView",
                OperationDoc(
                    "A view's rule and counts", tags: ["views"],
                    parameters: [.feed, .viewName, .ifNoneMatch],
                    responses: [.ok("The view.", .json("ListedView"), headers: [.eTag])],
                    problems: .feedRead)
            ) { request, path, server in
                try RequestQuery(request).finish()
                let (feed, name) = (path["feed"], path["view"])
                return try await server.runner.answer(for: request, path) { service in
                    let (view, version) = try await service.view(feed: feed, name: name)
                    return (try StableJSON.document(of: view), version)
                }.response(to: request)
            },
            Route(
                .put, "/v1/feeds/{feed}/views/{view}", "putView",
                OperationDoc(
                    "Save a view", tags: ["views"],
                    description:
                        "Saves the rule under the view's name (replacing a view of that name, whose images are chosen anew: another incarnation, so its old tags, cursors and streams are refused or reset) and chooses its images now; from then on every write to the feed keeps it current.",
                    parameters: [.feed, .viewName] + ParameterGroup.writePreconditions,
                    body: RequestBodyDoc(.json("ViewRule")),
                    responses: [.ok("The view as saved.", .json("ListedView"))],
                    problems: .feedUpload)
            ) { request, path, server in
                try RequestQuery(request).finish()
                _ = try FeedFormat(contentType: request.headers[.contentType], allowsLines: false)
                let bytes = try await RequestBodyBytes.collect(
                    request.body, limit: min(server.limits.maximumBodyBytes, ViewRule.maximumBytes))
                let rule = try WaterfallService.viewRule(json: bytes, source: "request body")
                let (feed, name) = (path["feed"], path["view"])
                let expected = try EntityTags.expectedState(of: request)
                let view = try await server.runner.write { service in
                    try await expected.applied(to: service).addView(feed: feed, name: name, rule: rule)
                }
                return await .json(ByteBuffer(bytes: try StableJSON.document(of: view)), to: request)
            },
            Route(
                .delete, "/v1/feeds/{feed}/views/{view}", "deleteView",
                OperationDoc(
                    "Remove a view (the feed's images stay)", tags: ["views"],
                    parameters: [.feed, .viewName] + ParameterGroup.writePreconditions,
                    responses: [.noContent("Removed.")],
                    problems: .feedWrite)
            ) { request, path, server in
                try RequestQuery(request).finish()
                let (feed, name) = (path["feed"], path["view"])
                let expected = try EntityTags.expectedState(of: request)
                try await server.runner.write {
                    try await expected.applied(to: $0).removeView(feed: feed, name: name)
                }
                return .noContent()
            },
        ]
        + (feedRoutes + queryRoutes + eventRoutes).filter { route in
            route.pattern.hasPrefix("/v1/feeds/{feed}/")
                && (route.method == .get || route.operationID == "reorderFeed")
        }.map { $0.forView() }
}
