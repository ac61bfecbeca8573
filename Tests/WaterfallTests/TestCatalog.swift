import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// A service over a fresh catalog of one engine, with helpers that speak in feed JSON and read
/// the catalog back as "section/id" strings. The cache stride is small so that tests cross many
/// checkpoints with few images.
struct TestCatalog {
    let service: WaterfallService
    let engine: TestEngine
    /// Drops the PostgreSQL schema when the last copy of the catalog goes.
    private let scratch: PostgresScratchSchema?
    /// The SQLite file of a catalog made `onDisk`, in a directory removed with the last copy.
    let file: String?
    private let directory: ScratchDirectory?

    /// A catalog in memory (SQLite) or in a scratch schema (PostgreSQL); `onDisk`, an SQLite
    /// catalog is a file instead, which ``otherInstance()`` opens again.
    init(_ engine: TestEngine = .sqlite, stride: Int = 4, onDisk: Bool = false) throws {
        self.engine = engine
        switch engine {
        case .sqlite:
            scratch = nil
            if onDisk {
                let directory = ScratchDirectory(try TemporaryDirectory(prefix: "waterfall-catalog"))
                self.directory = directory
                let path = directory.directory.path("catalog.sqlite")
                file = path
                service = WaterfallService(database: try SQLiteCatalog.open(atPath: path), stride: stride)
            } else {
                file = nil
                directory = nil
                service = WaterfallService(database: try SQLiteCatalog.inMemory(), stride: stride)
            }
        case .postgres:
            let schema = try PostgresScratchSchema()
            scratch = schema
            file = nil
            directory = nil
            service = WaterfallService(database: try PostgresCatalog.open(url: schema.url), stride: stride)
        }
    }

    /// The same catalog opened again, as another process (an SQLite file: its own connections)
    /// or another server instance (PostgreSQL: its own pool, as `serve` opens it) would: what
    /// one writes, the other learns only from the database. An in-memory SQLite catalog has no
    /// second opening, so it answers itself.
    func otherInstance() throws -> any CatalogStore {
        if let scratch { return try PostgresCatalog.open(url: scratch.url, connections: 3) }
        if let file { return try SQLiteCatalog.openForServing(atPath: file) }
        return service.database
    }

    /// Builds a feed file from compact specs: `"id"` (unnamed section) or `"id@section"`, an
    /// optional `:WxH` size suffix and `!` for full span: `"a@s1:300x200!"`.
    static func feedJSON(_ name: String = "f", sections: [String] = [], _ specs: [String]) -> String {
        let declared = sections.map { "{\"id\":\"\($0)\",\"title\":\"Title \($0)\"}" }.joined(separator: ",")
        let images = specs.map { spec -> String in
            var rest = Substring(spec)
            let full = rest.hasSuffix("!")
            if full { rest = rest.dropLast() }
            var width = 300
            var height = 200
            if let colon = rest.lastIndex(of: ":") {
                let size = rest[rest.index(after: colon)...].split(separator: "x")
                width = Int(size[0])!
                height = Int(size[1])!
                rest = rest[..<colon]
            }
            let parts = rest.split(separator: "@", maxSplits: 1).map(String.init)
            var fields = ["\"id\":\"\(parts[0])\"", "\"width\":\(width)", "\"height\":\(height)"]
            if parts.count > 1 { fields.append("\"section\":\"\(parts[1])\"") }
            if full { fields.append("\"span\":\"full\"") }
            return "{" + fields.joined(separator: ",") + "}"
        }.joined(separator: ",")
        return "{\"feed\":\"\(name)\",\"sections\":[\(declared)],\"images\":[\(images)]}"
    }

    @discardableResult
    func importFeed(
        _ specs: [String], sections: [String] = [], feed: String = "f",
        mode: ImportMode = .snapshot, resetOrder: Bool = false
    ) async throws -> ChangeSummary {
        try await importJSON(Self.feedJSON(feed, sections: sections, specs), mode: mode, resetOrder: resetOrder)
    }

    @discardableResult
    func importJSON(_ json: String, mode: ImportMode = .snapshot, resetOrder: Bool = false) async throws
        -> ChangeSummary
    {
        let document = try FeedDecoder().decode(Array(json.utf8), format: .json, source: "test.json")
        return try await service.importFeed(
            document, named: document.feed ?? "f", options: .init(mode: mode, resetOrder: resetOrder))
    }

    /// The catalog order as "section/id" ("-/id" for the unnamed section).
    func order(_ feed: String = "f") async throws -> [String] {
        try await service.images(feed: feed, offset: 0, limit: WaterfallService.maximumLimit).images.map {
            "\($0.section ?? "-")/\($0.id)"
        }
    }

    /// The feed's sections in order, empty ones included ("-" for the unnamed one).
    func sections(_ feed: String = "f") async throws -> [String] {
        try await service.database.read { tx in
            guard let record = try tx.feed(named: feed) else { return [] }
            return try tx.sections(feedID: record.id).map { $0.name ?? "-" }
        }
    }

    func revision(_ feed: String = "f") async throws -> Int64 {
        try await service.images(feed: feed, offset: 0, limit: 1).revision
    }
}

/// A temporary directory removed when the last reference to it goes.
private final class ScratchDirectory: Sendable {
    let directory: TemporaryDirectory
    init(_ directory: TemporaryDirectory) { self.directory = directory }
    deinit { directory.remove() }
}
