import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// A feed's changes as Server-Sent Events: one `change` event per revision after `since`
    /// (or the `Last-Event-ID` a reconnecting client sends), then live as the feed moves on.
    static let eventRoutes: [Route] = [
        Route(
            .get, "/v1/feeds/{feed}/events", "streamEvents",
            OperationDoc(
                "The feed's changes as Server-Sent Events", tags: ["images"],
                description:
                    #"One `change` event per revision after `since` (or `Last-Event-ID`), then live as the feed moves on, whoever writes it (this server, another instance of it, the command line). Each event: `id:` the revision, `event: change`, `data:` `{"revision", "changes": [{"revision", "kind", "id", "section"}]}`; a revision of more than 1,000 changes comes as its counts with `"truncated": true` and no changes (list the feed again, or page `changes`), so a stream holds one page of the log whatever the log holds. A `: heartbeat` comment comes every 15 s. When the feed is removed, removed and made anew, or its log pruned past the stream (or the share link it came through removed), an `event: reset` (`data:` `{"feed", "reason"}`) ends the stream: list the feed again, then follow it anew. When the server shuts down, a last `: shutting down` comment ends it: reconnect (to this server once it is back, or another instance) with `Last-Event-ID`, and nothing is missed. Streams are capped per key and per server (503 with `Retry-After` beyond: `serve --max-streams`, `--max-streams-per-key`), and one whose client reads nothing for 30 s is closed."#,
                parameters: [.feed, .query("Since"), .header("LastEventID"), .header("IfMatch")],
                responses: [
                    .ok(
                        "The stream.", ContentDoc(mediaType: "text/event-stream", schema: .component("ServerSentEvent"))
                    )
                ],
                problems: .feedStream + [.gone, .preconditionFailed])
        ) { request, path, server in
            var query = try RequestQuery(request)
            var since = try query.int("since").map(Int64.init) ?? 0
            try query.finish()
            if since < 0 { throw WaterfallError.invalidValue(.since, "must be a revision of 0 or more, got \(since).") }
            if let lastEventID = request.headers[.lastEventID] {
                guard let revision = Int64(lastEventID.trimmingSpaces), revision >= 0 else {
                    throw Problem.badRequest(
                        "Last-Event-ID must be a revision of 0 or more, got \(lastEventID.quoted).")
                }
                since = revision
            }
            let feed = path["feed"]
            // An unknown feed is 404, and a revision whose later changes were pruned 410, before
            // the stream starts; the feed's incarnation then is the one the stream follows.
            let start = since
            let expected = try EntityTags.expectedState(of: request)
            let first = try await server.runner.run {
                try await expected.incarnation(appliedTo: $0).changeEventsStart(feed: feed, since: start)
            }
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            if request.method == .head { return Response(status: .ok, headers: headers) }
            let slot = try server.streams.take(.events, key: path.streamOwner)
            let (runner, hub, metrics, link) = (server.runner, server.hub, server.runner.metrics, path.link)
            let watch = StallWatch(
                connection: path.connection, patience: server.streams.limits.patience, shutdown: server.shutdown)
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    // The body holds the slot: given back when it ends, or when it is dropped unrun.
                    defer { slot.release() }
                    let signals = hub.subscribe(feed: feed)
                    var stream = EventStream(
                        feed: feed, since: start, incarnation: first.incarnation, runner: runner, hub: hub,
                        watch: watch)
                    metrics.eventStream(opened: true)
                    defer { metrics.eventStream(opened: false) }
                    // SIGTERM ends every stream, so that draining the server does not wait for them,
                    // with a last comment that tells the client to reconnect.
                    let stopping = NIOLockedValueBox(false)
                    // Through a share link, the link is asked again while the stream runs; once
                    // it no longer answers, the signals end and so does the stream.
                    let unshared = NIOLockedValueBox(false)
                    stream.ended = { unshared.withLockedValue { $0 } }
                    await withTaskGroup(of: Void.self) { group in
                        if let link {
                            group.addTask {
                                // No answer: cancelled (the stream ended first), or the link
                                // unreadable too long (the stream ends, without a reset).
                                let answers = await link.watch()
                                guard !Task.isCancelled else { return }
                                if answers == false { unshared.withLockedValue { $0 = true } }
                                signals.end()
                            }
                        }
                        try? await withGracefulShutdownHandler {
                            try await stream.run(signals, from: first, into: &writer)
                        } onGracefulShutdown: {
                            stopping.withLockedValue { $0 = true }
                            hub.stop()
                        }
                        group.cancelAll()
                    }
                    if unshared.withLockedValue({ $0 }) && !stream.hasReset {
                        _ = try await stream.reset("unshared", &writer)
                    } else if stopping.withLockedValue({ $0 }) {
                        try await watch.write(ByteBuffer(string: ": shutting down\n\n"), to: &writer)
                    }
                    try await writer.finish(nil)
                })
        }
    ]
}

