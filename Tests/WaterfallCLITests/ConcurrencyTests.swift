import Foundation
import Testing
import WaterfallTestSupport

extension ReliabilityTests {
    /// DESIGN section 7: while one process writes, processes reading (`page`, `viewport`,
    /// `images`) never fail and never see a half-applied change.
    @Suite struct ConcurrencyTests {
        /// What the readers and the writer did, from several threads.
        final class Journal: @unchecked Sendable {
            struct Observation {
                var query: [String]
                var status: Int32
                var errors: String
                var revision: Int?
                var digest: UInt64
                /// Whether the writer held SQLite's write lock when the reader started.
                var startedDuringWrite: Bool
            }

            private let lock = NSLock()
            private var observationList: [Observation] = []
            private var writerRuns: [Reliability.Run] = []
            private var writerFinished = false

            func record(_ observation: Observation) { lock.withLock { observationList.append(observation) } }
            func recordWriter(_ run: Reliability.Run) { lock.withLock { writerRuns.append(run) } }
            func finishWriter() { lock.withLock { writerFinished = true } }
            var isWriterFinished: Bool { lock.withLock { writerFinished } }
            var observations: [Observation] { lock.withLock { observationList } }
            var writes: [Reliability.Run] { lock.withLock { writerRuns } }
        }

        @Test func threeReadersSeeOnlyCommittedStatesWhileOneProcessWrites() throws {
            // Given: a feed of 20,000 images in sections of 1,000 and a revised version of it, two
            // order lists of ~2,700 images, a writer's script of 12 commands, and what each of the
            // three readers asks (deep pages, viewports, a slice of the catalog).
            let folder = try TemporaryDirectory(prefix: "waterfall-concurrency")
            defer { folder.remove() }
            let files = try Reliability.Files(
                in: folder, count: 20_000, sectionSize: 1_000, seeds: (21, 22),
                orders: [(sections: 2..<5, seed: 23), (sections: 12..<15, seed: 24)])
            let (versionA, versionB, orders, kept) = (files.versionA, files.versionB, files.orders, files.kept)
            let ids = kept.map(\.id)
            let feed = ["--feed", "big"]
            let script: [[String]] = [
                ["import", versionB, "--json"], ["move", ids[10], "--to", "0", "--json"],
                ["reorder", orders[0], "--json"],
                ["import", versionA, "--json"], ["move", ids[500], "--after", ids[12_000], "--json"],
                ["import", versionB, "--reset-order", "--json"], ["reorder", orders[1], "--json"],
                ["import", versionA, "--json"],
                ["move", ids[17_000], "--before", ids[3], "--json"], ["import", versionB, "--json"],
                ["reorder", orders[0], "--json"],
                ["import", versionA, "--reset-order", "--json"],
            ].map { $0 + feed }
            let readers: [[[String]]] = [
                [10_000, 18_500].map {
                    ["page", "--layout", "phone", "--offset", "\($0)", "--limit", "40", "--json"] + feed
                },
                [
                    ["viewport", "--layout", "phone", "--y", "0", "--height", "900", "--json"] + feed,
                    ["viewport", "--layout", "phone", "--y", "500000", "--height", "900", "--pin-headers", "--json"]
                        + feed,
                ],
                [["images", "--offset", "0", "--limit", "1500", "--json"] + feed],
            ]
            let setup = [
                ["import", versionA, "--json"] + feed, ["layout", "add", "phone"] + feed + Reliability.layoutFlags,
            ]

            // The committed states, single-threaded on a database of their own: the writer's
            // outputs, and for every revision the digest of every reader's answer.
            let replay = folder.path("replay.sqlite")
            let replayStart = Date()
            for command in setup {
                let run = try Reliability.waterfall(command + ["--db", replay], in: folder)
                try #require(run.status == 0, "\(command): \(run.errors)")
            }
            var expected: [Int: [[String]: UInt64]] = [:]
            var expectedWrites: [String] = []
            func recordAnswers() throws {
                for query in readers.joined() {
                    let run = try Reliability.waterfall(query + ["--db", replay], in: folder)
                    try #require(run.status == 0, "\(query): \(run.errors)")
                    let revision = try #require(Self.revision(in: run.output))
                    let digest = Reliability.fnv1a(Self.withoutCursor(run.output))
                    #expect(
                        expected[revision]?[query].map { $0 == digest } ?? true,
                        "replay: \(query) at revision \(revision)")
                    expected[revision, default: [:]][query] = digest
                }
            }
            try recordAnswers()
            for command in script {
                let run = try Reliability.waterfall(command + ["--db", replay], in: folder)
                try #require(run.status == 0, "replay \(command): \(run.errors)")
                expectedWrites.append(run.output)
                try recordAnswers()
            }
            let finalDigest = try Reliability.catalogDigest(of: replay)
            let replayTime = Date().timeIntervalSince(replayStart)

