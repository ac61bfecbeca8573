import NIOConcurrencyHelpers
import NIOPosix

/// The process's threads for blocking work (DESIGN section 19): a PostgreSQL transaction's
/// body, which waits for each of its statements; a request body written to its temporary file;
/// the compression of a large answer. A fixed pool (swift-nio's `NIOThreadPool`), never a thread
/// made per request or transaction and never one of Swift's cooperative threads: work beyond
/// its threads waits in its queue, and work whose caller is cancelled while it waits never runs.
///
/// `waterfall serve --blocking-threads N` sizes it (``configure(threads:)``) before anything
/// uses it; a command line's process uses the default.
public enum BlockingThreads {
    /// The threads when nothing configures them: a PostgreSQL transaction takes one only once
    /// it has its connection (``PostgresPool``), so a server's pool of 8 connections holds at
    /// most 8 of them, with room left for file writes and compressions beside them. Idle
    /// threads cost an 8-MiB stack of address space.
    public static let defaultCount = 64

    private static let requested = NIOLockedValueBox<Int?>(nil)

    /// Sizes the pool; `false` when it is running already (with the size it started with).
    @discardableResult
    public static func configure(threads: Int) -> Bool {
        requested.withLockedValue { requested in
            guard requested == nil else { return false }
            requested = max(1, threads)
            return true
        }
    }

    /// The pool, started on first use with the configured size (or ``defaultCount``).
    static let pool: NIOThreadPool = {
        let count = requested.withLockedValue { requested in
            if requested == nil { requested = defaultCount }
            return requested!
        }
        let pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
        return pool
    }()

    /// How many threads the pool has (starting it).
    public static var count: Int {
        _ = pool
        return requested.withLockedValue { $0 ?? defaultCount }
    }

    /// Runs `body` on one of the pool's threads while the caller awaits it without a thread.
    /// - Throws: what `body` throws; `CancellationError` when the caller is cancelled before a
    ///   thread takes it.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.runIfActive(body)
    }
}