/// A revision's changes, the data of a `change` event of a feed's stream: `{"revision", "changes": […]}`;
/// a revision of more than ``WaterfallService/eventChangeLimit`` changes comes as its counts,
/// `"truncated": true` and no changes (DESIGN section 19).
struct ChangeEvent: JSONAnswer {
    let revision: Int64
    let changes: [ChangeList.Change]
    var counts: [ChangeKind: Int]?

    static let members: [AnswerMember<ChangeEvent>] = [
        .integer("revision", description: "The revision these changes made (also the event's `id:`).") {
            $0.revision
        },
        .boolean(
            "truncated", ifAbsent: .omitted,
            description:
                "Present (true) when the revision made more changes than an event carries: `changes` is then empty and the counts say how many of each kind; list the feed again, or page `changes`."
        ) { $0.counts == nil ? nil : true },
        .integer("inserted", ifAbsent: .omitted, description: "A truncated revision's insertions.") {
            $0.counts?[.insert, default: 0]
        },
        .integer("updated", ifAbsent: .omitted, description: "A truncated revision's updates.") {
            $0.counts?[.update, default: 0]
        },
        .integer("moved", ifAbsent: .omitted, description: "A truncated revision's moves.") {
            $0.counts?[.move, default: 0]
        },
        .integer("removed", ifAbsent: .omitted, description: "A truncated revision's removals.") {
            $0.counts?[.remove, default: 0]
        },
        .array("changes", of: "Change") { $0.changes },
    ]

    static let schemas = [
        schema(
            "ChangeEvent",
            description:
                "The data of one `change` event of a feed's event stream: one revision's changes, in order.")
    ]
}

/// The data of the `reset` event that ends a stream whose feed was removed, removed and made
/// anew (another incarnation), or whose log was pruned past it: the client lists the feed again.
struct StreamReset: JSONAnswer {
    let feed: String
    let reason: String

    static let members: [AnswerMember<StreamReset>] = [
        .string("feed") { $0.feed },
        .string(
            "reason",
            description:
                "`removed` (the feed is gone), `remade` (removed and made anew: another incarnation), `pruned` (the change log no longer reaches the stream's revision) or `unshared` (the share link the stream came through was removed or expired: it answers 404 now)."
        ) { $0.reason },
    ]

    static let schemas = [
        schema(
            "StreamReset",
            description: "The data of the `reset` event that ends a stream: list the feed again, then follow it anew.")
    ]
}

/// One listener's stream: the change log after its revision, a page at a time, then more as
/// signals come; a `reset` event and the end when its feed is no longer the one it followed.
private struct EventStream {
    let feed: String
    var since: Int64
    /// The feed's incarnation when the stream began.
    let incarnation: Int64
    let runner: ServiceRunner
    let hub: EventHub
    let watch: StallWatch

    /// Whether the stream must end now, wherever it is (its share link removed): read before
    /// each page of the log and each wait for the database.
    var ended: @Sendable () -> Bool = { false }
    /// Whether the stream has ended with its `reset` event.
    private(set) var hasReset = false

