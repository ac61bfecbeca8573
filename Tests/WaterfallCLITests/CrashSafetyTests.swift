import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reliability suites (crash safety, concurrent use) run one after the other: each spawns
/// many processes against large databases, and the machine may have only two cores.
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct ReliabilityTests {}

extension ReliabilityTests {
    /// DESIGN section 7: `kill -9` at any moment of an import, a reorder or a cache rebuild leaves
    /// a database that passes `PRAGMA integrity_check`, holds exactly the state before or after
    /// the command, and answers the next command as a fresh database in that state would.
    @Suite struct CrashSafetyTests {
        /// What a crash iteration runs on the database (the command that gets killed).
        enum Step: Equatable {
            case importFeed(path: String, feed: String, resetOrder: Bool)
            case reorder(path: String)
            /// `move ID --to 0` (run to completion, invalidating the cache), then `layout warm`,
            /// killed at a random moment or, `atTheWrite`, as soon as it holds the write lock in
            /// the second half of its run (it writes its checkpoints in a few milliseconds at the end).
            case warm(afterMoving: String, atTheWrite: Bool)

            var arguments: [String] {
                switch self {
                case .importFeed(let path, let feed, let resetOrder):
                    ["import", path, "--feed", feed, "--json"] + (resetOrder ? ["--reset-order"] : [])
                case .reorder(let path):
                    ["reorder", path, "--feed", "big", "--json"]
                case .warm:
                    ["layout", "warm", "phone", "--feed", "big", "--json"]
                }
            }

            var name: String {
                switch self {
                case .importFeed(let path, let feed, let resetOrder):
                    "import \(URL(fileURLWithPath: path).lastPathComponent) --feed \(feed)\(resetOrder ? " --reset-order" : "")"
                case .reorder(let path): "reorder \(URL(fileURLWithPath: path).lastPathComponent)"
                case .warm(let id, let atTheWrite):
                    "move \(id) --to 0; layout warm phone\(atTheWrite ? ", killed in its write" : "")"
                }
            }
        }

        /// Where a kill landed.
        enum Landing: String, CaseIterable {
            /// The process held SQLite's write lock (WAL or rollback journal): inside its write transaction.
            case midTransaction = "mid-transaction"
            /// Killed outside the write lock, and the database holds the old state.
            case beforeCommit = "before the write"
            /// Killed outside the write lock, and the database holds the new state.
            case afterCommit = "after the commit"
            /// Killed outside the write lock by a command that changes no catalog row (a warm).
            case outsideWrite = "outside the write of a command that keeps the catalog"
            /// The command had finished before the signal.
            case finished = "after exit"
        }

