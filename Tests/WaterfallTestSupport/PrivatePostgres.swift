import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of one test's own (`initdb` in a temporary folder, on a free port), which
/// the test may stop, crash and restart without touching the server the other suites share.
///
/// It needs root (the server runs as the `postgres` user, through `runuser`) and PostgreSQL's
/// binaries in ``binaries``; ``unavailableReason`` says why it cannot be made here.
public final class PrivatePostgres: @unchecked Sendable {
    /// Where `initdb`, `pg_ctl` and `postgres` are.
    public static let binaries =
        ProcessInfo.processInfo.environment["WATERFALL_TEST_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Why no private server can be made here, or nil when one can.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "a private PostgreSQL server needs root (to run it as the postgres user)" }
        for tool in ["initdb", "pg_ctl", "postgres"]
        where !FileManager.default.isExecutableFile(atPath: "\(binaries)/\(tool)") {
            return "\(binaries)/\(tool) is missing (apt-get install postgresql, or set WATERFALL_TEST_PG_BIN)"
        }
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")
            && !FileManager.default.isExecutableFile(atPath: "/sbin/runuser")
        {
            return "runuser is missing"
        }
        if getpwnam("postgres") == nil { return "there is no postgres user" }
        return nil
    }

    public let folder: String
    public let port: Int
    /// The server's database, as the `postgres` user (trust authentication on 127.0.0.1).
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }
    private var data: String { folder + "/data" }

    /// Makes and starts the server.
    public init() throws {
        var template = Array((NSTemporaryDirectory() + "waterfall-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresTestError(message: "mkdtemp failed") }
        folder = String(cString: made)
        port = try Self.freePort()
        guard let user = getpwnam("postgres") else { throw PostgresTestError(message: "no postgres user") }
        chown(folder, user.pointee.pw_uid, user.pointee.pw_gid)
        chmod(folder, 0o700)
        try Self.asPostgres([
            "\(Self.binaries)/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8",
        ])
        try start()
    }

    deinit {
        _ = try? pgCtl(["stop", "-m", "immediate"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Starts the server and returns once it takes connections.
    public func start() throws {
        // fsync off: a crash here is the process's, never the machine's, and the disk is shared.
        try pgCtl([
            "-o", "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off", "-l", folder + "/log", "-w",
            "-t", "60", "start",
        ])
    }

    /// Stops the server as a crash would (`-m immediate`: no checkpoint, clients cut off).
    public func stopImmediately() throws {
        try pgCtl(["-m", "immediate", "-w", "-t", "60", "stop"])
    }

    /// `pg_ctl restart -m immediate`; returns once the server takes connections again.
    public func restartImmediately() throws {
        try pgCtl([
            "-m", "immediate", "-o", "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off", "-l",
            folder + "/log", "-w", "-t", "60", "restart",
        ])
    }

    @discardableResult
    private func pgCtl(_ arguments: [String]) throws -> String {
        try Self.asPostgres(["\(Self.binaries)/pg_ctl", "-D", data] + arguments)
    }

    /// Runs a command as the postgres user; its output, or an error with it.
    @discardableResult
    private static func asPostgres(_ command: [String]) throws -> String {
        let process = Process()
        // Through a shell that closes every descriptor but the standard three first: the server
        // `pg_ctl start` leaves running would inherit the test's (the pipes of the processes it
        // watches, the one Foundation learns a child's exit by), and they would never close.
        let runuser =
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") ? "/usr/sbin/runuser" : "/sbin/runuser"
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments =
            [
                "-c", #"n=3; while [ $n -lt 1024 ]; do eval "exec $n>&-" 2>/dev/null; n=$((n+1)); done; exec "$@""#,
                "bash", runuser, "-u", "postgres", "--",
            ] + command
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        // A file, not a pipe: the server that `pg_ctl start` leaves running inherits it, and a
        // pipe would never reach its end.
        let outputPath = NSTemporaryDirectory() + "waterfall-pg-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw PostgresTestError(message: "\(command.first ?? "") failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }

    /// A TCP port nothing listens on now.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw PostgresTestError(message: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
