import Foundation
import Testing

/// The storage engines the service suites run on: SQLite always, PostgreSQL when
/// `$WATERFALL_TEST_POSTGRES` names a server (a `postgres://` URL of a user who may create
/// schemas; `.ci/run` starts one and sets it, and fails when these suites were skipped).
enum TestEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The engines to test here.
    static let all: [TestEngine] = PostgresScratchSchema.serverURL == nil ? [.sqlite] : [.sqlite, .postgres]
}

/// A schema of its own on the test server for one test's catalog, dropped with the last
/// reference to it; the catalog's URL selects it (`options=-c search_path=…`).
final class PostgresScratchSchema: Sendable {
    /// The server the PostgreSQL suites use, from `$WATERFALL_TEST_POSTGRES`.
    static let serverURL: String? = ProcessInfo.processInfo.environment["WATERFALL_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    let name: String
    /// The catalog's URL: the server's, in this schema.
    let url: String

    init() throws {
        let server = try #require(Self.serverURL, "WATERFALL_TEST_POSTGRES names no server")
        name = "wt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Self.psql(server, "CREATE SCHEMA \(name)")
        url = server + (server.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
    }

    deinit {
        if let server = Self.serverURL { try? Self.psql(server, "DROP SCHEMA IF EXISTS \(name) CASCADE") }
    }

    /// Runs one statement with `psql` (the client of the server's own package).
    static func psql(_ server: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", server, "-c", sql]
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PostgresTestError(message: "psql failed (\(process.terminationStatus)): \(String(decoding: message, as: UTF8.self))")
        }
    }
}

struct PostgresTestError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

@Suite struct EngineCoverageTests {
    /// CI must not pass with the PostgreSQL suites skipped: `.ci/run` starts a server and names
    /// it in `$WATERFALL_TEST_POSTGRES`.
    @Test func continuousIntegrationRunsThePostgreSQLSuites() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(TestEngine.all.contains(.postgres), "CI=true, but WATERFALL_TEST_POSTGRES names no PostgreSQL server")
    }
}