        @Test func killNineAtRandomMomentsLeavesTheOldOrTheNewState() throws {
            // Given: 150,000 images in sections of 5,000, a revised version (10% removed, 10% added,
            // 10% resized), two order lists of ~13,500 images over three sections, no database yet,
            // and the digest of an empty one (what a first import killed early may leave).
            let folder = try TemporaryDirectory(prefix: "waterfall-crash")
            defer { folder.remove() }
            let files = try Reliability.Files(
                in: folder, count: 150_000, sectionSize: 5_000, seeds: (1, 2),
                orders: [(sections: 10..<13, seed: 3), (sections: 20..<23, seed: 4)])
            let (versionA, versionB, orders, kept) = (files.versionA, files.versionB, files.orders, files.kept)
            let movable = kept.filter { $0.section == 0 }.map(\.id)
            let database = folder.path("crash.sqlite")
            let emptyDatabase = folder.path("empty.sqlite")
            try #require(try Reliability.waterfall(["--db", emptyDatabase, "feeds"], in: folder).status == 0)
            let emptyDigest = try Reliability.catalogDigest(of: emptyDatabase)
            /// A file without a schema (absent, empty, or rolled back to empty) is the empty catalog.
            func digest(_ raw: String) -> String { raw == Reliability.noCatalog ? emptyDigest : raw }

            // The commands, in turn. A command whose kill left the old state is killed a second
            // time from that same state (reusing its run to completion); 11 kills in all.
            let commands: [Step] = [
                .importFeed(path: versionA, feed: "big", resetOrder: false),  // a new file: rollback journal, bulk load
                .importFeed(path: versionB, feed: "big", resetOrder: false),
                .reorder(path: orders[0]),
                .warm(afterMoving: movable[40], atTheWrite: false),
                .warm(afterMoving: movable[80], atTheWrite: true),
                .importFeed(path: versionB, feed: "second", resetOrder: false),  // first import into a database in use
                .importFeed(path: versionA, feed: "big", resetOrder: true),
                .reorder(path: orders[1]),
                .warm(afterMoving: movable[120], atTheWrite: false),
                .importFeed(path: versionB, feed: "big", resetOrder: false),
                .importFeed(path: versionA, feed: "big", resetOrder: true),
            ]
            let kills = 11
            var random = SeededGenerator(seed: 0x6B69_6C6C)
            var landings: [Landing: Int] = [:]
            var beforeDigest: String?
            var reference: (step: Step, before: String, after: String, duration: TimeInterval)?
            let afterCopy = folder.path("after/crash.sqlite")
            let crashedCopy = folder.path("crashed/crash.sqlite")
            var commandIndex = 0
            var previousDelay: TimeInterval?
            var hasLayout = false
            let started = Date()

            for iteration in 0..<kills {
                guard commandIndex < commands.count else { break }
                let step = commands[commandIndex]
                let label = "kill \(iteration + 1) (\(step.name))"
                var aimsAtTheWrite = false
                if case .warm(let id, let atTheWrite) = step {
                    aimsAtTheWrite = atTheWrite
                    let move = try Reliability.waterfall(
                        ["--db", database, "move", id, "--to", "0", "--feed", "big"], in: folder)
                    try #require(move.status == 0, "\(label): \(move.errors)")
                    beforeDigest = nil
                }
                let before = try beforeDigest ?? digest(Reliability.catalogDigest(of: database))

                // The state after: the same command run to completion on a copy; its duration
                // spreads the kill moments.
                if reference?.step != step || reference?.before != before {
                    try Reliability.copyDatabase(database, to: afterCopy)
                    let clock = Date()
                    let run = try Reliability.waterfall(step.arguments + ["--db", afterCopy], in: folder)
                    let duration = Date().timeIntervalSince(clock)
                    try #require(run.status == 0, "\(label) on a copy: \(run.errors)")
                    reference = (step, before, digest(try Reliability.catalogDigest(of: afterCopy)), duration)
                }
                let after = reference!.after
                let duration = reference!.duration

                // When: the command runs on the database and gets SIGKILL at a random moment (a
                // second kill of a command lands in the other half of its duration).
                let half = previousDelay.map { $0 < duration / 2 ? 1.0 : 0.0 }
                let delay =
                    half.map { Double.random(in: $0 * duration / 2..<($0 + 1) * duration / 2, using: &random) }
                    ?? Double.random(in: 0..<duration, using: &random)
                let spawned = Date()
                let victim = try Reliability.Child(step.arguments + ["--db", database], in: folder.url)
                defer { victim.kill() }
                if aimsAtTheWrite {
                    // Past the open (which may write to create the WAL file), at the first write lock.
                    Thread.sleep(forTimeInterval: duration / 2)
                    let deadline = Date().addingTimeInterval(10 * duration)
                    while victim.isRunning && !Reliability.writeLockIsHeld(database) && Date() < deadline {
                        usleep(200)
                    }
                } else {
                    Thread.sleep(forTimeInterval: delay)
                }
                let heldWriteLock = Reliability.writeLockIsHeld(database)
                let finishedAlone = !victim.isRunning
                victim.kill()
                let killedAfter = String(format: "%.2f s of %.2f s", Date().timeIntervalSince(spawned), duration)
                let ending = victim.wait()

                // Then: the files as the kill left them pass the integrity check and hold the old
                // or the new state, exactly.
                try Reliability.copyDatabase(database, to: crashedCopy)
                let check = try Reliability.integrityAndDigest(of: crashedCopy)
                let state = digest(check.digest)
                #expect(check.integrity == "ok", "\(label), killed after \(killedAfter): \(check.integrity)")
                #expect(
                    state == before || state == after,
                    "\(label), killed after \(killedAfter): the catalog is neither the old nor the new state")
                if finishedAlone || !ending.killed {
                    #expect(ending.status == 0, "\(label) exited by itself with \(ending.status): \(victim.errors)")
                }
                let landing: Landing =
                    !ending.killed || finishedAlone
                    ? .finished
                    : heldWriteLock
                        ? .midTransaction
                        : before == after
                            ? .outsideWrite
                            : state == after ? .afterCommit : .beforeCommit
                landings[landing, default: 0] += 1
                let outcome = before == after ? "catalog unchanged" : state == after ? "new state" : "old state"
                print("crash safety: \(label): killed after \(killedAfter), \(landing.rawValue), \(outcome)")
                beforeDigest = state

                let killAgain = previousDelay == nil && state == before && before != after && iteration + 1 < kills
                previousDelay = killAgain ? delay : nil
                if !killAgain { commandIndex += 1 }

                // The next command works: it opens the file as the kill left it.
                let next = try Reliability.waterfall(["--db", database, "feeds", "--json"], in: folder)
                #expect(next.status == 0 && next.errors.isEmpty, "\(label): the next command failed: \(next.errors)")

                // After the first command: a first import that never committed is run again (the
                // later commands need its images) and gives exactly the new state; then the layout.
                if !hasLayout && !killAgain {
                    if state != after {
                        let again = try Reliability.waterfall(step.arguments + ["--db", database], in: folder)
                        #expect(again.status == 0, "\(label) run again: \(again.errors)")
                        #expect(digest(try Reliability.catalogDigest(of: database)) == after, "\(label) run again")
                    }
                    let layout = try Reliability.waterfall(
                        ["--db", database, "layout", "add", "phone", "--feed", "big"] + Reliability.layoutFlags,
                        in: folder)
                    try #require(layout.status == 0, "\(label): \(layout.errors)")
                    try Reliability.copyDatabase(database, to: crashedCopy)
                    hasLayout = true
                    beforeDigest = nil
                }
                guard hasLayout else { continue }

                // Queries through the cache the kill left (possibly half rebuilt) equal a fresh
                // computation: the same state with the layout's cache dropped.
                for reset in [
                    ["layout", "remove", "phone", "--feed", "big"],
                    ["layout", "add", "phone", "--feed", "big"] + Reliability.layoutFlags,
                ] {
                    let result = try Reliability.waterfall(reset + ["--db", crashedCopy], in: folder)
                    try #require(result.status == 0, "\(label): \(reset): \(result.errors)")
                }
                for query in Self.queries(using: &random) {
                    let cached = try Reliability.waterfall(query + ["--db", database], in: folder)
                    let fresh = try Reliability.waterfall(query + ["--db", crashedCopy], in: folder)
                    #expect(
                        cached.status == 0 && cached.errors.isEmpty, "\(label): next command \(query): \(cached.errors)"
                    )
                    #expect(cached.output == fresh.output, "\(label): \(query) differs from a fresh computation")
                }
            }
            let total = landings.values.reduce(0, +)
            #expect(total >= 10)
            let summary = Landing.allCases.map { "\(landings[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ")
            print("crash safety: \(total) kills in \(Int(Date().timeIntervalSince(started))) s: \(summary)")
        }

        /// A deep page and a viewport with pinned headers, at random depths.
        static func queries(using random: inout SeededGenerator) -> [[String]] {
            let offset = Int.random(in: 0..<140_000, using: &random)
            let y = Int.random(in: 0..<6_500_000, using: &random)
            return [
                ["page", "--feed", "big", "--layout", "phone", "--offset", "\(offset)", "--limit", "40", "--json"],
                [
                    "viewport", "--feed", "big", "--layout", "phone", "--y", "\(y)", "--height", "900", "--pin-headers",
                    "--json",
                ],
            ]
        }
    }
}

