import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// Feeds and their catalogs: list, read, import, delete, images, reorders, removals, changes.
    static let feedRoutes: [Route] = [
        Route(
            .get, "/v1/feeds", "listFeeds",
            OperationDoc(
                "List the feeds", tags: ["feeds"],
                parameters: [.ifNoneMatch],
                responses: [.ok("Every feed.", .json("FeedList"), headers: [.eTag])],
                problems: .keptDatabaseRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let scope = path.scope
            return try await server.runner.answer(for: request, path) { service in
                var answer = try await service.feeds()
                answer.feeds.removeAll { !scope.covers($0.name) }
                return (try StableJSON.document(of: answer), nil)
            }.response(to: request)
        },
        Route(
            .get, "/v1/feeds/{feed}", "getFeed",
            OperationDoc(
                "One feed's counts", tags: ["feeds"],
                parameters: [.feed, .ifNoneMatch],
                responses: [.ok("The feed.", .json("FeedSummary"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let feed = path["feed"]
            return try await server.runner.answer(for: request, path) { service in
                let answer = try await service.feed(named: feed)
                return (try StableJSON.document(of: answer), answer.version)
            }.response(to: request)
        },
        Route(
            .put, "/v1/feeds/{feed}", "importFeed",
            OperationDoc(
                "Import (sync) a feed", tags: ["feeds"],
                description:
                    "Creates the feed when it does not exist. A rejected body changes nothing; importing the same body twice changes nothing the second time (no revision bump).",
                parameters: [.feed, .query("Mode"), .query("ResetOrder")] + ParameterGroup.writePreconditions,
                body: RequestBodyDoc(
                    description: "A feed file (JSON), or NDJSON with one image object per line.",
                    .json("FeedDocument"),
                    ContentDoc(mediaType: "application/x-ndjson", schema: .component("FeedLines"))),
                responses: [
                    .ok("The feed existed; what the import changed.", .json("ChangeSummary")),
                    .created("The feed was created; what the import inserted.", .json("ChangeSummary")),
                ],
                problems: .feedUpload - [.notFound])
        ) { request, path, server in
            var query = try RequestQuery(request)
            let mode = try ImportMode(query: query.string("mode"))
            let resetOrder = try query.bool("resetOrder") ?? false
            try query.finish()
            let format = try FeedFormat(contentType: request.headers[.contentType])
            let feed = path["feed"]
            let options = WaterfallService.ImportOptions(feedName: feed, mode: mode, resetOrder: resetOrder)
            if resetOrder && mode == .append { throw WaterfallError.conflictingValues(.resetOrder, .appendMode) }
            let expected = try EntityTags.expectedState(of: request)
            let body = try await SpooledBody(request.body, limit: server.limits.maximumBodyBytes)
            defer { body.remove() }
            let (summary, created) = try await server.runner.write { service in
                let existed = (try? await service.feed(named: feed)) != nil
                let summary = try await expected.applied(to: service).importFeed(
                    contentsOf: body.path, format: format, source: "request body", named: feed, options: options)
                return (summary, !existed)
            }
            return await .json(
                ByteBuffer(bytes: try StableJSON.document(of: summary)), status: created ? .created : .ok, to: request)
        },
        Route(
            .delete, "/v1/feeds/{feed}", "deleteFeed",
            OperationDoc(
                "Remove a feed and everything of it", tags: ["feeds"],
                parameters: [.feed] + ParameterGroup.writePreconditions,
                responses: [.noContent("Removed.")],
                problems: .feedWrite)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let feed = path["feed"]
            let expected = try EntityTags.expectedState(of: request)
            try await server.runner.write { try await expected.applied(to: $0).removeFeed(named: feed) }
            return .noContent()
        },
        Route(
            .get, "/v1/feeds/{feed}/images", "listImages",
            OperationDoc(
                "A slice of the catalog order, or all of it as lines", tags: ["images"],
                description:
                    #"With `Accept: application/x-ndjson`, the whole catalog at one revision, read in one transaction and written as it is read (constant memory on the server): a first line `{"feed", "revision", "totalItems"}`, then one image a line, in catalog order, each as `images` lists it (`offset`, `limit` and `cursor` are refused; `tag` is taken). Paged, each answer with more to come carries `nextCursor`: `cursor=` lists on from it as of the same revision, or answers 410 (with the feed's `revision` now) once anything was committed to the feed since. At most two such streams run at once on a server; a third is a 503 with `Retry-After`. A stream still running when a shutting-down server's grace ends is cut: the connection closes before the body's end."#,
                parameters: [.feed, .query("Offset"), .query("Limit"), .query("Cursor"), .query("Tag"), .ifNoneMatch],
                responses: [.ok("The images.", .json("ImageList"), .ndjson("ImageLine"), headers: [.eTag])],
                problems: .feedRead + [.gone, .serviceUnavailable])
        ) { request, path, server in
            if ImageStreamRoute.asksForLines(request) {
                return try await ImageStreamRoute.stream(request, path, server)
            }
            var query = try RequestQuery(request)
            let offset = try query.int(.offset)
            let limit = try query.int(.limit) ?? PageSlice.defaultPageSize
            let cursor = query.string(.cursor)
            let tag = query.string(.tag)
            try query.finish()
            if cursor != nil && offset != nil {
                throw Problem.badRequest("cursor and offset cannot be given together.")
            }
            let feed = path["feed"]
            return try await server.runner.answer(for: request, path) { service in
                let answer =
                    if let cursor {
                        try await service.images(feed: feed, cursor: cursor, limit: limit, tag: tag)
                    } else {
                        try await service.images(feed: feed, offset: offset ?? 0, limit: limit, tag: tag)
                    }
                return (try StableJSON.document(of: answer), answer.version)
            }.response(to: request)
        },
        Route(
            .post, "/v1/feeds/{feed}/reorder", "reorderFeed",
            OperationDoc(
                "Apply moves, removals or an order list", tags: ["images"],
                description: "All of the body is applied in one transaction, or none of it.",
                parameters: [.feed, .query("DryRun")] + ParameterGroup.writePreconditions,
                body: RequestBodyDoc(.json("ReorderDocument")),
                responses: [
                    .ok(
                        "What the reorder changed (with dryRun, what it would change; nothing is written).",
                        .json("ChangeSummary"))
                ],
                problems: .feedUpload + [.conflict])
        ) { request, path, server in
            var query = try RequestQuery(request)
            let dryRun = try query.bool("dryRun") ?? false
            try query.finish()
            _ = try FeedFormat(contentType: request.headers[.contentType], allowsLines: false)
            let expected = try EntityTags.expectedState(of: request)
            let bytes = try await RequestBodyBytes.collect(request.body, limit: server.limits.maximumBodyBytes)
            let feed = path["feed"]
            let summary = try await server.runner.write {
                try await expected.applied(to: $0).reorder(
                    bytes, source: "request body", feed: feed, dryRun: dryRun)
            }
            return await .json(ByteBuffer(bytes: try StableJSON.document(of: summary)), to: request)
        },
        Route(
            .delete, "/v1/feeds/{feed}/images/{id}", "deleteImage",
            OperationDoc(
                "Remove one image", tags: ["images"],
                parameters: [.feed, .imageID] + ParameterGroup.writePreconditions,
                responses: [.ok("What the removal changed.", .json("ChangeSummary"))],
                problems: .feedWrite)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let (feed, id) = (path["feed"], path["id"])
            let expected = try EntityTags.expectedState(of: request)
            let summary = try await server.runner.write {
                try await expected.applied(to: $0).remove(feed: feed, ids: [id])
            }
            return await .json(ByteBuffer(bytes: try StableJSON.document(of: summary)), to: request)
        },
        Route(
            .get, "/v1/feeds/{feed}/sections", "listSections",
            OperationDoc(
                "The feed's sections, with titles and image counts", tags: ["images"],
                parameters: [.feed, .ifNoneMatch],
                responses: [.ok("The sections.", .json("SectionList"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let feed = path["feed"]
            return try await server.runner.answer(for: request, path) { service in
                let answer = try await service.sections(feed: feed)
                return (try StableJSON.document(of: answer), answer.version)
            }.response(to: request)
        },
        Route(
            .get, "/v1/feeds/{feed}/changes", "listChanges",
            OperationDoc(
                "The change log after a revision, a page of whole revisions", tags: ["images"],
                description:
                    "The revisions after `since` whose changes add up to at most `limit` (1,000 when absent, 100,000 at most), never part of a revision (a first revision of more changes comes whole, up to 100,000; a larger one by its counts, `truncatedRevision`), and `nextSince`, the revision to ask from next, while more follow. With `If-Match` (an ETag of any answer about the feed), 412 when the feed is no longer the one the tag names (removed, or removed and made anew: another incarnation), whatever its revision. 410 when the changes after `since` were pruned (`serve --keep-changes`): the problem's `oldestSince` is the oldest revision to ask from, after listing the feed again.",
                parameters: [.feed, .query("Since"), .query("ChangeLimit"), .header("IfMatch"), .ifNoneMatch],
                responses: [.ok("The changes.", .json("ChangeList"), headers: [.eTag])],
                problems: .changeLogRead)
        ) { request, path, server in
            var query = try RequestQuery(request)
            let since = try query.int("since") ?? 0
            let limit = try query.int("limit") ?? WaterfallService.defaultChangeLimit
            try query.finish()
            let feed = path["feed"]
            let expected = try EntityTags.expectedState(of: request)
            return try await server.runner.answer(for: request, path) { service in
                let answer = try await expected.incarnation(appliedTo: service).changes(
                    feed: feed, since: Int64(since), limit: limit)
                return (try StableJSON.document(of: answer), answer.version)
            }.response(to: request)
        },
    ]
}

extension ImportMode {
    /// The `mode` query parameter: `snapshot` (the default) or `append`.
    init(query value: String?) throws(Problem) {
        switch value {
        case nil, "snapshot": self = .snapshot
        case "append": self = .append
        case let other?: throw Problem.badRequest("mode must be snapshot or append, got \(other.quoted).")
        }
    }
}

extension FeedFormat {
    /// The format a request body's `Content-Type` names: JSON (`application/json`, or none
    /// given) or, where lines are allowed, NDJSON (`application/x-ndjson`, `application/jsonl`).
    init(contentType: String?, allowsLines: Bool = true) throws(Problem) {
        let mediaType = contentType?.split(separator: ";").first.map {
            $0.filter { $0 != " " && $0 != "\t" }.lowercased()
        }
        switch mediaType {
        case nil, "application/json":
            self = .json
        case let other?:
            if allowsLines && (other == "application/x-ndjson" || other == "application/jsonl") {
                self = .ndjson
                return
            }
            let accepted = allowsLines ? "application/json or application/x-ndjson" : "application/json"
            throw Problem(
                .unsupportedMediaType,
                "the body's Content-Type \(other.quoted) is not one this route reads; send \(accepted).")
        }
    }
}
