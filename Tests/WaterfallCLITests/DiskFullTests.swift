import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A full disk, for real (issue 6, part 6): the database lives on a 20 MB tmpfs and an import
/// outgrows it. The import must stop with exit 74 and one sentence saying the disk is full, and
/// leave the database intact, at its state before the import, and usable by the next command.
///
/// Mounting needs root (CAP_SYS_ADMIN); elsewhere these tests are skipped.
@Suite(.serialized, .onOwnThreads(lane: .processes)) struct DiskFullTests {
    /// Whether this process may mount a tmpfs.
    static let canMountTmpfs = SmallDisk.canMount

    /// Runs `body` with a fresh folder holding `disk/`, a tmpfs of `megabytes` MB, unmounted
    /// (and the folder removed) afterwards whatever happens.
    func withSmallDisk(megabytes: Int, _ body: (TemporaryDirectory, String) throws -> Void) throws {
        let folder = try TemporaryDirectory(prefix: "waterfall-disk-full")
        defer { folder.remove() }
        let disk = folder.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
        let small = try SmallDisk(megabytes: megabytes, at: disk)
        defer { small.unmount() }
        try body(folder, disk)
    }

    /// Everything a user can read back from the catalog at `database`.
    func catalog(_ database: String) throws -> String {
        var text = ""
        for arguments in [["feeds"], ["images", "--limit", "100000"], ["changes", "--since", "0"]] {
            let result = try WaterfallProcess.run(["--db", database] + arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            text += result.standardOutput
        }
        return text
    }

    /// A feed "travel" of `count` images with long urls and titles: about 290 bytes an image.
    static func largeFeed(count: Int) -> Data {
        var text = #"{"feed": "travel", "images": ["#
        text.reserveCapacity(count * 300)
        let padding = String(repeating: "p", count: 60)
        for index in 0..<count {
            if index > 0 { text += ",\n" }
            text +=
                #"{"id": "image-\#(index)-\#(padding)", "width": \#(100 + index % 900), "height": \#(100 + index % 700), "#
            text +=
                #""url": "https://images.example.com/\#(index)/\#(padding).jpg", "title": "Image \#(index) \#(padding)", "#
            text += #""section": "s\#(index / 1000)"}"#
        }
        return Data((text + "]}").utf8)
    }

    /// Sets up a catalog at `database` holding the small travel feed; unless `justCreated`,
    /// also a layout and a few reads (each open and close of the file changes what the next
    /// checkpoint must write, so both histories are tried).
    func prepare(_ database: String, feed: String, justCreated: Bool) throws {
        #expect(try WaterfallProcess.run(["--db", database, "import", feed]).status == 0)
        if justCreated { return }
        #expect(
            try WaterfallProcess.run(["--db", database, "layout", "add", "phone", "--columns", "2", "--width", "375"])
                .status == 0)
        _ = try catalog(database)
    }

    @Test(
        .enabled(if: DiskFullTests.canMountTmpfs, "mounting a tmpfs needs root: run as root to check a full disk"),
        arguments: [true, false])
    func anImportThatFillsTheDiskStopsWithOneSentenceAndLeavesTheDatabaseUsable(justCreated: Bool) throws {
        try withSmallDisk(megabytes: 20) { folder, disk in
            // Given a database on a 20 MB disk, holding a small feed (and the same
            // catalog on the regular disk, to know what it must still read)
            let small = try folder.write(HostileInputTests.travel, to: "travel.json")
            let reference = folder.path("reference.sqlite")
            try prepare(reference, feed: small, justCreated: justCreated)
            let database = disk + "/catalog.sqlite"
            try prepare(database, feed: small, justCreated: justCreated)

            // When a feed of 100,000 images (about 29 MB, kept on the regular disk) is imported
            let large = folder.path("large.json")
            try DiskFullTests.largeFeed(count: 100_000).write(to: URL(fileURLWithPath: large))
            let result = try WaterfallProcess.run(["--db", database, "import", large])

            // Then it stops with 74 and one sentence saying the disk is full
            #expect(result.status == 74, "\(result.standardError)")
            HostileInputSupport.expectOneErrorLine(result, mentioning: "disk is full")
            // And the database is intact, still at its state before the import
            #expect(HostileInputSupport.integrityCheck(database) ?? "ok" == "ok")
            #expect(try catalog(database) == catalog(reference))
            // And usable: reads and a small write work
            let page = try WaterfallProcess.run([
                "--db", database, "page", "--columns", "2", "--width", "375", "--page", "0", "--json",
            ])
            #expect(page.status == 0, "\(page.standardError)")
            let move = try WaterfallProcess.run(["--db", database, "move", "a2", "--to", "0"])
            #expect(move.status == 0, "\(move.standardError)")
            let images = try WaterfallProcess.run(["--db", database, "images", "--json"])
            #expect(images.standardOutput.contains(#""images":[{"index":0,"id":"a2""#), "\(images.standardOutput)")
        }
    }

    @Test(.enabled(if: DiskFullTests.canMountTmpfs, "mounting a tmpfs needs root: run as root to check a full disk"))
    func aDatabaseCannotBeCreatedOnAFullDiskAndTheNextTryWorks() throws {
        try withSmallDisk(megabytes: 1) { folder, disk in
            // Given a disk with no room left
            let filler = disk + "/filler"
            let descriptor = open(filler, O_WRONLY | O_CREAT, 0o600)
            try #require(descriptor >= 0)
            let block = [UInt8](repeating: 0xAB, count: 4096)
            while write(descriptor, block, block.count) > 0 {}
            close(descriptor)
            let database = disk + "/catalog.sqlite"
            let small = try folder.write(HostileInputTests.travel, to: "travel.json")

            // When a new database is created there, Then the command fails with one sentence
            let result = try WaterfallProcess.run(["--db", database, "import", small])
            #expect(result.status == 73 || result.status == 74, "\(result.standardError)")
            HostileInputSupport.expectOneErrorLine(result, mentioning: database)

            // And once there is room again, the same command works
            try FileManager.default.removeItem(atPath: filler)
            let retry = try WaterfallProcess.run(["--db", database, "import", small])
            #expect(retry.status == 0, "\(retry.standardError)")
            #expect(HostileInputSupport.integrityCheck(database) ?? "ok" == "ok")
        }
    }
}