/// Shared by the reliability suites: synthetic feeds, child processes, SQLite checks, digests.
enum Reliability {
    /// The layout both suites save as "phone".
    static let layoutFlags = ["--columns", "3", "--width", "390", "--header-height", "40"]

    /// Two versions of a synthetic feed and order lists over chosen sections, written to a folder.
    struct Files {
        /// The first version's file and the revised one's (10% removed, 10% added, 10% resized).
        var versionA: String
        var versionB: String
        /// One order-list file per requested range of sections, over images both versions keep.
        var orders: [String]
        /// The images both versions keep.
        var kept: [Feed.Image]

        init(
            in folder: TemporaryDirectory, count: Int, sectionSize: Int, seeds: (UInt64, UInt64),
            orders: [(sections: Range<Int>, seed: UInt64)]
        ) throws {
            let original = Feed(count: count, sectionSize: sectionSize, seed: seeds.0)
            let revised = original.revised(seed: seeds.1)
            kept = original.idsKept(in: revised)
            versionA = folder.path("a.json")
            versionB = folder.path("b.json")
            try original.json().write(to: URL(fileURLWithPath: versionA))
            try revised.json().write(to: URL(fileURLWithPath: versionB))
            let kept = self.kept
            self.orders = try orders.enumerated().map { index, order in
                let path = folder.path("order\(index).json")
                try Feed.orderJSON(kept.filter { order.sections.contains($0.section) }.map(\.id), seed: order.seed)
                    .write(to: URL(fileURLWithPath: path))
                return path
            }
        }
    }