            // When: one writer process after another runs the script (paced over ~15 s, stopped
            // at 40 s) while three reader threads run their queries in turn, one process after
            // another, until the writer is done (at most 400 queries each).
            let database = folder.path("waterfall.sqlite")
            for command in setup {
                let run = try Reliability.waterfall(command + ["--db", database], in: folder)
                try #require(run.status == 0, "\(command): \(run.errors)")
            }
            let journal = Journal()
            let group = DispatchGroup()
            let start = Date()
            let pace = 15.0 / Double(script.count)
            let deadline = start.addingTimeInterval(40)
            func spawn(_ body: @escaping @Sendable () -> Void) {
                group.enter()
                Thread {
                    body()
                    group.leave()
                }.start()
            }
            spawn {
                defer { journal.finishWriter() }
                for (index, command) in script.enumerated() {
                    let due = start.addingTimeInterval(pace * Double(index))
                    if due > Date() { Thread.sleep(until: due) }
                    guard Date() < deadline,
                        let run = try? Reliability.waterfall(command + ["--db", database], in: folder, timeout: 30)
                    else { return }
                    journal.recordWriter(run)
                }
            }
            for queries in readers {
                spawn {
                    var count = 0
                    while !journal.isWriterFinished && Date() < deadline && count < 400 {
                        let query = queries[count % queries.count]
                        count += 1
                        let duringWrite = Reliability.writeLockIsHeld(database)
                        guard let run = try? Reliability.waterfall(query + ["--db", database], in: folder, timeout: 30)
                        else {
                            journal.record(
                                .init(
                                    query: query, status: -1, errors: "could not start", revision: nil, digest: 0,
                                    startedDuringWrite: duringWrite))
                            continue
                        }
                        journal.record(
                            .init(
                                query: query, status: run.status, errors: run.errors,
                                revision: Self.revision(in: run.output),
                                digest: Reliability.fnv1a(Self.withoutCursor(run.output)),
                                startedDuringWrite: duringWrite))
                    }
                }
            }
            group.wait()
            let elapsed = Date().timeIntervalSince(start)

