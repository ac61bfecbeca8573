import Foundation

/// A schema of its own on the test server for one test's catalog, dropped with the last
/// reference to it; the catalog's URL selects it (`options=-c search_path=…`).
public final class PostgresScratchSchema: Sendable {
    /// The server the PostgreSQL suites use, from `$WATERFALL_TEST_POSTGRES`.
    public static let serverURL: String? = ProcessInfo.processInfo.environment["WATERFALL_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }

    public let name: String
    /// The catalog's URL: the server's, in this schema.
    public let url: String

    public init() throws {
        guard let server = Self.serverURL else { throw PostgresTestError(message: "WATERFALL_TEST_POSTGRES names no server") }
        name = "wt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Self.psql(server, "CREATE SCHEMA \(name)")
        url = server + (server.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
    }

    deinit {
        if let server = Self.serverURL { try? Self.psql(server, "DROP SCHEMA IF EXISTS \(name) CASCADE") }
    }

    /// Runs one statement with `psql` (the client of the server's own package).
    public static func psql(_ server: String, _ sql: String) throws {
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

public struct PostgresTestError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

