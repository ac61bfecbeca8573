import Foundation
import Testing
import WaterfallTestSupport

/// `waterfall backup --to PATH` (issue 38, DESIGN section 18): a consistent copy of a live
/// SQLite catalog while a server reads and writes it; an existing target is refused unless
/// `--force`; a failed copy leaves no target; a PostgreSQL catalog is refused with the
/// `pg_dump` command to run.
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct BackupTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "waterfall-backup")
    }

    /// Runs `waterfall arguments…` in the test's folder.
    func waterfall(_ arguments: String...) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(arguments, in: folder.url)
    }

    /// A catalog of the feed "travel", 4,000 images in 4 sections, with the layout "phone".
    func makeCatalog(_ name: String) throws -> String {
        let database = folder.path(name)
        let feed = folder.path("large.json")
        try DiskFullTests.largeFeed(count: 4_000).write(to: URL(fileURLWithPath: feed))
        let imported = try waterfall("--db", database, "import", feed)
        try #require(imported.status == 0, "\(imported.standardError)")
        let layout = try waterfall(
            "--db", database, "layout", "add", "phone", "--columns", "2", "--width", "375", "--header-height", "44")
        try #require(layout.status == 0, "\(layout.standardError)")
        return database
    }

    /// The id of the `index`th image of ``DiskFullTests/largeFeed(count:)``.
    static func imageID(_ index: Int) -> String {
        "image-\(index)-" + String(repeating: "p", count: 60)
    }

    /// Every page of the feed at 1,000 a page, and its catalog order: the HTTP path of each,
    /// and the command line that asks the same of a file.
    static let questions: [(path: String, arguments: [String])] =
        (0..<4).map { page in
            (
                "/v1/feeds/travel/layouts/phone/page?page=\(page)&pageSize=1000",
                ["page", "--layout", "phone", "--page", "\(page)", "--page-size", "1000", "--json"]
            )
        } + [("/v1/feeds/travel/images?limit=100000", ["images", "--limit", "100000", "--json"])]

    /// The feed's revision in `backup --json`'s report.
    static func revision(inReport text: String) throws -> Int {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        let feeds = try #require(report["feeds"] as? [[String: Any]])
        #expect(
            feeds.count == 1 && feeds.first?["name"] as? String == "travel" && feeds.first?["images"] as? Int == 4_000,
            "\(text)")
        return try #require(feeds.first?["revision"] as? Int)
    }

    @Test func aBackupTakenWhileAServerMovesImagesAnswersEveryPageAsTheOriginalDidAtItsRevision() throws {
        defer { folder.remove() }
        // Given a server over the catalog, and a writer that moves one image after another
        // through it, recording the server's answers to every question at each revision
        let database = try makeCatalog("catalog.sqlite")
        let server = try ServeProcess(database: database, in: folder)
        defer { server.stop() }
        let recorded = RecordedAnswers()
        let port = server.port
        let record: @Sendable () throws -> Int = {
            var answers: [String] = []
            var revisions: Set<Int> = []
            for question in Self.questions {
                let answer = try ServeHTTPClient.request("GET", question.path, port: port)
                guard answer.status == 200 else {
                    throw ServeTestError("\(question.path): \(answer.status) \(answer.text)")
                }
                answers.append(answer.text)
                revisions.insert(try Self.revision(inAnswer: answer.text))
            }
            guard revisions.count == 1, let revision = revisions.first else {
                throw ServeTestError("answers of revisions \(revisions)")
            }
            recorded.set(answers, at: revision)
            return revision
        }
        try #require(try record() == 1)
        let stop = LockedFlag()
        let writer = DispatchQueue(label: "writer")
        let writes = DispatchGroup()
        writer.async(group: writes) {
            do {
                // Each move takes another image of the first section before its first image.
                for step in 1..<1_000 where !stop.isSet {
                    let body =
                        #"{"moves": [{"id": "\#(Self.imageID(step * 37 % 1_000))", "before": "\#(Self.imageID(0))"}]}"#
                    let moved = try ServeHTTPClient.request(
                        "POST", "/v1/feeds/travel/reorder", port: port, headers: ["Content-Type": "application/json"],
                        body: Data(body.utf8))
                    guard moved.status == 200 else {
                        throw ServeTestError("move \(step): \(moved.status) \(moved.text)")
                    }
                    guard try record() == step + 1 else {
                        throw ServeTestError("move \(step) did not answer revision \(step + 1)")
                    }
                }
            } catch {
                recorded.fail(error)
            }
        }

        // When backups are taken while it writes
        var backups: [(path: String, revision: Int)] = []
        for index in 0..<4 {
            let path = folder.path("copy-\(index).sqlite")
            let result = try waterfall("--db", database, "backup", "--to", path, "--json")
            try #require(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.isEmpty, "\(result.standardError)")
            backups.append((path, try Self.revision(inReport: result.standardOutput)))
        }
        stop.set()
        writes.wait()
        try #require(recorded.failure == nil, "\(recorded.failure.map { "\($0)" } ?? "")")
        let last = try #require(recorded.revisions.max())

        // Then every copy is whole, and answers every question exactly as the original did at
        // the revision its backup printed, taken while the writer wrote
        for backup in backups {
            #expect(HostileInputSupport.integrityCheck(backup.path) ?? "ok" == "ok")
            let expected = try #require(
                recorded.answers(at: backup.revision), "revision \(backup.revision) was never recorded")
            for (question, answer) in zip(Self.questions, expected) {
                let copy = try WaterfallProcess.run(["--db", backup.path] + question.arguments)
                #expect(copy.status == 0, "\(copy.standardError)")
                #expect(
                    copy.standardOutput == answer,
                    "\(backup.path) at revision \(backup.revision): \(question.arguments)")
            }
        }
        // (The writer moved images while the backups ran: some copy holds a moved image.)
        #expect(
            backups.contains { $0.revision > 1 } && last > 1,
            "no backup saw a move: \(backups.map(\.revision)), last \(last)")
    }

    /// The revision an answer (a page or a list of images) reports.
    static func revision(inAnswer text: String) throws -> Int {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(object["revision"] as? Int)
    }

    @Test func anExistingTargetIsRefusedWithoutForceAndReplacedWithIt() throws {
        defer { folder.remove() }
        // Given a catalog and a file where the backup should go
        let database = try makeCatalog("catalog.sqlite")
        let target = try folder.write("precious", to: "backup.sqlite")

        // When a backup is taken there without --force, Then it is refused with one sentence
        // and the file is untouched, with nothing left beside it
        let refused = try waterfall("--db", database, "backup", "--to", target)
        #expect(refused.status == 64, "\(refused.standardError)")
        HostileInputSupport.expectOneErrorLine(
            refused, mentioning: "\(target) exists already; give --force to replace it.")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                "backup.sqlite", "catalog.sqlite", "large.json",
            ])

        // When it is taken with --force, Then the file is the catalog's copy
        let moved = try waterfall("--db", database, "move", Self.imageID(5), "--to", "0")
        #expect(moved.status == 0, "\(moved.standardError)")
        let replaced = try waterfall("--db", database, "backup", "--to", target, "--force")
        #expect(replaced.status == 0, "\(replaced.standardError)")
        #expect(replaced.standardOutput.hasPrefix("copied \(database) to \(target) ("), "\(replaced.standardOutput)")
        #expect(
            replaced.standardOutput.hasSuffix("): feed travel at revision 2 (4000 images)\n"),
            "\(replaced.standardOutput)")
        for question in Self.questions {
            let original = try WaterfallProcess.run(["--db", database] + question.arguments)
            let copy = try WaterfallProcess.run(["--db", target] + question.arguments)
            #expect(
                copy.status == 0 && copy.standardOutput == original.standardOutput,
                "\(question.arguments): \(copy.standardError)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == [
                "backup.sqlite", "catalog.sqlite", "large.json",
            ])
    }

    @Test func aTargetThatCannotBeAValidCopyIsRefused() throws {
        defer { folder.remove() }
        let database = try makeCatalog("catalog.sqlite")
        // The catalog itself, even with --force
        let itself = try waterfall("--db", database, "backup", "--to", database, "--force")
        #expect(itself.status == 64, "\(itself.standardError)")
        HostileInputSupport.expectOneErrorLine(itself, mentioning: "--to names the catalog itself")
        // A folder that does not exist
        let missing = folder.path("nowhere/backup.sqlite")
        let nowhere = try waterfall("--db", database, "backup", "--to", missing)
        #expect(nowhere.status == 73, "\(nowhere.standardError)")
        HostileInputSupport.expectOneErrorLine(nowhere, mentioning: "\(missing): cannot be created")
        // A folder
        let inFolder = try waterfall("--db", database, "backup", "--to", folder.url.path, "--force")
        #expect(inFolder.status == 64, "\(inFolder.standardError)")
        HostileInputSupport.expectOneErrorLine(inFolder, mentioning: "--to names a folder")
        #expect(HostileInputSupport.integrityCheck(database) ?? "ok" == "ok")
    }

    @Test(.enabled(if: SmallDisk.canMount, "mounting a tmpfs needs root: run as root to check a full disk"))
    func aBackupThatFillsTheDiskLeavesNoTarget() throws {
        defer { folder.remove() }
        // Given a catalog larger than the disk the backup goes to
        let database = try makeCatalog("catalog.sqlite")
        try FileManager.default.createDirectory(atPath: folder.path("disk"), withIntermediateDirectories: false)
        let disk = try SmallDisk(megabytes: 1, at: folder.path("disk"))
        defer { disk.unmount() }
        let target = disk.path + "/backup.sqlite"

        // When the backup is taken there, Then it fails with 74 and one sentence, and leaves
        // nothing on that disk: no target, no partial copy
        let result = try waterfall("--db", database, "backup", "--to", target)
        #expect(result.status == 74, "\(result.standardError)")
        HostileInputSupport.expectOneErrorLine(result, mentioning: "\(target): the disk is full")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [])
    }

    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "set WATERFALL_TEST_POSTGRES to test PostgreSQL"))
    func aPostgreSQLCatalogIsRefusedWithThePgDumpCommand() throws {
        defer { folder.remove() }
        // Given a PostgreSQL catalog in a schema of its own
        let schema = try PostgresScratchSchema()
        let imported = try waterfall(
            "--db", schema.url, "import", try folder.write(HostileInputTests.travel, to: "travel.json"))
        try #require(imported.status == 0, "\(imported.standardError)")

        // When it is backed up, Then it is refused with the pg_dump command of its schema, and
        // nothing is written
        let target = folder.path("backup.sqlite")
        let result = try waterfall("--db", schema.url, "backup", "--to", target)
        #expect(result.status == 64, "\(result.standardError)")
        HostileInputSupport.expectOneErrorLine(
            result, mentioning: "with pg_dump --format=custom --schema=\(schema.name) --file=waterfall.dump '")
        #expect(
            result.standardError.contains(
                "and restore it into an empty database with pg_restore --dbname=URL waterfall.dump."))
        #expect(
            !result.standardError.contains("waterfall:waterfall@"), "the password is shown: \(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}

/// The answers a writer recorded, by revision, shared with the test's thread.
final class RecordedAnswers: @unchecked Sendable {
    private let lock = NSLock()
    private var byRevision: [Int: [String]] = [:]
    private var error: (any Error)?

    func set(_ answers: [String], at revision: Int) { lock.withLock { byRevision[revision] = answers } }
    func answers(at revision: Int) -> [String]? { lock.withLock { byRevision[revision] } }
    var revisions: [Int] { lock.withLock { Array(byRevision.keys) } }
    func fail(_ error: any Error) { lock.withLock { self.error = error } }
    var failure: (any Error)? { lock.withLock { error } }
}

/// A flag one thread sets and another reads.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
