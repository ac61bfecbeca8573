/// A failure of the catalog database, phrased for the person who gave the path or the command.
///
/// `kind` says what class of failure it is, so that a front end can map it to an exit status;
/// `message` is one sentence naming the file, the feed, the id or the limit involved.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Hashable, Sendable {
        /// The database file does not exist and cannot be created (missing folder, no permission).
        case cannotCreate
        /// The file exists but cannot be opened as a Waterfall database: not SQLite, another
        /// application's database, a newer Waterfall schema, a directory, unreadable.
        case cannotOpen
        /// A write failed: read-only file, I/O error, lost connection.
        case cannotWrite
        /// A write needed more room than the disk (SQLite's file system, or the PostgreSQL
        /// server's) has left; the transaction was rolled back, nothing was written.
        case diskFull
        /// Another process held the database's lock for longer than the busy timeout.
        case busy
        /// The database server cannot be reached now (down, restarting, its connection lost);
        /// a write under way when the connection was lost may or may not have been made.
        case unavailable
        /// A named thing (feed, image, layout) does not exist.
        case notFound
        /// The request contradicts the catalog (a limit reached, an index outside a section).
        case invalidRequest
    }

    /// The class of failure.
    public let kind: Kind
    /// One sentence saying what failed and where.
    public let message: String

    /// Creates an error of `kind` with a one-sentence `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