    /// How often a stream reads the change log again while the database cannot be reached.
    static let retryInterval: Duration = .seconds(1)

    mutating func run(
        _ signals: EventHub.Subscription, from start: FeedVersion, into writer: inout any ResponseBodyWriter
    ) async throws {
        // Tell the client how soon to reconnect, and flush the headers at once.
        try await watch.write(ByteBuffer(string: "retry: 1000\n\n"), to: &writer)
        // A client resuming past the feed's revision followed another feed of its name, since
        // removed: this one was made anew (event ids are revisions; they name no incarnation).
        if since > start.revision {
            _ = try await reset("remade", &writer)
            return
        }
        guard try await catchUp(&writer) else { return }
        for await signal in signals {
            switch signal {
            case .heartbeat: try await watch.write(ByteBuffer(string: ": heartbeat\n\n"), to: &writer)
            case .changed: guard try await catchUp(&writer) else { return }
            }
        }
    }

    /// Writes one event per revision after `since`, reading the log a page at a time (a stream
    /// holds one page, whatever the log holds). `false` once the stream has ended with a
    /// `reset` event. While the database cannot be reached the stream stays open: it reads
    /// again every ``retryInterval`` (a `: waiting for the database` comment each time, which
    /// also finds a client gone) until it can, the server stops, or the client leaves; nothing
    /// committed meanwhile is missed, since it reads from `since` on.
    private mutating func catchUp(_ writer: inout any ResponseBodyWriter) async throws -> Bool {
        while true {
            guard !ended() else { return false }
            let (feed, since) = (feed, since)
            let page: ChangeEventPage
            do {
                page = try await runner.run { try await $0.changeEvents(feed: feed, since: since) }
            } catch let error as WaterfallError where error.isTransient {
                guard !hub.isStopped else { throw CancellationError() }
                try await watch.write(ByteBuffer(string: ": waiting for the database\n\n"), to: &writer)
                try await Task.sleep(for: Self.retryInterval)
                continue
            } catch WaterfallError.changesPruned {
                return try await reset("pruned", &writer)
            } catch WaterfallError.unknownFeed {
                return try await reset("removed", &writer)
            } catch WaterfallError.unknownView {
                // A view's stream whose view was removed (DESIGN section 20).
                return try await reset("removed", &writer)
            }
            guard page.version.incarnation == incarnation else { return try await reset("remade", &writer) }
            var buffer = ByteBuffer()
            for event in page.events {
                let data: [UInt8]
                switch event {
                case .whole(let revision, let changes):
                    data = try StableJSON.bytes(of: ChangeEvent(revision: revision, changes: changes))
                case .truncated(let revision, let counts):
                    data = try StableJSON.bytes(of: ChangeEvent(revision: revision, changes: [], counts: counts))
                }
                buffer.writeString("id: \(event.revision)\nevent: change\ndata: ")
                buffer.writeBytes(data)
                buffer.writeString("\n\n")
                self.since = event.revision
            }
            if buffer.readableBytes > 0 { try await watch.write(buffer, to: &writer) }
            if !page.more { return true }
        }
    }

    /// Writes the `reset` event that ends the stream; `false`.
    mutating func reset(_ reason: String, _ writer: inout any ResponseBodyWriter) async throws -> Bool {
        hasReset = true
        var buffer = ByteBuffer(string: "event: reset\ndata: ")
        buffer.writeBytes(try StableJSON.bytes(of: StreamReset(feed: feed, reason: reason)))
        buffer.writeString("\n\n")
        try await watch.write(buffer, to: &writer)
        return false
    }
}

extension HTTPField.Name {
    /// `Last-Event-ID`: the last event a reconnecting Server-Sent Events client saw.
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

extension WaterfallError {
    /// Whether the failure passes by itself: the database busy or unreachable for a while.
    var isTransient: Bool {
        switch self {
        case .busy, .unavailable: true
        default: false
        }
    }
}
