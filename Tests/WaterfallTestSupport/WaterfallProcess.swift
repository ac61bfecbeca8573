import Foundation

/// Runs the built `waterfall` executable, as a user would, and captures what it prints.
public enum WaterfallProcess {
    /// What one run printed and how it exited.
    public struct Result: Sendable {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// The `waterfall` binary next to the test bundle (SwiftPM puts both in its products folder).
    public static var executable: URL {
        let own = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        var folder = own.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "waterfall")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return own.deletingLastPathComponent().appending(path: "waterfall")
    }

    /// Runs `waterfall arguments…` in `directory` with `input` on standard input.
    public static func run(
        _ arguments: [String], in directory: URL? = nil, input: Data? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environmentValues = ProcessInfo.processInfo.environment
        environmentValues.removeValue(forKey: "WATERFALL_DB")
        for (key, value) in environment { environmentValues[key] = value }
        process.environment = environmentValues
        let output = Pipe()
        let error = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read both pipes while the process runs, so that a large output cannot block it.
        let outputData = LockedData()
        let errorData = LockedData()
        let group = DispatchGroup()
        for (pipe, sink) in [(output, outputData), (error, errorData)] {
            group.enter()
            DispatchQueue.global().async {
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
        process.waitUntilExit()
        group.wait()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData.get(), as: UTF8.self),
            standardError: String(decoding: errorData.get(), as: UTF8.self))
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.withLock { data = value } }
    func get() -> Data { lock.withLock { data } }
}
