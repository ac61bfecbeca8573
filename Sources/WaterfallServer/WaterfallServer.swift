import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Waterfall

/// What `waterfall serve` is told: where to listen and how much to accept.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; `127.0.0.1` by default, so nothing outside the machine reaches it.
    public var host = "127.0.0.1"
    /// The port; 0 picks a free one (the server says which once it listens).
    public var port = 8080
    public var limits = ServerLimits()
    /// Whether reads need no key even when the database has keys (`--public-read`).
    public var publicRead = false
    /// Bytes of feeds' geometry kept in memory (`--hot-memory`, DESIGN section 12); 0 keeps none.
    public var hotMemory = 256 << 20
    /// How much of each feed's change log is kept (`--keep-changes`); older rows are pruned
    /// in the background (``ChangeLogPruner``).
    public var keepChanges = ChangeRetention.default
    /// Whether a server that other machines can reach may answer without a key while the
    /// database has none (`--allow-anonymous`). On loopback it always may.
    public var allowAnonymous = false

    /// Whether requests without a key are let through while the database has no key: on
    /// loopback, or off it with `--allow-anonymous`.
    var answersAnonymousCallers: Bool { allowAnonymous || ListeningAddress.isLoopback(host) }

    public init() {}
}

/// The bounds the server holds requests to.
public struct ServerLimits: Sendable {
    /// The largest request body, in bytes (`--max-body`, default 1 GiB).
    public var maximumBodyBytes = 1 << 30
    /// How long a connection may stay idle, between or inside requests, before it is closed.
    public var idleTimeout: TimeAmount = .seconds(60)
    /// How long SIGTERM lets requests in flight go on (`--shutdown-grace`, default 10 s); one
    /// still receiving its body then is answered 503 (``ShutdownGrace``).
    public var shutdownGracePeriod: Duration = .seconds(10)
    /// The caps on streams (`--max-streams`, `--max-streams-per-key`) and how long a stream
    /// waits for a client that reads nothing.
    public var streams = StreamLimits()

    public init() {}
}

/// The route table of the HTTP API (DESIGN section 9); each feature's routes are in
/// `Routes/`. It is plain data, built once without a server: handlers get the server's parts
/// (``RouteServices``) when they answer, so that ``APIDocument`` can read the table too.
enum APIRoutes {
    static let all: [Route] =
        systemRoutes + feedRoutes + mirrorRoutes + layoutRoutes + viewRoutes + shareRoutes + queryRoutes + eventRoutes
        + galleryRoutes

    /// The paths of the routes anyone may call (no parameters in them): answered without asking
    /// who calls.
    static let openPaths = Set(all.filter { $0.access == .open && !$0.pattern.contains("{") }.map(\.pattern))
}

/// The HTTP front end of a Waterfall database: `waterfall serve`.
public struct WaterfallServer: Sendable {
    let runner: ServiceRunner
    let hub: EventHub
    let gatekeeper: Gatekeeper
    let configuration: ServerConfiguration
    let routes: [Route]
    let logger: Logger
    let shutdown: ShutdownClock
    /// The streams this server runs now.
    let streams: StreamSlots
    /// The readiness probe's check.
    let readiness: Readiness

