import Foundation

/// A schema of its own on the test server for one test's catalog, dropped with the last
/// reference to it; the catalog's URL selects it (`options=-c search_path=…`).
public final class PostgresScratchSchema: Sendable {
    /// The server the PostgreSQL suites use, from `$WATERFALL_TEST_POSTGRES`.
    public static let serverURL: String? = ProcessInfo.processInfo.environment["WATERFALL_TEST_POSTGRES"].flatMap {
        $0.isEmpty ? nil : $0
    }

    public let name: String
    /// The catalog's URL: the server's, in this schema.
    public let url: String

    public init() throws {
        guard let server = Self.serverURL else {
            throw PostgresTestError(message: "WATERFALL_TEST_POSTGRES names no server")
        }
        name = "wt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Self.psql(server, "CREATE SCHEMA \(name)")
        url = server + (server.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(name)"
    }

    deinit {
        if let server = Self.serverURL { _ = try? Self.psql(server, "DROP SCHEMA IF EXISTS \(name) CASCADE") }
    }

    /// Runs one statement with `psql` (the client of the server's own package) on the
    /// database at `url`, and returns what it printed (unaligned, tuples only).
    @discardableResult
    public static func psql(_ url: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let errors = ServeOutputReader(error)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PostgresTestError(message: "psql failed (\(process.terminationStatus)): \(errors.text)")
        }
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class ServeOutputReader: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        DispatchQueue.global().async { [self] in
            let all = handle.readDataToEndOfFile()
            lock.withLock { data = all }
            done.signal()
        }
    }

    var text: String {
        done.wait()
        return lock.withLock { String(decoding: data, as: UTF8.self) }
    }
}

public struct PostgresTestError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