    /// A deterministic synthetic feed: `count` images in sections of `sectionSize`.
    struct Feed {
        struct Image {
            var id: String
            var section: Int
            var width: Int
            var height: Int
        }

        var images: [Image]

        init(images: [Image]) {
            self.images = images
        }

        /// Images `a0`, `a1`, … in sections `s000`, `s001`, …, sizes drawn from `seed`.
        init(count: Int, sectionSize: Int, seed: UInt64) {
            var random = SeededGenerator(seed: seed)
            images = (0..<count).map { index in
                Image(
                    id: "a\(index)", section: index / sectionSize,
                    width: Int.random(in: 200...1600, using: &random),
                    height: Int.random(in: 200...1600, using: &random))
            }
        }

        /// The next version a sync brings: about 10% of the images removed, 10% resized, and 10%
        /// new ones (`n…`), each beside a kept image of the same section.
        func revised(seed: UInt64) -> Feed {
            var random = SeededGenerator(seed: seed)
            var result: [Image] = []
            result.reserveCapacity(images.count + images.count / 8)
            for (index, image) in images.enumerated() {
                let roll = Int.random(in: 0..<100, using: &random)
                if roll < 10 { continue }
                var kept = image
                if roll < 20 { kept.height += 37 }
                result.append(kept)
                if Int.random(in: 0..<10, using: &random) == 0 {
                    result.append(Image(id: "n\(index)", section: image.section, width: 640, height: 360 + index % 500))
                }
            }
            return Feed(images: result)
        }

        /// The images of this feed that `other` holds too, in this feed's order.
        func idsKept(in other: Feed) -> [Image] {
            let ids = Set(other.images.map(\.id))
            return images.filter { ids.contains($0.id) }
        }

        /// The feed file: `{"images": […]}` with ids, sizes, sections, urls and titles.
        func json() -> Data {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(images.count * 130)
            bytes.append(contentsOf: #"{"images": ["#.utf8)
            for (index, image) in images.enumerated() {
                if index > 0 { bytes.append(contentsOf: ",\n".utf8) }
                let section = String(image.section)
                let padded = String(repeating: "0", count: max(0, 3 - section.count)) + section
                bytes.append(
                    contentsOf:
                        #"{"id": "\#(image.id)", "width": \#(image.width), "height": \#(image.height), "section": "s\#(padded)", "url": "https://example.com/\#(image.id).jpg", "title": "Image \#(image.id)"}"#
                        .utf8)
            }
            bytes.append(contentsOf: "]}\n".utf8)
            return Data(bytes)
        }

        /// A reorder file giving `ids`, shuffled with `seed`, the places they hold.
        static func orderJSON(_ ids: [String], seed: UInt64) -> Data {
            var random = SeededGenerator(seed: seed)
            let shuffled = ids.shuffled(using: &random)
            return Data((#"{"order": ["# + shuffled.map { "\"\($0)\"" }.joined(separator: ",") + "]}\n").utf8)
        }
    }

    /// A finished `waterfall` or `sqlite3` run.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// A `waterfall` process started in the background, its output going to files (no pipe
    /// to fill up, no thread to read it).
    final class Child {
        let process = Process()
        let outputPath: String
        let errorPath: String

        init(_ arguments: [String], in folder: URL, executable: URL = WaterfallProcess.executable) throws {
            let name = UUID().uuidString
            outputPath = folder.appending(path: "\(name).out").path
            errorPath = folder.appending(path: "\(name).err").path
            _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = folder
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "WATERFALL_DB")
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
            try process.run()
        }

        var isRunning: Bool { process.isRunning }

        /// Sends SIGKILL (what `kill -9` sends) unless the process has ended.
        func kill() {
            guard process.isRunning else { return }
            #if canImport(Glibc)
            _ = Glibc.kill(process.processIdentifier, SIGKILL)
            #else
            _ = Darwin.kill(process.processIdentifier, SIGKILL)
            #endif
        }

        /// Waits for the end; `killed` when a signal ended the process.
        func wait() -> (status: Int32, killed: Bool) {
            process.waitUntilExit()
            return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
        }

        /// Waits, at most `timeout` seconds (then kills), and returns what the process printed.
        func finish(timeout: TimeInterval) -> Run {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(3_000) }
            kill()
            let ending = wait()
            defer {
                try? FileManager.default.removeItem(atPath: outputPath)
                try? FileManager.default.removeItem(atPath: errorPath)
            }
            return Run(status: ending.killed ? -ending.status : ending.status, output: output, errors: errors)
        }

        var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
    }

