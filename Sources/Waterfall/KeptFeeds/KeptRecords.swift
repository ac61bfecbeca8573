import Synchronization
import WaterfallStore

/// What a page of a kept feed reads beside its rows, kept for one version of the catalog as a
/// server's ``ChangeWatcher`` counts its commits: each feed and layout asked for, resolved (the
/// ``LayoutQuery``: the feed's record and the layout's configuration), and the sections' labels
/// read with it. A reader at that version finds them here, lays its answer out from the kept feed, and
/// reads only its rows, in one statement that holds only while the feed is at the revision the
/// kept record gives (``CatalogStore/images(feedID:fromKey:limit:atRevision:)``): no
/// transaction, on PostgreSQL one round trip where a transaction took five (issue 53).
///
/// Why the version is enough, and the statement's revision check too:
/// - Anything kept was read in a transaction that began after the version was taken, and is
///   kept only if the version is the same once it has read it; any commit after changes the version
///   and drops everything kept. So where the watcher sees every commit at once (SQLite) a
///   reader finds here exactly what a transaction of its own would read.
/// - Where it hears of other servers' commits a moment later (PostgreSQL's notifications) a
///   reader may find records older than the catalog for that moment, as the server's kept
///   answers are (DESIGN section 12). Its rows are then read only if the feed is still at the
///   kept record's revision; else it reads in a transaction, as without this. Two transactions
///   of one version may then show a feed at two revisions: sections' labels are kept by the
///   revision they were read with, so no page shows one revision's labels with another's. A record that
///   changes without the feed's revision (a named layout redefined, a section's title) is
///   served as it was for that moment, the whole answer as it was before the commit.
/// - The server's own writes end the version when each returns (``ChangeWatcher``'s version
///   there adds them up), so a client reads its own write; a write to a feed it keeps, when it
///   commits too (``committed()``), before its kept feed is brought along.
///
/// A server keeps them where each statement is a round trip (PostgreSQL: random pages of a 1M
/// feed 1,080-1,120 a second before, 1,790-2,070 after, p99 75 ms to 45 ms; beside the
/// 20-moves/s writer no change). On SQLite a page's transaction is local and cheap, and beside
/// that writer, whose commits come between a reader's version and its statement, the reads
/// that find the feed moved on and read again made random pages a tenth fewer (5,180-5,230 a
/// second against 4,600; without the writer a tenth more): a server there reads in a
/// transaction each time.
///
/// Bounded: at most ``queryLimit`` queries (a client may send any inline configuration),
/// ``sectionLimit`` sections and ``byteLimit`` bytes of their text (configurations, names and
/// titles); past any, everything kept is dropped and keeping starts again. Only what the catalog
/// holds is kept: an unknown feed or layout is never.
public final class KeptRecords: Sendable {
    static let queryLimit = 1_024
    static let sectionLimit = 65_536
    static let byteLimit = 8 << 20
    /// What an entry costs beside its text.
    static let bytesPerEntry = 128

    private let watcher: any ChangeWatcher
    private let state = Mutex(Kept())
    private let answersMade = Atomic<Int>(0)
    private let ownCommits = Atomic<Int64>(0)

    /// - Parameter watcher: the server's watcher of the catalog, counting its own writes.
    public init(watcher: any ChangeWatcher) {
        self.watcher = watcher
    }

    /// How many answers readers have made from what is kept here, without a transaction.
    public var answers: Int { answersMade.load(ordering: .relaxed) }

    /// Counts an answer made from what is kept here.
    func answered() {
        answersMade.add(1, ordering: .relaxed)
    }

    /// The catalog's version now, or `nil` when the watcher cannot vouch for one (it cannot
    /// hear commits, or the catalog cannot be asked).
    func version() -> Version? {
        guard let catalog = try? watcher.version() else { return nil }
        return Version(catalog: catalog, ownCommits: ownCommits.load(ordering: .acquiring))
    }

    /// Tells that one of the server's own writes has committed: what is kept is of the catalog
    /// before it. Where the watcher counts the server's writes only when each returns (on
    /// PostgreSQL, once the kept feed is brought along, a quarter of a second at most), the
    /// readers in between would find the feed's record older than the catalog, and read their
    /// rows for nothing (none, at the record's revision) before reading in a transaction:
    /// beside a writer that is always in that window, random pages made a tenth fewer a second.
    func committed() {
        ownCommits.add(1, ordering: .releasing)
    }

    /// What is kept is valid for: the watcher's version and the server's own commits, counted
    /// as each commits.
    struct Version: Hashable {
        let catalog: Int64
        let ownCommits: Int64
    }

    /// The labels of the sections `ids` as kept at `version`, read with their feed at
    /// `revision`: `nil` unless all of them are.
    func sections(_ ids: some Collection<Int64>, revision: Int64, at version: Version) -> [SectionRecord]? {
        state.withLock { kept -> [SectionRecord]? in
            guard kept.version == version else { return nil }
            var found: [SectionRecord] = []
            found.reserveCapacity(ids.count)
            for id in ids {
                guard let section = kept.sections[SectionName(id: id, revision: revision)] else { return nil }
                found.append(section)
            }
            return found
        }
    }

    /// The query `feed` and `layout` resolved to at `version`, if kept.
    func query(feed: String, layout: LayoutSource, at version: Version) -> LayoutQuery? {
        state.withLock { kept in
            kept.version == version ? kept.queries[QueryName(feed: feed, layout: layout)] : nil
        }
    }

    /// Keeps what a transaction that began at `version` read, if nothing was committed since.
    func keep(
        _ query: LayoutQuery, feed: String, layout: LayoutSource, sections: [SectionRecord], readAt version: Version
    ) {
        let bytes =
            Self.bytesPerEntry + feed.utf8.count + query.key.utf8.count
            + sections.reduce(0) { $0 + Self.bytesPerEntry + ($1.name?.utf8.count ?? 0) + ($1.title?.utf8.count ?? 0) }
        state.withLock { kept in
            // Looked at under the lock: a reader that took its version before a commit does not
            // put back, after it, what the readers after the commit have kept.
            guard self.version() == version else { return }
            if kept.version != version || kept.queries.count >= Self.queryLimit
                || kept.sections.count + sections.count > Self.sectionLimit || kept.bytes + bytes > Self.byteLimit
            {
                kept = Kept(version: version)
            }
            kept.queries[QueryName(feed: feed, layout: layout)] = query
            for section in sections {
                kept.sections[SectionName(id: section.id, revision: query.feed.revision)] = section
            }
            kept.bytes += bytes
        }
    }

    /// Everything kept, of one version.
    private struct Kept {
        var version = Version(catalog: .min, ownCommits: .min)
        var queries: [QueryName: LayoutQuery] = [:]
        var sections: [SectionName: SectionRecord] = [:]
        /// What they take, counted as ``keep(_:feed:layout:sections:readAt:)`` counts it.
        var bytes = 0
    }

    /// A section as a transaction read it with its feed at a revision. Where the watcher hears
    /// of commits late, two transactions of one version may show the feed at two revisions:
    /// each page takes the labels read with the revision it shows, never another's.
    private struct SectionName: Hashable {
        let id: Int64
        let revision: Int64
    }

    /// A feed and a layout as a request names them.
    private struct QueryName: Hashable {
        let feed: String
        let layout: LayoutSource
    }
}
