/// A catalog whose engine can copy it, as one consistent snapshot, into a new file while other
/// connections and processes go on reading and writing it: SQLite's online backup.
///
/// PostgreSQL catalogs are copied with PostgreSQL's own tools (`pg_dump`), not through this.
public protocol CatalogFileCopying: CatalogStore {
    /// Writes a complete copy of the catalog into a new database file at `path`, and runs `body`
    /// in the read transaction the copy is made from: what `body` reads is what the copy holds.
    ///
    /// Writers are not held up: the copy reads a snapshot, as any reader does. `path` must not
    /// exist; the caller decides where the finished file goes (a copy that fails half way is a
    /// partial file at `path`, which the caller removes). Messages name the copy `name` (the
    /// file the user asked for, where `path` is a temporary one).
    /// - Throws: what `body` throws; ``StoreError`` `cannotCreate` when `path` cannot be
    ///   created, `diskFull` when its disk fills up, other kinds for failures of the catalog.
    func copy<T: Sendable>(
        to path: String, shownAs name: String, reading body: @escaping @Sendable (any CatalogTransaction) throws -> T
    ) async throws -> T
}
