import Foundation
import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// Share links (DESIGN section 20): made, listed and removed with a key; and the links' own
    /// paths, `/s/{token}` and every read of a feed under it (``Route/forShare()``), open to
    /// anyone holding one.
    static let shareRoutes: [Route] =
        [
            Route(
                .post, "/v1/shares", "createShare",
                OperationDoc(
                    "Make a share link", tags: ["shares"],
                    description:
                        #"The body names what the link hands out: `{"feed", "view", "layout", "expires"}` (`view` and `layout` optional; `expires` a duration such as `7d` or an ISO 8601 time; without it, never). The answer's `path` is shown this once: only the token's hash is kept. Needs a write key that covers the feed."#,
                    body: RequestBodyDoc(.json("ShareRequest")),
                    responses: [.created("The link.", .json("NewShare"))],
                    problems: .feedUpload)
            ) { request, path, server in
                try RequestQuery(request).finish()
                _ = try FeedFormat(contentType: request.headers[.contentType], allowsLines: false)
                let bytes = try await RequestBodyBytes.collect(request.body, limit: 64 * 1024)
                let body: ShareRequest
                do {
                    body = try JSONDecoder().decode(ShareRequest.self, from: Data(bytes))
                } catch {
                    throw Problem(
                        .unprocessableContent,
                        #"request body: expected {"feed": NAME, "view": NAME, "layout": NAME, "expires": WHEN}, with feed a string and the others strings or absent."#
                    )
                }
                guard path.scope.covers(body.feed) else { throw WaterfallError.unknownFeed(body.feed) }
                let now = Date()
                let expires = try body.expires.map { text throws(WaterfallError) in
                    try KeyExpiry.date(from: text, now: now)
                }
                let share = try await server.runner.write { service in
                    try await service.addShare(
                        feed: body.feed, view: body.view, layout: body.layout, expires: expires, now: now)
                }
                return await .json(ByteBuffer(bytes: try StableJSON.document(of: share)), status: .created, to: request)
            },
            Route(
                .get, "/v1/shares", "listShares", access: .readAll,
                OperationDoc(
                    "Every share link (never their tokens)", tags: ["shares"],
                    responses: [.ok("The links, by id.", .json("ShareList"))],
                    problems: .databaseRead)
            ) { request, path, server in
                try RequestQuery(request).finish()
                let list = try await server.runner.run { try await $0.shares() }
                return await .json(ByteBuffer(bytes: try StableJSON.document(of: list)), to: request)
            },
            Route(
                .delete, "/v1/shares/{id}", "deleteShare",
                OperationDoc(
                    "Remove a share link: its path answers 404 within a second, on every instance",
                    tags: ["shares"], parameters: [.shareID],
                    responses: [.noContent("Removed.")],
                    problems: .feedWrite)
            ) { request, path, server in
                try RequestQuery(request).finish()
                guard let id = Int64(path["id"]), id > 0 else {
                    throw Problem.badRequest("the share's id must be a positive integer, got \(path["id"].quoted).")
                }
                let scope = path.scope
                try await server.runner.write { try await $0.removeShare(id: id, covering: { scope.covers($0) }) }
                return .noContent()
            },
            Route(
                .get, "/s/{token}", "getShare", access: .open,
                OperationDoc(
                    "What a share link hands out, at its current revision", tags: ["shares"],
                    description:
                        "Without a key: the feed (as `GET /v1/feeds/{feed}` answers it) or the view (as `GET /v1/feeds/{feed}/views/{view}`), whose `revision` the link's other answers can be pinned to (`revision=R`), so that a cache in front of the server keeps every page it serves.",
                    parameters: [.shareToken, .ifNoneMatch],
                    responses: [.ok("The feed, or the view.", .json("SharedRoot"), headers: [.eTag])],
                    problems: .feedRead)
            ) { request, path, server in
                try RequestQuery(request).finish()
                guard let link = try await server.shares.link(token: path["token"], runner: server.runner) else {
                    throw Problem.noShare
                }
                let scope = link.scope
                let path = path.sharing(link)
                let response = try await server.runner.answer(for: request, path) { service in
                    guard let view = scope.view else {
                        let feed = try await service.feed(named: scope.feed)
                        return (try StableJSON.document(of: feed), feed.version)
                    }
                    do {
                        let (listed, version) = try await service.view(feed: scope.feed, name: view)
                        return (try StableJSON.document(of: listed), version)
                    } catch WaterfallError.unknownView {
                        throw Problem.noShare
                    }
                }.response(to: request)
                return try RevisionPin.finish(response, pinned: nil, isPublic: true, expires: scope.expiresAt)
            },
        ]
        // A feed's layouts (a link limited to one lists that one), and the event stream: it asks its link again while it runs, and ends (a `reset`
        // event, `unshared`) within a second of the link's removal or expiry.
        + (feedRoutes + layoutRoutes + queryRoutes + eventRoutes).filter { route in
            route.method == .get && route.pattern.hasPrefix("/v1/feeds/{feed}/")
        }.map { $0.forShare() }
}

/// The body of `POST /v1/shares`.
struct ShareRequest: Decodable {
    var feed: String
    var view: String?
    var layout: String?
    var expires: String?
}
