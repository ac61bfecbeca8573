import ArgumentParser
import Dispatch
import Foundation
import Logging
import Waterfall
import WaterfallServer

extension WaterfallCommand {
    /// `waterfall serve`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the database over HTTP: the same answers as the commands' --json, under /v1.",
            discussion: """
                Routes, parameters and answers are described by GET /openapi.json. Errors are \
                application/problem+json documents. SIGTERM or SIGINT stops taking connections, lets the \
                requests in flight finish (up to --shutdown-grace, 10 s by default; one still receiving its body \
                then is answered 503), ends event streams with a last `: shutting down` comment, and \
                exits 0. Once the database has API keys (`waterfall key \
                add`), requests need one: Authorization: Bearer SECRET. On an address other machines can reach \
                (any but 127.0.0.0/8, ::1 and localhost) it refuses to start until the database has a write key, \
                unless --allow-anonymous.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("The address to listen on; 127.0.0.1 is this machine only.", valueName: "address"))
        var host = "127.0.0.1"
        @Option(parsing: .unconditional, help: "The port to listen on, 0 for any free one.")
        var port = 8080
        @Option(help: ArgumentHelp("The largest request body, in bytes or with K, M or G.", valueName: "size"))
        var maxBody = "1G"
        @Flag(help: "Answer reads without an API key (writes still need one once the database has keys).")
        var publicRead = false
        @Option(
            help: ArgumentHelp(
                "Memory for feeds' geometry kept hot (28 bytes an image; a feed beyond it is served from the layout cache), half of it filled with the feeds that have named layouts, smallest first, before the server listens (30 s at most), in bytes or with K, M or G; 0 keeps none.",
                valueName: "size"))
        var hotMemory = "256M"
        @Option(
            help: ArgumentHelp(
                "How much of each feed's change log to keep: a count of revisions (at least 256) or a duration such as 30d, 12h; older changes are pruned, and asking for them answers 410.",
                valueName: "revisions|duration"))
        var keepChanges = "100000"
        @Flag(
            help: ArgumentHelp(
                "Serve a database without a write key on an address other machines can reach, to whoever reaches it.",
                discussion:
                    "Off loopback, serve refuses to start without a write key unless given this, and then warns as it starts."
            ))
        var allowAnonymous = false
        @Option(
            help: ArgumentHelp(
                "The least level of the log lines on standard error: trace, debug, info (every request), notice (requests refused or failed, the default), warning, error or critical.",
                valueName: "level"))
        var logLevel: Logger.Level = .notice
        @Option(
            help: ArgumentHelp("How log lines are written: text, or json (one object a line).", valueName: "format"))
        var logFormat: LogFormat = .text
        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Seconds that SIGTERM lets requests in flight go on before one still receiving its body is answered 503; 0 or more.",
                valueName: "seconds"))
        var shutdownGrace = "10"
        @Option(
            help: ArgumentHelp(
                "The most streams (NDJSON listings and event streams) open at once; beyond it, 503 with Retry-After. 1 to 100000.",
                valueName: "count"))
        var maxStreams = StreamLimits().total
        @Option(
            help: ArgumentHelp(
                "The most streams one API key may hold open at once (callers without a key are bounded by --max-streams alone). 1 to 100000.",
                valueName: "count"))
        var maxStreamsPerKey = StreamLimits().perKey
        @Option(
            help: ArgumentHelp(
                "The threads for blocking work: PostgreSQL transactions, request bodies written to disk, compression of large answers. 1 to 1024.",
                valueName: "count"))
        var blockingThreads = BlockingThreads.defaultCount

        func validate() throws {
            for (flag, value) in [("--max-streams", maxStreams), ("--max-streams-per-key", maxStreamsPerKey)]
            where !(1...100_000).contains(value) {
                throw ValidationError("\(flag) must be from 1 to 100000, got \(value).")
            }
            guard (1...1024).contains(blockingThreads) else {
                throw ValidationError("--blocking-threads must be from 1 to 1024, got \(blockingThreads).")
            }
            guard (0...65_535).contains(port) else {
                throw ValidationError("--port must be from 0 to 65535, got \(port).")
            }
            guard Self.bytes(maxBody) != nil else {
                throw ValidationError(
                    "--max-body takes a number of bytes from 1 to 64G, optionally with K, M or G, got \"\(maxBody)\".")
            }
            if host.isEmpty { throw ValidationError("--host must name an address, such as 127.0.0.1 or 0.0.0.0.") }
            do {
                _ = try ChangeRetention(parsing: keepChanges)
            } catch {
                throw ValidationError(error.commandLineMessage)
            }
            guard hotMemory == "0" || Self.bytes(hotMemory) != nil else {
                throw ValidationError(
                    "--hot-memory takes 0 or a number of bytes up to 64G, optionally with K, M or G, got \"\(hotMemory)\"."
                )
            }
            guard Self.seconds(shutdownGrace) != nil else {
                throw ValidationError(
                    "--shutdown-grace takes a number of seconds from 0 to 3600, such as 10 or 2.5, got \"\(shutdownGrace)\"."
                )
            }
        }

        func run() async throws {
            let path = database.resolvedPath
            BlockingThreads.configure(threads: blockingThreads)
            let service = try WaterfallService.openForServing(path: path)
            var configuration = ServerConfiguration()
            configuration.host = host
            configuration.port = port
            configuration.limits.maximumBodyBytes = Self.bytes(maxBody)!
            configuration.publicRead = publicRead
            configuration.hotMemory = Self.bytes(hotMemory) ?? 0
            configuration.allowAnonymous = allowAnonymous
            configuration.limits.shutdownGracePeriod = Self.seconds(shutdownGrace)!
            configuration.limits.streams.total = maxStreams
            configuration.limits.streams.perKey = maxStreamsPerKey
            configuration.keepChanges = try ChangeRetention(parsing: keepChanges)
            let format = logFormat
            LoggingSystem.bootstrap { label in LogLineHandler(label: label, format: format) }
            var logger = Logger(label: "waterfall")
            logger.logLevel = logLevel
            let keyring = try await service.keyring()
            if !ListeningAddress.isLoopback(host) && !keyring.hasWriteKey(at: Date()) {
                guard allowAnonymous else {
                    Terminal.error(
                        "waterfall: error: --host \(host) is reachable from other machines and the database has no write key, so anyone could change it; make one with `waterfall key add NAME --write`, or pass --allow-anonymous to serve it to anyone anyway.\n"
                    )
                    throw ExitCode(64)
                }
                logger.warning(
                    "--allow-anonymous: --host \(host) is reachable from other machines and the database has no write key; while it has no key at all, anyone who reaches the server may read, write and delete every feed."
                )
            } else if keyring.isEmpty {
                logger.notice(
                    "the database has no API keys, so anyone who reaches the server may read and write; `waterfall key add` makes it ask for one."
                )
            }
            let server = try await WaterfallServer(service: service, configuration: configuration, logger: logger)
            let host = host
            try await server.run { port in
                Terminal.print(
                    "waterfall: serving \(service.database.location ?? path) at http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
                )
            }
        }

        /// `1048576`, `512K`, `64M`, `1G` as bytes, or nil outside 1 byte…64 GiB.
        static func bytes(_ text: String) -> Int? {
            let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
            var digits = Substring(text)
            var unit = 1
            if let last = text.last?.uppercased().first, let factor = units[last] {
                digits = text.dropLast()
                unit = factor
            }
            guard let count = Int(digits), count > 0, count <= (64 << 30) / unit else { return nil }
            return count * unit
        }

        /// `10`, `2.5`, `0` as a duration, or nil for anything but a number of seconds from 0 to 3600.
        static func seconds(_ text: String) -> Duration? {
            guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let seconds = Double(text),
                seconds.isFinite, (0...3600).contains(seconds)
            else { return nil }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }
    }

    /// `waterfall feed remove NAME`.
    struct Feed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feed", abstract: "Manage whole feeds.", subcommands: [Remove.self])

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Remove a feed and everything of it: images, sections, change log, layouts and cache.")

            @OptionGroup var database: DatabaseOptions
            @Argument(help: "The feed's name.")
            var name: String

            func run() async throws {
                try await database.open().removeFeed(named: name)
                Terminal.print("removed feed \(cell(name))")
            }
        }
    }
}