    /// Runs `waterfall arguments…` to completion (killed after `timeout` seconds).
    static func waterfall(_ arguments: [String], in folder: TemporaryDirectory, timeout: TimeInterval = 120) throws
        -> Run
    {
        try Child(arguments, in: folder.url).finish(timeout: timeout)
    }

    /// Runs `sqlite3 database sql` to completion, its output in files beside the database.
    static func sqlite(_ database: String, _ sql: String) throws -> Run {
        let folder = URL(fileURLWithPath: database).deletingLastPathComponent()
        return try Child([database, sql], in: folder, executable: URL(fileURLWithPath: sqlite3)).finish(timeout: 120)
    }

    /// The `sqlite3` shell, from `PATH`.
    static let sqlite3: String = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/sqlite3"
    }()

    /// What ``catalogDigest(of:)`` returns for a file without a catalog (absent, empty, or
    /// rolled back to empty).
    static let noCatalog = "no catalog"

    /// SQL giving a SHA3 hash of the committed catalog: feeds (with revisions and counts),
    /// sections, images in order, the change log, named layouts and the schema. The layout
    /// cache is left out: the next query may complete it, and its answers are checked instead.
    static let digestSQL = """
        SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM sqlite_schema WHERE name = 'feed') THEN '\(noCatalog)'
        ELSE hex(sha3_query('SELECT * FROM feed ORDER BY id; SELECT * FROM section ORDER BY id; \
        SELECT * FROM image ORDER BY feed_id, sort_key; SELECT * FROM change ORDER BY feed_id, revision, seq; \
        SELECT * FROM layout ORDER BY feed_id, name; SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name')) END;
        """

    /// The digest of a database's catalog (see ``digestSQL``).
    static func catalogDigest(of database: String) throws -> String {
        guard FileManager.default.fileExists(atPath: database) else { return noCatalog }
        let run = try sqlite(database, digestSQL)
        guard run.status == 0 else { throw ReliabilityError("sqlite3 failed on \(database): \(run.errors)") }
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `PRAGMA integrity_check` and the catalog digest, in one `sqlite3` run.
    static func integrityAndDigest(of database: String) throws -> (integrity: String, digest: String) {
        guard FileManager.default.fileExists(atPath: database) else { return ("ok", noCatalog) }
        let run = try sqlite(database, "PRAGMA integrity_check;\n" + digestSQL)
        var lines = run.output.split(separator: "\n").map(String.init)
        guard run.status == 0, lines.count >= 2 else {
            return ("sqlite3 exited with \(run.status): \(run.errors) \(run.output)", "")
        }
        let digest = lines.removeLast()
        return (lines.joined(separator: "\n"), digest)
    }

    /// Copies a database with its `-wal`, `-shm` and `-journal` files (while no process uses
    /// them), replacing what `destination` held.
    static func copyDatabase(_ source: String, to destination: String) throws {
        let files = FileManager.default
        try files.createDirectory(
            at: URL(fileURLWithPath: destination).deletingLastPathComponent(), withIntermediateDirectories: true)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? files.removeItem(atPath: destination + suffix)
            if files.fileExists(atPath: source + suffix) {
                try files.copyItem(atPath: source + suffix, toPath: destination + suffix)
            }
        }
    }

    /// Whether a process is inside a write transaction on `database`: it holds SQLite's WAL
    /// write lock (byte 120 of the `-shm` file) or, in rollback-journal mode, the RESERVED lock
    /// (byte 0x40000001 of the database file).
    static func writeLockIsHeld(_ database: String) -> Bool {
        isLocked(database + "-shm", at: 120) || isLocked(database, at: 0x4000_0001)
    }

    /// Whether another process holds a POSIX lock on byte `offset` of `path`.
    static func isLocked(_ path: String, at offset: Int) -> Bool {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// FNV-1a, 64 bits: a digest of a command's output.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

/// A failure of the test's own tools (not of waterfall).
struct ReliabilityError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
