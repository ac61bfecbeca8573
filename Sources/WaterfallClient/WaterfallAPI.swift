import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

#if canImport(OpenAPIURLSession)
import OpenAPIURLSession
#endif

/// The Waterfall HTTP API for Swift: the client generated from the server's `openapi.json`
/// (``client``, every operation) and the common cases made short, with problems thrown as
/// ``WaterfallProblem``, entity tags kept (``Versioned``) and the event stream as an
/// `AsyncSequence` (``ChangeEvents``).
///
/// ```swift
/// let api = WaterfallAPI(serverURL: URL(string: "http://127.0.0.1:8080")!, apiKey: secret)
/// let page = try await api.page(feed: "travel", layout: "phone", offset: 0, limit: 20)
/// try await api.move("lisbon-1", .before("porto-3"), feed: "travel", ifMatch: page.etag)
/// ```
public struct WaterfallAPI: Sendable {
    /// The generated client: every operation of the document, its answers the document's
    /// typed outputs (error statuses included as cases, nothing thrown for them). It sends the
    /// key and entity tags as written (``BearerAPIKey``, ``EntityTagHeaders``).
    public let client: Client
    /// The same client, with every answer of status 400 or more thrown as a problem.
    private let checked: Client

    /// A client of the server at `serverURL` (its root: the document's paths start with `/v1`).
    /// - Parameters:
    ///   - apiKey: the secret of a key made with `waterfall key add`, sent as a bearer token;
    ///     nil for a server that asks for none.
    ///   - transport: how requests travel: `URLSessionTransport()` (Apple platforms) or
    ///     `AsyncHTTPClientTransport()` (servers, Linux).
    ///   - middlewares: more middlewares, run after the key's.
    public init(
        serverURL: URL, apiKey: String? = nil, transport: any ClientTransport, middlewares: [any ClientMiddleware] = []
    ) {
        let first: [any ClientMiddleware] = [EntityTagHeaders()] + (apiKey.map { [BearerAPIKey($0)] } ?? [])
        client = Client(serverURL: serverURL, transport: transport, middlewares: first + middlewares)
        checked = Client(
            serverURL: serverURL, transport: transport, middlewares: first + middlewares + [ProblemMiddleware()])
    }

    /// A client over the platform's usual transport: URLSession on Apple platforms,
    /// AsyncHTTPClient's shared client elsewhere.
    public init(serverURL: URL, apiKey: String? = nil) {
        #if canImport(OpenAPIURLSession)
        self.init(serverURL: serverURL, apiKey: apiKey, transport: URLSessionTransport())
        #else
        self.init(serverURL: serverURL, apiKey: apiKey, transport: AsyncHTTPClientTransport())
        #endif
    }

    // MARK: Reads

    /// Every feed with its counts and revision (`GET /v1/feeds`).
    /// - Throws: ``WaterfallProblem`` for a problem answer; the transport's error otherwise.
    public func feeds() async throws -> [Components.Schemas.FeedSummary] {
        try await call { try await $0.listFeeds().ok.body.json.feeds }
    }

