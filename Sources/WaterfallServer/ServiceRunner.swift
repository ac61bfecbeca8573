import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Synchronization
import Waterfall

/// Runs the service's calls for the routes, and keeps the encoded answers of reads for as long
/// as the database is unchanged. The service awaits its store, which runs each transaction on
/// threads of its own (GRDB's queues for SQLite, the catalog's for PostgreSQL), so Swift's
/// cooperative threads, and with them every other connection, never wait for a disk or a lock.
///
/// An answer is kept under the request's path and query and the caller's scope
/// (``KeptAnswerKey``: callers of different scopes never share one), tagged with the database's
/// version read *before* computing it: the ``ChangeWatcher``'s count of commits and this
/// server's own count of its writes. It is served only while the version is still that one, so
/// any commit retires every kept answer: on SQLite, any process's at once (one look at the
/// WAL-index header in shared memory per read, no lock, no system call); on PostgreSQL, this
/// server's own when the write returns, after its kept feed has been brought along (so the
/// writer reads its write: read-your-writes), and another instance's when its notification
/// arrives, a moment later (DESIGN section 12); while the notifications are not heard every
/// version is new, so nothing kept is served. Concurrent requests for the same answer wait for
/// one computation.
final class ServiceRunner: Sendable {
    let service: WaterfallService
    /// Where kept-answer hits and misses are counted.
    let metrics: ServerMetrics
    private let watcher: (any ChangeWatcher)?
    private let answers: NIOLockedValueBox<KeptAnswers>
    /// Writes this server has made (counted when each returns): part of the version, so that a
    /// client reads its own write at once even where the watcher hears of commits later.
    private let ownWrites: OwnWriteCount
    /// The ``CommitTag`` of this server's writes, whose commits its watcher does not count
    /// (where the engine can tell them): they count when the write returns, once the service
    /// has brought its kept feed to the new revision, not a moment after the commit.
    let commitTag: String
    /// Computations under way, by version and key: concurrent requests for the same answer
    /// (the 64 connections that all ask again after a commit) wait for one computation.
    private let inFlight: NIOLockedValueBox<[KeptAnswerFlight: Task<Answer, any Error>]>

    /// - Parameters:
    ///   - watcher: the server's watcher of the database, when it keeps encoded answers until
    ///     the version changes; nil keeps none. It may leave out the commits of writes tagged
    ///     `commitTag`: this runner counts them.
    ///   - commitTag: the ``CommitTag`` of the writes run through ``write(_:)`` and
    ///     ``maintain(_:)``.
    ///   - ownWrites: where it counts them.
    init(
        service: WaterfallService, watcher: (any ChangeWatcher)?, metrics: ServerMetrics,
        commitTag: String = CommitTag.make(), ownWrites: OwnWriteCount = OwnWriteCount()
    ) {
        self.service = service
        self.metrics = metrics
        self.watcher = watcher
        self.commitTag = commitTag
        answers = NIOLockedValueBox(KeptAnswers())
        self.ownWrites = ownWrites
        inFlight = NIOLockedValueBox([:])
    }

    /// The same runner, its service answering for the view `view` (DESIGN section 20): it
    /// shares this one's kept answers (kept under the request's path, which names the view),
    /// computations in flight and count of writes.
    func inView(_ view: String) -> ServiceRunner {
        ServiceRunner(sharing: self, service: service.inView(view))
    }

    private init(sharing other: ServiceRunner, service: WaterfallService) {
        self.service = service
        metrics = other.metrics
        watcher = other.watcher
        answers = other.answers
        ownWrites = other.ownWrites
        commitTag = other.commitTag
        inFlight = other.inFlight
    }

    /// Runs `body`, a read, with the service.
    func run<T: Sendable>(_ body: @Sendable (WaterfallService) async throws -> T) async throws -> T {
        try await body(service)
    }

    /// Runs `body`, a write, with the service, and counts it as this server's write.
    func write<T: Sendable>(_ body: @Sendable (WaterfallService) async throws -> T) async throws -> T {
        // Counted whether it committed or not (a failure may come after the commit): at worst
        // a kept answer is computed again.
        defer { ownWrites.add() }
        return try await CommitTag.$current.withValue(commitTag) { try await body(service) }
    }

    /// Runs `body`, a best-effort write that may change nothing (pruning the change log),
    /// counted as this server's write, which retires the kept answers, only when it says it
    /// changed something (or fails).
    func maintain(_ body: @Sendable (WaterfallService) async throws -> Bool) async throws {
        // Counted also when it fails: a batch may have committed before (its notification
        // tagged, and so not heard).
        var changed = true
        defer { if changed { ownWrites.add() } }
        changed = try await CommitTag.$current.withValue(commitTag) { try await body(service) }
    }

    /// The number of writes this server has made, as they returned: what a watcher that leaves
    /// them out (``commitTag``) adds up to the database's version with (``OwnWritesWatcher``).
    var ownWriteCount: Int64 { ownWrites.count }

    /// The version kept answers are tagged with, or `nil` when none can be vouched for now.
    private func currentVersion() -> AnswerVersion? {
        guard let watcher, let commits = try? watcher.version() else { return nil }
        return AnswerVersion(commits: commits, ownWrites: ownWrites.count)
    }