    /// A server over `service`.
    /// - Parameters:
    ///   - keepsAnswers: keep encoded read answers while the database is unchanged (needs a
    ///     database file; off for an in-memory one).
    ///   - logger: where the access log goes (``AccessLog``): a line per request, successes at
    ///     `info`, refusals at `notice`, failures at `error`; its level decides which are written.
    public init(
        service: WaterfallService, configuration: ServerConfiguration, keepsAnswers: Bool = true,
        logger: Logger = Logger(label: "waterfall")
    ) async throws(WaterfallError) {
        self.logger = logger
        // One watcher for the whole server (on PostgreSQL, one listening connection): kept
        // answers, event streams and the keyring all look at it. Keeping answers needs one; an
        // in-memory database has none, and its streams and keys look at the database instead.
        // It leaves out the commits of the server's own writes where the engine can tell them
        // (PostgreSQL's notifications): the runner counts those as each returns, after the
        // service has brought its kept feed to the new revision.
        let tag = CommitTag.make()
        let store =
            keepsAnswers
            ? try await service.makeChangeWatcher(ignoringCommitsTagged: tag)
            : try? await service.makeChangeWatcher(ignoringCommitsTagged: tag)
        // Where the watcher leaves the server's own commits out, its readers move on when a
        // write returns, and the write brings the kept feed along before that.
        let ownCommitsLeftOut = keepsAnswers && store?.seesCommitsAtOnce == false
        // Its event streams, keyring and kept records count the server's own writes too, where
        // the watcher leaves them out.
        let ownWrites = OwnWriteCount()
        let watcher = store.map { $0.seesCommitsAtOnce ? $0 : OwnWritesWatcher($0, ownWrites: ownWrites) }
        // Pages read their rows alone, beside records kept for the watcher's version, where each
        // statement is a round trip (``KeptRecords``); on a local file the transaction costs
        // about what a read that finds the feed moved on wastes beside a writer.
        let records = keepsAnswers && service.database.readsAreRemote ? watcher.map(KeptRecords.init(watcher:)) : nil
        let keeping =
            configuration.hotMemory > 0
            ? service.keepingFeeds(
                KeptFeeds(budget: configuration.hotMemory),
                bringingWritesAlong: ownCommitsLeftOut ? WaterfallService.keptAlongPatience : nil,
                records: records)
            : service
        let runner = ServiceRunner(
            service: keeping, watcher: keepsAnswers ? store : nil, metrics: ServerMetrics(), commitTag: tag,
            ownWrites: ownWrites)
        self.runner = runner
        self.configuration = configuration
        hub = EventHub(runner: runner, watcher: watcher)
        gatekeeper = Gatekeeper(
            runner: runner, watcher: watcher, publicRead: configuration.publicRead,
            answersAnonymousCallers: configuration.answersAnonymousCallers)
        routes = APIRoutes.all
        shutdown = ShutdownClock(grace: configuration.limits.shutdownGracePeriod)
        streams = StreamSlots(limits: configuration.limits.streams)
        readiness = Readiness(runner: runner)
        if configuration.hotMemory > 0 {
            // Its feeds kept before it listens: a first reader finds them in memory.
            let started = ContinuousClock.now
            let kept = await keeping.keepFeedsNow()
            // At debug: the access log's lines are requests (a level chosen by how long it took
            // would put it among them on a busy host).
            logger.debug(
                "kept feeds before listening",
                metadata: [
                    "feeds": "\(kept.feeds)", "images": "\(kept.images)",
                    "took": "\(started.duration(to: .now))",
                ])
        }
    }

    /// The Hummingbird application: HTTP/1.1 with the idle timeout, answering through the route
    /// table. `onListening` is told the port once the server listens.
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol
    {
        // Hummingbird's own lines (a connection's failure) are warnings at least.
        var frameworkLogger = logger
        frameworkLogger.logLevel = max(logger.logLevel, .warning)
        let shares = ShareBook()
        return Application(
            responder: Edge(
                identity: RequestIdentity(), metrics: RequestMetrics(metrics: runner.metrics),
                log: AccessLog(logger: logger),
                problems: ProblemMapping(),
                kept: KeptAnswerGate(runner: runner, gatekeeper: gatekeeper, shares: shares, metrics: runner.metrics),
                grace: ShutdownGrace(clock: shutdown),
                routing: APIResponder(
                    routes: routes,
                    services: RouteServices(
                        runner: runner, hub: hub, gatekeeper: gatekeeper, readiness: readiness,
                        limits: configuration.limits,
                        shutdown: shutdown, streams: streams, shares: shares))),
            server: .http1(configuration: .init(idleTimeout: configuration.limits.idleTimeout)),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "waterfall"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: frameworkLogger)
    }

    /// Serves until SIGTERM or SIGINT, then stops taking connections, lets the requests in
    /// flight finish (for the grace period; one still receiving its body then is
    /// answered 503), ends event streams with a last comment, and returns.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let application = application(onListening: onListening)
        var group = ServiceGroupConfiguration(
            services: [.init(service: application)], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: application.logger)
        // A backstop only: at the grace's end every request is answered but those whose work in
        // the database is under way, which the busy timeouts (10 s) bound; cutting a connection
        // earlier could cut a body mid-way.
        group.maximumGracefulShutdownDuration = configuration.limits.shutdownGracePeriod + Self.databaseWorkBound
        defer { hub.stop() }
        let pruning = Task { [runner, configuration, logger] in
            await ChangeLogPruner(runner: runner, retention: configuration.keepChanges, logger: logger).run()
        }
        defer { pruning.cancel() }
        try await ServiceGroup(configuration: group).run()
        hub.stop()
        pruning.cancel()
    }

    /// How long past the grace the server waits for work already in the database before it
    /// stops regardless: the busy timeout and the PostgreSQL lease timeout (10 s), and a margin.
    static let databaseWorkBound: Duration = .seconds(15)

    /// The OpenAPI document the server answers `GET /openapi.json` with.
    public static var openAPIDocument: String { Assets.openAPI }
}
