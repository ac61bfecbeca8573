import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Waterfall

/// Runs the service's calls, which block on SQLite, on a thread pool of their own, so that
/// Swift's cooperative threads (and with them every other connection) never wait for a disk
/// or a lock; and keeps the encoded answers of reads for as long as the database is unchanged.
///
/// An answer is kept under the request's path and query, tagged with the database's version
/// (``ChangeWatcher``) read *before* computing it; it is served only while the version is still
/// that one, so any commit, by this server or by another process, retires every kept answer.
/// That costs one look at SQLite's WAL index per read, a few microseconds, and never a stale
/// byte.
final class ServiceRunner: Sendable {
    let service: WaterfallService
    private let pool: NIOThreadPool
    private let watcher: ChangeWatcher?
    private let answers = NIOLockedValueBox(KeptAnswers())

    /// - Parameters:
    ///   - threads: threads for SQLite calls: readers run in parallel, one writer at a time.
    ///   - keepsAnswers: whether to keep encoded answers (needs a database file to watch).
    init(service: WaterfallService, threads: Int, keepsAnswers: Bool) throws(WaterfallError) {
        self.service = service
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        watcher = keepsAnswers ? try service.makeChangeWatcher() : nil
    }

    /// Stops the thread pool once its queued work is done.
    func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    /// Runs `body` with the service on the thread pool.
    func run<T: Sendable>(_ body: @escaping @Sendable (WaterfallService) throws -> T) async throws -> T {
        try await pool.runIfActive { [service] in try body(service) }
    }

    /// The answer kept for `key` while the database is unchanged; else `compute`'s, kept.
    /// `compute` gives the document and the revision of the feed it shows.
    func answer(for key: String, _ compute: @escaping @Sendable (WaterfallService) throws -> ([UInt8], Int64?)) async throws -> Answer {
        // Without a version (no file to watch, or the WAL index busy being rebuilt after a
        // crash), the answer is computed and not kept.
        guard let watcher, let version = try? watcher.version() else {
            let (body, revision) = try await run(compute)
            return Answer(body: body, revision: revision)
        }
        if let kept = answers.withLockedValue({ $0.answer(for: key, version: version) }) {
            return kept
        }
        let (body, revision) = try await run(compute)
        let answer = Answer(body: body, revision: revision)
        answers.withLockedValue { $0.keep(answer, for: key, version: version) }
        return answer
    }
}

/// Encoded answers of one database version, bounded in bytes.
private struct KeptAnswers {
    /// The most bytes kept; past it, everything kept is dropped and keeping starts again.
    static let budget = 64 << 20
    private var version: Int64 = -1
    private var answers: [String: Answer] = [:]
    private var bytes = 0

    mutating func answer(for key: String, version: Int64) -> Answer? {
        guard version == self.version else { return nil }
        return answers[key]
    }

    mutating func keep(_ answer: Answer, for key: String, version: Int64) {
        if version != self.version {
            // Only an answer of a newer version replaces the kept ones (the version only grows).
            guard version > self.version else { return }
            self.version = version
            answers.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if bytes + answer.body.readableBytes > Self.budget {
            answers.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if let old = answers.updateValue(answer, forKey: key) { bytes -= old.body.readableBytes }
        bytes += answer.body.readableBytes
    }
}