    /// The answer kept for the request (under its URI and the caller's scope, `path.scope`)
    /// while the database is unchanged; else a new one, `compute`'s, kept. It gives the
    /// document and the revision of the feed it shows.
    func answer(
        for request: Request, _ path: PathParameters,
        _ compute: @escaping @Sendable (WaterfallService) async throws -> ([UInt8], FeedVersion?)
    ) async throws -> Answer {
        let key = KeptAnswerKey(target: request.uri.description, scope: path.scope)
        @Sendable func computed() async throws -> Answer {
            let (body, version) = try await compute(service)
            return Answer(body: body, version: version)
        }
        // Without a version (no file to watch, or the WAL index busy being rebuilt after a
        // crash), the answer is computed and not kept.
        guard let version = currentVersion() else {
            metrics.keptAnswer(hit: false)
            return try await computed()
        }
        if let kept = answers.withLockedValue({ $0.answer(for: key, version: version) }) {
            metrics.keptAnswer(hit: true)
            return kept.answer
        }
        metrics.keptAnswer(hit: false)
        let flight = KeptAnswerFlight(version: version, key: key)
        let (task, started) = inFlight.withLockedValue { tasks in
            if let task = tasks[flight] { return (task, false) }
            let task = Task { try await computed() }
            tasks[flight] = task
            return (task, true)
        }
        defer { if started { inFlight.withLockedValue { $0[flight] = nil } } }
        let answer = try await task.value
        guard started else { return answer }
        // Kept only if nothing was committed meanwhile (the answer may show either state).
        if currentVersion() == version {
            let kept = KeptAnswer(answer: answer, access: path.access, feed: path.values["feed"], route: path.route)
            answers.withLockedValue { $0.keep(kept, for: key, version: version) }
        }
        return answer
    }
}

extension ServiceRunner {
    /// The answer kept for exactly this URI and scope at the database's current version, with
    /// what the gatekeeper needs to admit the request to it: the fast path of repeated reads,
    /// which skips routing and parameter parsing (they gave this very answer before).
    func keptAnswer(for key: KeptAnswerKey) -> KeptAnswer? {
        guard let version = currentVersion() else { return nil }
        return answers.withLockedValue { $0.answer(for: key, version: version) }
    }
}

/// An answer and what admits a request to it: the route's access and the feed it is about;
/// and the route's pattern, for the access log.
struct KeptAnswer: Sendable {
    let answer: Answer
    let access: Route.Access
    let feed: String?
    let route: String
}

/// A computation under way: the answer of `key` at database version `version`.
private struct KeptAnswerFlight: Hashable {
    let version: AnswerVersion
    let key: KeptAnswerKey
}

/// What a kept answer is valid for: the watcher's count of commits and this server's writes.
private struct AnswerVersion: Hashable {
    var commits: Int64
    var ownWrites: Int64
}

/// Encoded answers of one database version, bounded in bytes.
private struct KeptAnswers {
    /// The most bytes kept; past it, everything kept is dropped and keeping starts again.
    /// 16 MiB hold some 600 pages of 100 images: the answers clients repeat (a feed's first
    /// pages, its section index) stay; random deep pages, which nobody repeats, filled 64 MiB
    /// within seconds and were the largest part of a 1M-image server's peak memory. The budget
    /// counts the plain bytes; an answer's gzip copy, made when a client first asks for it,
    /// adds about an eighth of them (serve.sh's page of 100 images: 14,767 bytes, 1,692
    /// gzipped), so at most some 18 MiB are held.
    static let budget = 16 << 20
    /// What an answer costs beside its body: its key (the request's target, counted too), its
    /// entry and buffers' headers. Small answers (a `locate` of 250 bytes) are most of their
    /// cost: counted by their bodies alone, 16 MiB of them held some 60,000 entries and 45 MiB
    /// of a 1M-image server's peak memory (`Benchmarks/serve.sh`).
    static let overheadPerAnswer = 384
    private var version = AnswerVersion(commits: .min, ownWrites: .min)
    private var answers: [KeptAnswerKey: KeptAnswer] = [:]
    private var bytes = 0

    /// What keeping `answer` under `key` costs.
    private static func cost(of answer: Answer, _ key: KeptAnswerKey) -> Int {
        answer.body.plain.readableBytes + key.target.utf8.count + overheadPerAnswer
    }

    mutating func answer(for key: KeptAnswerKey, version: AnswerVersion) -> KeptAnswer? {
        guard version == self.version else { return nil }
        return answers[key]
    }

    mutating func keep(_ kept: KeptAnswer, for key: KeptAnswerKey, version: AnswerVersion) {
        let answer = kept.answer
        if version != self.version {
            // The caller checked that `version` is still the database's: the kept answers of
            // any other version will never be asked for again.
            self.version = version
            answers.removeAll(keepingCapacity: true)
            bytes = 0
        }
        let cost = Self.cost(of: answer, key)
        if bytes + cost > Self.budget {
            answers.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if let old = answers.updateValue(kept, forKey: key) { bytes -= Self.cost(of: old.answer, key) }
        bytes += cost
    }
}

/// The server's watcher of the database as its event streams and keyring see it, where the
/// store's watcher leaves out this server's own commits (their ``ServiceRunner/commitTag``, on
/// PostgreSQL): the store's version plus the runner's count of them, so that either moves the
/// version on.
final class OwnWritesWatcher: ChangeWatcher {
    private let store: any ChangeWatcher
    private let ownWrites: OwnWriteCount

    init(_ store: any ChangeWatcher, ownWrites: OwnWriteCount) {
        self.store = store
        self.ownWrites = ownWrites
    }

    func version() throws -> Int64 {
        try store.version() &+ ownWrites.count
    }

    var seesCommitsAtOnce: Bool { store.seesCommitsAtOnce }
}

/// The writes a server has made, counted as each returns (``ServiceRunner/write(_:)``): shared
/// by its runner and the watchers that add them to the store's version (``OwnWritesWatcher``).
final class OwnWriteCount: Sendable {
    private let value = Atomic<Int64>(0)

    var count: Int64 { value.load(ordering: .acquiring) }

    func add() {
        value.add(1, ordering: .releasing)
    }
}
