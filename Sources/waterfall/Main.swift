import ArgumentParser
import Foundation
import Waterfall

/// Entry point: parses the command line, runs the command, and turns every failure into one
/// sentence on standard error and the documented exit status (DESIGN section 6):
/// 0 success, 64 usage, 65 bad data, 66 unreadable input, 73/74 database, 1 anything else.
///
/// `main` is synchronous and waits for the command on the main thread, which has nothing else
/// to do. An `async` main hands the main thread to libdispatch (`dispatch_main`), which ends it
/// with `pthread_exit`; that unwinds its stack, and in a static executable the unwinder's first
/// use sorts every frame description of the binary: 35 ms of a 40-ms `waterfall page`, where
/// the whole query takes about 2 ms (`Benchmarks/compare.sh`).
@main
enum Main {
    nonisolated static func main() {
        // Started on this thread, where it runs until it first suspends: a command whose
        // store answers on the caller's thread (SQLite, see `SQLiteCatalog`) never does, and
        // starts no other thread. One that suspends goes on on Swift's threads. (A function,
        // not a closure: a closure here would be the main actor's, whose queue nobody drains.)
        Task.immediate(operation: runToEnd)
        finished.wait()
    }

    /// Signalled once the command has run.
    private static let finished = DispatchSemaphore(value: 0)

    nonisolated private static func runToEnd() async {
        await run()
        finished.signal()
    }

    /// Runs the command the arguments name; exits on failure with its status.
    nonisolated static func run() async {
        do {
            if let request = FastLane.request(for: Array(CommandLine.arguments.dropFirst())) {
                try await request.run()
            } else {
                var command = try WaterfallCommand.parseAsRoot()
                if var command = command as? any AsyncParsableCommand {
                    try await command.run()
                } else {
                    try command.run()
                }
            }
            await OpenDatabases.closeAll()
        } catch let failure as WaterfallError {
            await OpenDatabases.closeAll()
            Terminal.fail(failure.commandLineMessage, status: failure.exitStatus)
        } catch {
            await OpenDatabases.closeAll()
            let code = WaterfallCommand.exitCode(for: error)
            if code == .success || error is CleanExit {
                WaterfallCommand.exit(withError: error)
            }
            if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
            // Argument parsing and validation: one sentence, exit 64 (argument-parser's own code).
            var message = WaterfallCommand.message(for: error)
            message = message.split(separator: "\n").first.map(String.init) ?? message
            if !message.hasSuffix(".") { message += "." }
            Terminal.fail(message + " See 'waterfall help'.", status: code.rawValue)
        }
    }
}
