import ArgumentParser
import Foundation
import Waterfall

/// Entry point: parses the command line, runs the command, and turns every failure into one
/// sentence on standard error and the documented exit status (DESIGN section 6):
/// 0 success, 64 usage, 65 bad data, 66 unreadable input, 73/74 database, 1 anything else.
@main
enum Main {
    static func main() async {
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