    /// One feed (`GET /v1/feeds/{feed}`), with its entity tag.
    /// - Throws: ``WaterfallProblem`` (``WaterfallProblem/Kind/notFound`` for an unknown feed).
    public func feed(_ name: String) async throws -> Versioned<Components.Schemas.FeedSummary> {
        try await call {
            let ok = try await $0.getFeed(path: .init(feed: name)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// A feed's images in order, `limit` from `offset` (`GET /v1/feeds/{feed}/images`).
    public func images(feed: String, offset: Int? = nil, limit: Int? = nil) async throws -> Versioned<
        Components.Schemas.ImageList
    > {
        try await call {
            let ok = try await $0.listImages(path: .init(feed: feed), query: .init(offset: offset, limit: limit)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// The next slice of a listing from its `nextCursor`, as of the listing's revision
    /// (`GET /v1/feeds/{feed}/images?cursor=`).
    /// - Throws: ``WaterfallProblem`` of kind ``WaterfallProblem/Kind/gone`` once the feed has
    ///   changed since the listing began: list it again, or follow its changes.
    public func images(feed: String, cursor: String, limit: Int? = nil) async throws -> Versioned<
        Components.Schemas.ImageList
    > {
        try await call {
            let ok = try await $0.listImages(path: .init(feed: feed), query: .init(limit: limit, cursor: cursor)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// A page of a saved layout: the frames of `limit` images from `offset`
    /// (`GET /v1/feeds/{feed}/layouts/{name}/page`).
    /// - Parameter ifNoneMatch: an entity tag of an earlier answer: nil comes back when the
    ///   page has not changed since (304).
    /// - Returns: the page and its entity tag; nil only for a 304.
    public func page(feed: String, layout: String, offset: Int? = nil, limit: Int? = nil, ifNoneMatch: String? = nil)
        async throws -> Versioned<Components.Schemas.Page>?
    {
        try await call {
            let output = try await $0.getLayoutPage(
                path: .init(feed: feed, name: layout), query: .init(offset: offset, limit: limit),
                headers: .init(ifNoneMatch: ifNoneMatch))
            if case .notModified = output { return nil }
            let ok = try output.ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// A page of a saved layout, read unconditionally.
    public func page(feed: String, layout: String, offset: Int? = nil, limit: Int? = nil) async throws -> Versioned<
        Components.Schemas.Page
    > {
        // Without If-None-Match the server never answers 304.
        try await page(feed: feed, layout: layout, offset: offset, limit: limit, ifNoneMatch: nil)!
    }

    /// Where an image is in a saved layout (`GET /v1/feeds/{feed}/layouts/{name}/locate`): by
    /// its id, its catalog index, section and frame, and `offset`, the first index of the page
    /// of `limit` images that holds it: where a client reopens its place.
    /// - Throws: ``WaterfallProblem`` (``WaterfallProblem/Kind/notFound`` for an unknown id).
    public func locate(_ image: String, feed: String, layout: String, limit: Int? = nil) async throws
        -> Components.Schemas.Location
    {
        try await call {
            try await $0.getLayoutLocate(path: .init(feed: feed, name: layout), query: .init(id: image, limit: limit))
                .ok.body.json
        }
    }

    /// The first image, in catalog order, taken at or before `date` (`YYYY-MM-DD`, its midnight,
    /// or `YYYY-MM-DDTHH:MM`, in the feed's time zone), located as ``locate(_:feed:layout:limit:)``
    /// does: how a timeline jumps to a date.
    /// - Throws: ``WaterfallProblem`` (``WaterfallProblem/Kind/notFound`` when none was taken by then).
    public func locate(takenBy date: String, feed: String, layout: String, limit: Int? = nil) async throws
        -> Components.Schemas.Location
    {
        try await call {
            try await $0.getLayoutLocate(path: .init(feed: feed, name: layout), query: .init(date: date, limit: limit))
                .ok.body.json
        }
    }

    /// The changes after revision `since`, oldest first (`GET /v1/feeds/{feed}/changes`): whole,
    /// or with `limit` a page of whole revisions whose `nextSince` is where to ask next (nil at
    /// the end of the log).
    /// - Throws: ``WaterfallProblem`` of kind ``WaterfallProblem/Kind/gone`` when the changes
    ///   after `since` were pruned: list the feed again, then follow from its
    ///   ``WaterfallProblem/oldestSince`` (or the listing's revision).
    public func changes(feed: String, since: Int = 0, limit: Int? = nil) async throws -> Components.Schemas.ChangeList {
        try await call {
            try await $0.listChanges(path: .init(feed: feed), query: .init(since: since, limit: limit)).ok.body.json
        }
    }

    // MARK: Writes

    /// Where ``move(_:_:feed:ifMatch:)`` puts an image.
    public enum Place: Hashable, Sendable {
        /// Right before the image with this id, in that image's section.
        case before(String)
        /// Right after the image with this id, in that image's section.
        case after(String)
        /// At this index inside the image's own section.
        case to(Int)
    }

    /// Moves one image (`POST /v1/feeds/{feed}/reorder` with one move).
    /// - Parameter ifMatch: the entity tag of the answer the move was decided on
    ///   (``Versioned/etag``): the move happens only while the feed is still at its revision.
    /// - Throws: ``WaterfallProblem``: ``WaterfallProblem/Kind/preconditionFailed`` when the
    ///   feed has moved on (nothing changed), ``WaterfallProblem/Kind/notFound``,
    ///   ``WaterfallProblem/Kind/conflict`` for a move onto itself, among others.
    @discardableResult
    public func move(_ image: String, _ place: Place, feed: String, ifMatch: String? = nil) async throws
        -> Components.Schemas.ChangeSummary
    {
        let id = Components.Schemas.Identifier.case1(image)
        let move: Components.Schemas.ReorderMove =
            switch place {
            case .before(let other): .ReorderMoveBefore(.init(id: id, before: .case1(other)))
            case .after(let other): .ReorderMoveAfter(.init(id: id, after: .case1(other)))
            case .to(let index): .ReorderMoveTo(.init(id: id, to: index))
            }
        return try await reorder(feed: feed, .ReorderEdits(.init(moves: [move])), ifMatch: ifMatch)
    }

    /// Applies a reorder document, in one transaction or not at all
    /// (`POST /v1/feeds/{feed}/reorder`).
    /// - Parameters:
    ///   - ifMatch: an entity tag: the reorder happens only while the feed is at its revision.
    ///   - dryRun: checks and counts without writing.
    @discardableResult
    public func reorder(
        feed: String, _ document: Components.Schemas.ReorderDocument, ifMatch: String? = nil, dryRun: Bool = false
    ) async throws -> Components.Schemas.ChangeSummary {
        try await call {
            try await $0.reorderFeed(
                path: .init(feed: feed), query: .init(dryRun: dryRun ? true : nil),
                headers: .init(ifMatch: ifMatch), body: .json(document)
            ).ok.body.json
        }
    }

    // MARK: Events

    /// The feed's changes after revision `since`, then live (`GET /v1/feeds/{feed}/events`).
    /// - Throws: ``WaterfallProblem`` when the stream cannot start (unknown feed, say).
    public func events(feed: String, since: Int = 0) async throws -> ChangeEvents {
        try await call {
            ChangeEvents(
                body: try await $0.streamEvents(path: .init(feed: feed), query: .init(since: since)).ok.body
                    .textEventStream)
        }
    }

    /// Runs `body` on the checking client, and throws the problem a middleware found as itself
    /// rather than wrapped in the generated client's `ClientError`.
    func call<T>(_ body: (Client) async throws -> T) async throws -> T {
        do {
            return try await body(checked)
        } catch let error as ClientError {
            if let problem = error.underlyingError as? WaterfallProblem { throw problem }
            throw error
        }
    }
}
