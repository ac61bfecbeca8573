import Foundation
import GRDB
import WaterfallStore
import WaterfallTestSupport

/// A fresh, empty place for one test's catalog in one engine: a temporary SQLite file, or a
/// PostgreSQL schema of its own (``PostgresScratchSchema``). The conformance suite opens it
/// through ``CatalogLocation/open(_:)``, as a command does, and sees it only as
/// `any CatalogStore`; ``execute(_:)`` and ``snapshot()`` reach under the store for the tests
/// that prepare or inspect a catalog the store would refuse.
final class ScratchCatalog: Sendable {
    let engine: TestEngine
    /// What a user would give `--db`: the file's path, or the schema's URL.
    let location: String
    private let folder: TemporaryDirectory?
    /// Dropped with the last reference to the catalog.
    private let schema: PostgresScratchSchema?

    init(_ engine: TestEngine) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            let folder = try TemporaryDirectory(prefix: "waterfall-conformance")
            self.folder = folder
            schema = nil
            location = folder.path("catalog.sqlite")
        case .postgres:
            let schema = try PostgresScratchSchema()
            self.schema = schema
            folder = nil
            location = schema.url
        }
    }

    deinit {
        folder?.remove()
    }

    /// How a process opens a catalog: a command, with one connection, or a server, with a pool
    /// of readers beside one writer (``CatalogLocation/openForServing(_:)``).
    enum Opening: String, CaseIterable, Sendable {
        case command
        case server
    }

    /// Opens (creating and migrating on first use) the catalog, as `waterfall --db` does, or as
    /// `waterfall serve` does.
    func open(_ opening: Opening = .command) throws -> any CatalogStore {
        switch opening {
        case .command: try CatalogLocation.open(location)
        case .server: try CatalogLocation.openForServing(location)
        }
    }

    /// A fresh catalog of `engine`, opened as `opening` says, given to `body` with its store,
    /// and closed (awaited) when `body` returns or throws: a conformance test's frame.
    static func withStore<T>(
        _ engine: TestEngine, _ opening: Opening = .command,
        _ body: (ScratchCatalog, any CatalogStore) async throws -> T
    ) async throws -> T {
        let catalog = try ScratchCatalog(engine)
        return try await catalog.withStore(opening) { store in try await body(catalog, store) }
    }

    /// Opens the catalog, gives `body` its store, and closes it (awaited) when `body` returns or
    /// throws.
    func withStore<T>(_ opening: Opening = .command, _ body: (any CatalogStore) async throws -> T) async throws -> T {
        let store = try open(opening)
        do {
            let result = try await body(store)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    /// Opens the catalog and gives `body` a write transaction on it, then closes it.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (any CatalogTransaction) throws -> T) async throws -> T {
        try await withStore { store in try await store.write(body) }
    }

    /// Runs `sql` on the catalog's database directly, not through the store (GRDB on the file;
    /// `psql` in the schema).
    func execute(_ sql: String) throws {
        switch engine {
        case .sqlite:
            let queue = try DatabaseQueue(path: location)
            try queue.write { db in try db.execute(sql: sql) }
            try queue.close()
        case .postgres:
            try PostgresScratchSchema.psql(location, sql)
        }
    }

    /// Everything the catalog holds, byte for byte where the engine allows: the file's bytes
    /// (with its WAL and journal, if any), or a listing of the schema's tables and of every
    /// row of each. Equal snapshots mean the catalog was left untouched.
    func snapshot() throws -> [String] {
        switch engine {
        case .sqlite:
            let files = [location, location + "-wal", location + "-journal"]
            return files.map { file in
                guard let data = FileManager.default.contents(atPath: file) else { return "\(file): none" }
                return "\(file): \(data.count) bytes, \(data.base64EncodedString())"
            }
        case .postgres:
            let tables = try PostgresScratchSchema.psql(
                location,
                """
                SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER BY tablename
                """
            ).split(separator: "\n").map(String.init)
            return try tables.map { table in
                let rows = try PostgresScratchSchema.psql(location, "SELECT t::text FROM \(table) t ORDER BY 1")
                return "\(table): \(rows)"
            }
        }
    }
}
