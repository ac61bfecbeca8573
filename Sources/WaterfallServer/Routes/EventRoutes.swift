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
                    #"One `change` event per revision after `since` (or `Last-Event-ID`), then live as the feed moves on, whoever writes it (this server, another instance of it, the command line). Each event: `id:` the revision, `event: change`, `data:` `{"revision", "changes": [{"revision", "kind", "id", "section"}]}`. A `: heartbeat` comment comes every 15 s. The stream ends when the feed is removed, or when the server shuts down, after a last `: shutting down` comment: reconnect (to this server once it is back, or another instance) with `Last-Event-ID`, and nothing is missed."#,
                parameters: [.feed, .query("Since"), .header("LastEventID")],
                responses: [
                    .ok(
                        "The stream.", ContentDoc(mediaType: "text/event-stream", schema: .component("ServerSentEvent"))
                    )
                ],
                problems: .feedStream + [.gone])
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
            // the stream starts.
            let start = since
            _ = try await server.runner.run { try await $0.changes(feed: feed, since: start, limit: 1) }
            let (runner, hub, metrics) = (server.runner, server.hub, server.runner.metrics)
            let signals = hub.subscribe(feed: feed)
            let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    var stream = EventStream(feed: feed, since: start, runner: runner, hub: hub)
                    metrics.eventStream(opened: true)
                    defer { metrics.eventStream(opened: false) }
                    // SIGTERM ends every stream, so that draining the server does not wait for them,
                    // with a last comment that tells the client to reconnect.
                    let stopping = NIOLockedValueBox(false)
                    try? await withGracefulShutdownHandler {
                        try await stream.run(signals, into: &writer)
                    } onGracefulShutdown: {
                        stopping.withLockedValue { $0 = true }
                        hub.stop()
                    }
                    if stopping.withLockedValue({ $0 }) {
                        try await writer.write(ByteBuffer(string: ": shutting down\n\n"))
                    }
                    try await writer.finish(nil)
                })
        }
    ]
}

/// A revision's changes, the data of a `change` event of a feed's stream: `{"revision", "changes": […]}`.
struct ChangeEvent: JSONAnswer {
    let revision: Int64
    let changes: [ChangeList.Change]

    static let members: [AnswerMember<ChangeEvent>] = [
        .integer("revision", description: "The revision these changes made (also the event's `id:`).") {
            $0.revision
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

/// One listener's stream: the change log after its revision, then more as signals come.
private struct EventStream {
    let feed: String
    var since: Int64
    let runner: ServiceRunner
    let hub: EventHub

    /// How often a stream reads the change log again while the database cannot be reached.
    static let retryInterval: Duration = .seconds(1)

    mutating func run(_ signals: AsyncStream<EventHub.Signal>, into writer: inout any ResponseBodyWriter) async throws {
        // Tell the client how soon to reconnect, and flush the headers at once.
        try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
        try await catchUp(&writer)
        for await signal in signals {
            switch signal {
            case .heartbeat: try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
            case .changed: try await catchUp(&writer)
            }
        }
    }

    /// Writes one event per revision after `since`. While the database cannot be reached the
    /// stream stays open: it reads again every ``retryInterval`` (a `: waiting for the
    /// database` comment each time, which also finds a client gone) until it can, the server
    /// stops, or the client leaves; nothing committed meanwhile is missed, since it reads from
    /// `since` on.
    private mutating func catchUp(_ writer: inout any ResponseBodyWriter) async throws {
        let (feed, since) = (feed, since)
        var read: ChangeList?
        while read == nil {
            do {
                read = try await runner.run { try await $0.changes(feed: feed, since: since) }
            } catch let error as WaterfallError where error.isTransient {
                guard !hub.isStopped else { throw CancellationError() }
                try await writer.write(ByteBuffer(string: ": waiting for the database\n\n"))
                try await Task.sleep(for: Self.retryInterval)
            } catch {
                // The feed is gone: the stream ends.
                throw CancellationError()
            }
        }
        guard let list = read else { return }
        var buffer = ByteBuffer()
        var start = list.changes.startIndex
        while start < list.changes.endIndex {
            let revision = list.changes[start].revision
            let end = list.changes[start...].firstIndex { $0.revision != revision } ?? list.changes.endIndex
            let data = try StableJSON.bytes(
                of: ChangeEvent(revision: revision, changes: Array(list.changes[start..<end])))
            buffer.writeString("id: \(revision)\nevent: change\ndata: ")
            buffer.writeBytes(data)
            buffer.writeString("\n\n")
            start = end
            self.since = revision
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
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