            // Then: every command succeeded; the writer printed what the replay printed; every
            // answer is the answer of the committed state of its revision; the file is intact.
            let writes = journal.writes
            #expect(
                writes.count == script.count,
                "the writer ran \(writes.count) of \(script.count) commands in \(elapsed) s")
            for (index, run) in writes.enumerated() {
                #expect(run.status == 0 && run.errors.isEmpty, "writer \(script[index]): \(run.status) \(run.errors)")
                #expect(run.output == expectedWrites[index], "writer \(script[index]) printed \(run.output)")
            }
            let observations = journal.observations
            var failures = 0
            var torn = 0
            var revisionsSeen: Set<Int> = []
            for observation in observations {
                if observation.status != 0 || !observation.errors.isEmpty {
                    failures += 1
                    Issue.record("reader \(observation.query) exited \(observation.status): \(observation.errors)")
                    continue
                }
                guard let revision = observation.revision, let digest = expected[revision]?[observation.query] else {
                    torn += 1
                    Issue.record(
                        "reader \(observation.query) saw revision \(observation.revision.map(String.init) ?? "none"), not a committed one"
                    )
                    continue
                }
                revisionsSeen.insert(revision)
                if digest != observation.digest {
                    torn += 1
                    Issue.record("reader \(observation.query) at revision \(revision) differs from the committed state")
                }
            }
            let check = try Reliability.integrityAndDigest(of: database)
            #expect(check.integrity == "ok")
            if writes.count == script.count {
                #expect(check.digest == finalDigest, "the final catalog differs from the replay's")
            }
            let duringWrites = observations.filter(\.startedDuringWrite).count
            print(
                """
                concurrency: replay of \(script.count) writes and \(expected.values.map(\.count).reduce(0, +)) answers in \
                \(String(format: "%.1f", replayTime)) s; then \(writes.count) writes and \(observations.count) reads in \
                \(String(format: "%.1f", elapsed)) s (\(duringWrites) reads started inside a write transaction), \
                \(revisionsSeen.count) revisions seen by readers, \(failures) failed reads, \(torn) answers not of a committed state
                """)
        }

        @Test func aReaderDuringTheFirstImportIntoANewFileSeesNoError() throws {
            // Given: a feed of 30,000 images and no database file yet.
            let folder = try TemporaryDirectory(prefix: "waterfall-first-import")
            defer { folder.remove() }
            let feed = folder.path("a.json")
            try Reliability.Feed(count: 30_000, sectionSize: 1_000, seed: 31).json().write(
                to: URL(fileURLWithPath: feed))
            let database = folder.path("new.sqlite")

            // When: readers run while the import holds its write transaction (held for 50 ms, so
            // not the migration's), one after another, at most three.
            let importer = try Reliability.Child(
                ["--db", database, "import", feed, "--feed", "big", "--json"], in: folder.url)
            defer { importer.kill() }
            let deadline = Date().addingTimeInterval(60)
            var heldSince: Date?
            while importer.isRunning && Date() < deadline {
                if Reliability.writeLockIsHeld(database) {
                    if let heldSince, Date().timeIntervalSince(heldSince) > 0.05 { break }
                    heldSince = heldSince ?? Date()
                } else {
                    heldSince = nil
                }
                usleep(1_000)
            }
            var reads: [Reliability.Run] = []
            while importer.isRunning && Reliability.writeLockIsHeld(database) && reads.count < 3 {
                reads.append(try Reliability.waterfall(["--db", database, "feeds", "--json"], in: folder))
            }
            let imported = importer.finish(timeout: 60)
            let committed = try Reliability.waterfall(["--db", database, "feeds", "--json"], in: folder)

            // Then: the import succeeded, and each reader saw the state before or after it.
            try #require(imported.status == 0, "\(imported.errors)")
            try #require(!reads.isEmpty, "no reader started inside the import's write transaction")
            // A new database starts in rollback-journal mode; a reader opening it meanwhile must not
            // fail trying to switch it to WAL (it leaves that to a later open) and waits on locks.
            for read in reads {
                let answers = [#"{"feeds":[]}"# + "\n", committed.output]
                #expect(
                    read.status == 0 && answers.contains(read.output),
                    "feeds --json during the first import: \(read.errors)")
            }
        }

        /// An answer without its listing cursor: a cursor is signed with its catalog's own secret
        /// (DESIGN section 19), and the replay is another catalog.
        static func withoutCursor(_ output: String) -> String {
            guard let range = output.range(of: #","nextCursor":"[A-Za-z0-9_-]*""#, options: .regularExpression) else {
                return output
            }
            return output.replacingCharacters(in: range, with: "")
        }

        /// The `"revision"` of a JSON answer.
        static func revision(in output: String) -> Int? {
            guard let range = output.range(of: #""revision":"#) else { return nil }
            return Int(output[range.upperBound...].prefix { $0.isNumber })
        }
    }
}
