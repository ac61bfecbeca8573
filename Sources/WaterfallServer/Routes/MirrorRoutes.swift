import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// What a mirror reads of a feed (DESIGN section 21): a listing, or a catch-up since a
    /// revision, as lines.
    static let mirrorRoutes: [Route] = [
        Route(
            .get, "/v1/feeds/{feed}/mirror", "mirrorFeed",
            OperationDoc(
                "A feed for a mirror: listed whole, or caught up since a revision", tags: ["feeds"],
                description:
                    #"What `waterfall mirror` reads, from one read transaction, as lines (`application/x-ndjson`): a first line, the `MirrorHead` (the feed's incarnation, revision, date settings, sections, named layouts and views), then one image a line as a feed file gives it (`MirrorImage`). Without `since`, every image in catalog order (`totalItems` lines). With `since` (and `incarnation`, the one the mirror holds), the images the change log names since then that the feed still holds, in catalog order, each with its neighbour before it in the head's `after`, the ids it no longer holds in `removed` and the log's rows in `changes`: 410 when the feed is another incarnation, when the log since `since` was pruned, or when it holds more than 100,000 rows since; list again then. Accounted as a listing stream (at most two at once)."#,
                parameters: [.feed, .query("MirrorSince"), .query("Incarnation")],
                responses: [.ok("The feed's lines.", .ndjson("MirrorLine"))],
                problems: .feedRead + [.gone, .serviceUnavailable])
        ) { request, path, server in
            var query = try RequestQuery(request)
            let since = try query.int("since")
            let incarnation = try query.int("incarnation")
            try query.finish()
            let feed = path["feed"]
            return try await ImageStreamRoute.lines(request, path, server, feed: feed) { service, send in
                try await service.streamMirror(
                    feed: feed, since: since.map(Int64.init), incarnation: incarnation.map(Int64.init),
                    head: { head in try send(try StableJSON.document(of: head)) },
                    images: { images in
                        var lines: [UInt8] = []
                        lines.reserveCapacity(images.count * 200)
                        for image in images { lines += try StableJSON.document(of: MirrorImageLine(image)) }
                        try send(lines)
                    })
            }
        }
    ]
}
