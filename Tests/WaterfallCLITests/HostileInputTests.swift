// Hostile input, end to end through the built binary (issue 6, parts 3 and 4).
//
// Every case is refused with its documented exit status and exactly one line on standard error
// (`waterfall: error: <sentence>`), prints nothing on standard output, and changes nothing: the
// catalog reads the same before and after (`feeds --json`, which holds the revision and the
// layout count, and `images --json`), and the file still passes `PRAGMA integrity_check` when `sqlite3` is installed. Files
// given as `--db` that are not ours are left byte-identical, with no `-wal`, `-shm` or `-journal`
// file beside them.
//
// The bounds these cases rely on (the decoder's in `SyncLimits`, the flags' in the command line):
// - image and section ids: 1…256 UTF-8 bytes (integer ids: at most 256 digits), no control
//   characters; feed names 1…128 bytes; urls at most 4,096 bytes, titles at most 1,024 bytes,
//   neither with NUL; widths and heights are integers 1…1,000,000 (no fraction, no exponent);
// - at most 10,000,000 images a feed, files of at most 4 GiB, arrays and objects nested at
//   most 64 deep (counting the top-level object); strict UTF-8 and RFC 8259 JSON, one top-level
//   object (NDJSON: one image object a line, at least one);
// - `--columns` 1…64, `--width` finite, above 0 and at most 1,000,000 points, `--scale` 1, 2 or 3,
//   `--page-size` and `--limit` 1…100,000, `--offset`, `--page`, `--to` and `--since` 0 or more,
//   the item width left by insets and spacing above 0;
// - exit statuses: 64 usage, 65 bad data (including an unknown feed, layout or id), 66 an input
//   file missing or unreadable, 74 a `--db` that is not a Waterfall database of this version.

import Foundation
import Testing
import WaterfallTestSupport

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized, .onOwnThreads(lane: .processes)) final class HostileInputTests {
    let folder: TemporaryDirectory
    var database: String { folder.path("catalog.sqlite") }

    /// Every test starts from the same small catalog: feed "travel", two sections (a1 and a2 in
    /// "2024-05", b1 in "2024-06"), at revision 1, with a layout "phone".
    init() throws {
        folder = try TemporaryDirectory(prefix: "waterfall-hostile")
        let feed = try folder.write(HostileInputTests.travel, to: "travel.json")
        let imported = try waterfall(["import", feed])
        try #require(imported.status == 0, "\(imported.standardError)")
        let layout = try waterfall(["layout", "add", "phone", "--columns", "2", "--width", "375"])
        try #require(layout.status == 0, "\(layout.standardError)")
    }

    deinit {
        folder.remove()
    }

    static let travel = """
        {"feed": "travel", "sections": [{"id": "2024-05", "title": "May 2024"}],
         "images": [{"id": "a1", "width": 1200, "height": 800, "url": "https://example.com/a1.jpg", "title": "Lisbon", "section": "2024-05"},
                    {"id": "a2", "width": 800, "height": 1200, "section": "2024-05"},
                    {"id": "b1", "width": 1000, "height": 1000, "section": "2024-06"}]}
        """

    func waterfall(_ arguments: [String], input: Data? = nil) throws -> WaterfallProcess.Result {
        try WaterfallProcess.run(["--db", database] + arguments, in: folder.url, input: input)
    }

    /// What a user reads back from the catalog: any write would change the revision in `feeds`.
    func catalog() throws -> String {
        var text = ""
        for arguments in [["feeds"], ["images", "--limit", "100000"]] {
            let result = try waterfall(arguments + ["--json"])
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            text += result.standardOutput
        }
        return text
    }

    /// Runs `arguments` and checks the refusal: `status`, one error line holding `fragment`,
    /// nothing on standard output, the catalog unchanged and intact.
    func expectRefusal(
        _ arguments: [String], status: Int32, mentioning fragment: String, input: Data? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try catalog()
        let result = try waterfall(arguments, input: input)
        let shown = arguments.map { $0.count > 80 ? String($0.prefix(80)) + "…" : $0 }
        #expect(result.status == status, "\(shown): \(result.standardError)", sourceLocation: sourceLocation)
        HostileInputSupport.expectOneErrorLine(result, mentioning: fragment, sourceLocation: sourceLocation)
        #expect(try catalog() == before, "\(shown) changed the catalog", sourceLocation: sourceLocation)
        #expect(HostileInputSupport.integrityCheck(database) ?? "ok" == "ok", sourceLocation: sourceLocation)
    }

    // MARK: Feed files

    @Test(arguments: HostileFeed.allCases)
    func aHostileFeedIsRefusedAndChangesNothing(_ feed: HostileFeed) throws {
        // Given a hostile file addressed to the existing feed "travel"
        let path = folder.path(feed.fileName)
        try feed.contents().write(to: URL(fileURLWithPath: path))
        // When it is imported, Then it is refused with 65 and the catalog is untouched
        try expectRefusal(["import", path, "--feed", "travel"], status: 65, mentioning: feed.fragment)
        try expectRefusal(["import", path, "--feed", "travel", "--append"], status: 65, mentioning: feed.fragment)
    }

    @Test func garbageOnStandardInputIsRefused() throws {
        // Small enough for the pipe's buffer: the binary may stop reading at the first bad byte.
        var random = SeededGenerator(seed: 6)
        let garbage = Data((0..<60_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        try expectRefusal(
            ["import", "-", "--feed", "travel"], status: 65, mentioning: "standard input", input: garbage)
    }

    @Test func aFeedNameBeyond128BytesIsRefused() throws {
        let images = Data(#"{"images": [{"id": "a1", "width": 1, "height": 1}]}"#.utf8)
        try expectRefusal(
            ["import", "-", "--feed", String(repeating: "x", count: 129)], status: 64,
            mentioning: "the feed name must be 1 to 128 bytes long, got 129 bytes.", input: images)
        try expectRefusal(
            ["import", "-", "--feed", "tra\u{1}vel"], status: 64, mentioning: "control character", input: images)
    }

    @Test func anInputFileThatCannotBeReadExits66() throws {
        try expectRefusal(
            ["import", folder.path("missing.json")], status: 66, mentioning: "missing.json: cannot be read")
        try expectRefusal(
            ["reorder", folder.path("missing.json")], status: 66, mentioning: "missing.json: cannot be read")
        let directory = folder.path("a-folder.json")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try expectRefusal(["import", directory], status: 66, mentioning: "a-folder.json")
        try expectRefusal(["reorder", directory], status: 66, mentioning: "a-folder.json")
    }

    @Test(.enabled(if: geteuid() != 0, "root reads a file whatever its mode"))
    func anUnreadableInputFileExits66() throws {
        let path = try folder.write(HostileInputTests.travel, to: "locked.json")
        chmod(path, 0)
        try expectRefusal(["import", path], status: 66, mentioning: "locked.json")
        try expectRefusal(["reorder", path], status: 66, mentioning: "locked.json")
    }

    // MARK: Flags

    @Test(arguments: BadFlags.all)
    func aBadFlagIsRefusedAndChangesNothing(_ flags: BadFlags) throws {
        try expectRefusal(flags.arguments, status: flags.status, mentioning: flags.fragment)
    }

    // MARK: Reorder files

    @Test(arguments: HostileReorder.all)
    func aBadReorderFileIsRefusedAndChangesNothing(_ reorder: HostileReorder) throws {
        let path = try folder.write(reorder.text, to: "reorder.json")
        try expectRefusal(["reorder", path], status: 65, mentioning: reorder.fragment)
    }

    // MARK: Foreign databases

    @Test(arguments: ForeignDatabase.allCases)
    func aForeignDatabaseIsRefusedAndLeftByteIdentical(_ kind: ForeignDatabase) throws {
        // Given a path that holds something other than a Waterfall database
        guard let path = try kind.make(in: folder, from: database) else { return }
        let before = try HostileInputSupport.snapshot(of: path)
        let feed = try folder.write(HostileInputTests.travel, to: "feed-for-foreign.json")
        for arguments in [
            ["feeds"], ["images"], ["import", feed], ["layout", "add", "x", "--columns", "2", "--width", "300"],
            ["stats"],
        ] {
            // When a command opens it
            let result = try WaterfallProcess.run(["--db", path] + arguments, in: folder.url)
            // Then it is refused with 74 and left exactly as it was
            #expect(result.status == 74, "\(kind) \(arguments): \(result.standardError)")
            HostileInputSupport.expectOneErrorLine(result, mentioning: kind.fragment)
            #expect(try HostileInputSupport.snapshot(of: path) == before, "\(kind) \(arguments) modified \(path)")
        }
    }

    @Test(.enabled(if: HostileInputSupport.sqlite3 != nil, "needs sqlite3 to write a future migration"))
    func aDatabaseFromANewerWaterfallIsRefusedAndLeftByteIdentical() throws {
        // Given a Waterfall database that a newer version has migrated further
        let path = folder.path("future.sqlite")
        let created = try WaterfallProcess.run([
            "--db", path, "import", try folder.write(HostileInputTests.travel, to: "f.json"),
        ])
        #expect(created.status == 0, "\(created.standardError)")
        #expect(try HostileInputSupport.runSQLite(path, "INSERT INTO grdb_migrations VALUES ('9999_future')") == "")
        let before = try HostileInputSupport.snapshot(of: path)
        for arguments in [["feeds"], ["images"], ["import", folder.path("f.json")], ["move", "a1", "--to", "1"]] {
            // When this version opens it
            let result = try WaterfallProcess.run(["--db", path] + arguments, in: folder.url)
            // Then it says so, exits 74, and touches nothing
            #expect(result.status == 74, "\(arguments): \(result.standardError)")
            HostileInputSupport.expectOneErrorLine(result, mentioning: "newer version")
            #expect(try HostileInputSupport.snapshot(of: path) == before, "\(arguments) modified the newer database")
        }
    }

    @Test func aNamedPipeGivenAsTheDatabaseIsRefusedWithoutWaiting() throws {
        // Given a FIFO: opening it for reading blocks until someone writes, so the header
        // check must not open a file that is not regular.
        let path = folder.path("pipe.sqlite")
        try #require(mkfifo(path, 0o600) == 0)
        let process = Process()
        process.executableURL = WaterfallProcess.executable
        process.arguments = ["--db", path, "feeds"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let finished = !process.isRunning
        if !finished {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(finished, "waterfall --db FIFO still waits after 10 seconds")
        if finished { #expect(process.terminationStatus == 74) }
    }
}

// MARK: - The cases

extension HostileInputTests {
    /// Feed files that must be refused with exit 65. Each is addressed to the feed "travel" that
    /// the catalog holds, so that a partial import would show.
    enum HostileFeed: String, CaseIterable, Sendable {
        case megabyteID, megabyteIntegerID, megabyteSectionID, megabyteFeedName, megabyteURL, megabyteTitle
        case nested200000Deep, nested200000DeepAtTopLevel
        case notUTF8, overlongUTF8, encodedSurrogate, loneEscapedSurrogate
        case escapedNULInID, rawNULInID, escapedNULInTitle, escapedNULInSectionID, controlCharacterInFeedName
        case booleanWidth, nullID, objectID, arrayHeight, stringWidth, fractionalWidth, exponentWidth
        case hugeWidth, zeroHeight, negativeWidth, objectSection, numberTitle, booleanSpan, unknownSpan
        case imagesAsObject, sectionsAsString, missingImages, repeatedImagesField
        case emptyFile, whitespaceOnly, byteOrderMarkOnly, topLevelArray, topLevelString, trailingGarbage
        case truncated, duplicateID
        case lastOf100000IsBad, lastLineOf100000IsBad, emptyNDJSON, twoObjectsOnOneLine
        case randomGarbage50MB, whitespace50MBThenGarbage

        var fileName: String {
            switch self {
            case .lastLineOf100000IsBad, .emptyNDJSON, .twoObjectsOnOneLine: "\(rawValue).ndjson"
            default: "\(rawValue).json"
            }
        }

        /// A part of the expected error sentence.
        var fragment: String {
            switch self {
            case .megabyteID: "images[0].id: expected at most 256 bytes, found a string of 1048576 bytes."
            case .megabyteIntegerID: "images[0].id: expected at most 256 bytes"
            case .megabyteSectionID: "expected at most 256 bytes"
            case .megabyteFeedName: "feed: expected at most 128 bytes"
            case .megabyteURL: "images[0].url: expected at most 4096 bytes"
            case .megabyteTitle: "images[0].title: expected at most 1024 bytes"
            case .nested200000Deep: "expected at most 64 levels of nested arrays and objects"
            case .nested200000DeepAtTopLevel, .topLevelArray: "expected a JSON object at the top level, found an array."
            case .notUTF8, .overlongUTF8, .encodedSurrogate: "is not valid UTF-8 at byte"
            case .loneEscapedSurrogate: "surrogate"
            case .escapedNULInID, .escapedNULInSectionID, .controlCharacterInFeedName: "without control characters"
            case .rawNULInID: "unescaped control character U+0000"
            case .escapedNULInTitle: "images[0].title: expected a string without NUL characters"
            case .booleanWidth: "images[0].width: expected an integer from 1 to 1000000, found true."
            case .nullID: "images[0].id: expected a non-empty string or an integer, found null."
            case .objectID: "images[0].id: expected a non-empty string or an integer, found an object."
            case .arrayHeight: "images[0].height: expected an integer from 1 to 1000000, found an array."
            case .stringWidth: "images[0].width: expected an integer from 1 to 1000000"
            case .fractionalWidth: "images[0].width: expected an integer from 1 to 1000000, found 1.5."
            case .exponentWidth: "images[0].width: expected an integer from 1 to 1000000, found 1e3."
            case .hugeWidth: "images[0].width: expected an integer from 1 to 1000000, found 99999999999999999999999."
            case .zeroHeight: "images[0].height: expected an integer from 1 to 1000000, found 0."
            case .negativeWidth: "images[0].width: expected an integer from 1 to 1000000, found -5."
            case .objectSection: "images[0].section"
            case .numberTitle: "images[0].title: expected a string or null, found 12."
            case .booleanSpan, .unknownSpan: "images[0].span"
            case .imagesAsObject: "images: expected an array"
            case .sectionsAsString: "sections: expected an array"
            case .missingImages: "expected an \"images\" field in the top-level object, found none."
            case .repeatedImagesField: "expected one \"images\" field in the top-level object, found two."
            case .emptyFile: "expected a JSON object at the top level, found an empty file."
            case .whitespaceOnly, .byteOrderMarkOnly: "expected a JSON object at the top level"
            case .topLevelString: "expected a JSON object at the top level"
            case .trailingGarbage: "line 1"
            case .truncated: "found end of file."
            case .duplicateID: "images[2].id \"a2\" is a duplicate of images[1]"
            case .lastOf100000IsBad: "images[99999].width: expected an integer from 1 to 1000000, found 0."
            case .lastLineOf100000IsBad: "line 100000: height: expected an integer from 1 to 1000000, found -1."
            case .emptyNDJSON: "expected at least one image object, found an empty file."
            case .twoObjectsOnOneLine: "line 1"
            case .randomGarbage50MB: "is not valid UTF-8 at byte"
            case .whitespace50MBThenGarbage: "column 50000012"
            }
        }

        func contents() throws -> Data {
            func image(_ fields: String) -> Data {
                Data(#"{"feed": "travel", "images": [{\#(fields)}]}"#.utf8)
            }
            let megabyte = String(repeating: "x", count: 1 << 20)
            switch self {
            case .megabyteID: return image(#""id": "\#(megabyte)", "width": 1, "height": 1"#)
            case .megabyteIntegerID:
                return image(#""id": \#(String(repeating: "7", count: 1 << 20)), "width": 1, "height": 1"#)
            case .megabyteSectionID: return image(#""id": "a", "width": 1, "height": 1, "section": "\#(megabyte)""#)
            case .megabyteFeedName: return Data(#"{"feed": "\#(megabyte)", "images": []}"#.utf8)
            case .megabyteURL: return image(#""id": "a", "width": 1, "height": 1, "url": "https://x/\#(megabyte)""#)
            case .megabyteTitle: return image(#""id": "a", "width": 1, "height": 1, "title": "\#(megabyte)""#)
            case .nested200000Deep:
                let depth = 200_000
                return image(
                    #""id": "a", "width": 1, "height": 1, "extra": \#(String(repeating: "[", count: depth))\#(String(repeating: "]", count: depth))"#
                )
            case .nested200000DeepAtTopLevel: return Data(String(repeating: "[", count: 200_000).utf8)
            case .notUTF8:
                return Data(#"{"feed": "travel", "images": [{"id": ""#.utf8) + Data([0xFF, 0xFE, 0x80])
                    + Data(#"", "width": 1, "height": 1}]}"#.utf8)
            case .overlongUTF8:
                return Data(#"{"feed": "travel", "images": [{"id": "a"#.utf8) + Data([0xC0, 0xAF])
                    + Data(#"", "width": 1, "height": 1}]}"#.utf8)
            case .encodedSurrogate:
                return Data(#"{"feed": "travel", "images": [{"id": "a"#.utf8) + Data([0xED, 0xA0, 0x80])
                    + Data(#"", "width": 1, "height": 1}]}"#.utf8)
            case .loneEscapedSurrogate: return image(#""id": "a\ud800", "width": 1, "height": 1"#)
            case .escapedNULInID: return image(#""id": "a\u0000b", "width": 1, "height": 1"#)
            case .rawNULInID:
                return Data(#"{"feed": "travel", "images": [{"id": "a"#.utf8) + Data([0])
                    + Data(#"b", "width": 1, "height": 1}]}"#.utf8)
            case .escapedNULInTitle: return image(#""id": "a", "width": 1, "height": 1, "title": "x\u0000y""#)
            case .escapedNULInSectionID: return image(#""id": "a", "width": 1, "height": 1, "section": "s\u0000""#)
            case .controlCharacterInFeedName: return Data(#"{"feed": "tra\nvel", "images": []}"#.utf8)
            case .booleanWidth: return image(#""id": "a", "width": true, "height": 1"#)
            case .nullID: return image(#""id": null, "width": 1, "height": 1"#)
            case .objectID: return image(#""id": {"a": 1}, "width": 1, "height": 1"#)
            case .arrayHeight: return image(#""id": "a", "width": 1, "height": [1]"#)
            case .stringWidth: return image(#""id": "a", "width": "12", "height": 1"#)
            case .fractionalWidth: return image(#""id": "a", "width": 1.5, "height": 1"#)
            case .exponentWidth: return image(#""id": "a", "width": 1e3, "height": 1"#)
            case .hugeWidth: return image(#""id": "a", "width": 99999999999999999999999, "height": 1"#)
            case .zeroHeight: return image(#""id": "a", "width": 1, "height": 0"#)
            case .negativeWidth: return image(#""id": "a", "width": -5, "height": 1"#)
            case .objectSection: return image(#""id": "a", "width": 1, "height": 1, "section": {}"#)
            case .numberTitle: return image(#""id": "a", "width": 1, "height": 1, "title": 12"#)
            case .booleanSpan: return image(#""id": "a", "width": 1, "height": 1, "span": true"#)
            case .unknownSpan: return image(#""id": "a", "width": 1, "height": 1, "span": "half""#)
            case .imagesAsObject:
                return Data(#"{"feed": "travel", "images": {"id": "a", "width": 1, "height": 1}}"#.utf8)
            case .sectionsAsString: return Data(#"{"feed": "travel", "sections": "2024-05", "images": []}"#.utf8)
            case .missingImages: return Data(#"{"feed": "travel"}"#.utf8)
            case .repeatedImagesField: return Data(#"{"feed": "travel", "images": [], "images": []}"#.utf8)
            case .emptyFile, .emptyNDJSON: return Data()
            case .whitespaceOnly: return Data(" \n\t\r\n ".utf8)
            case .byteOrderMarkOnly: return Data([0xEF, 0xBB, 0xBF])
            case .topLevelArray: return Data(#"[{"id": "a", "width": 1, "height": 1}]"#.utf8)
            case .topLevelString: return Data(#""travel""#.utf8)
            case .trailingGarbage:
                return Data(#"{"feed": "travel", "images": []} {"feed": "travel", "images": []}"#.utf8)
            case .truncated: return Data(HostileInputTests.travel.utf8.prefix(HostileInputTests.travel.utf8.count / 2))
            case .duplicateID:
                return image(
                    #""id": "a1", "width": 1, "height": 1}, {"id": "a2", "width": 1, "height": 1}, {"id": "a2", "width": 2, "height": 2"#
                )
            case .lastOf100000IsBad:
                var text = #"{"feed": "travel", "images": ["#
                for index in 0..<99_999 {
                    text += #"{"id": "n\#(index)", "width": \#(100 + index % 900), "height": 200},"# + "\n"
                }
                return Data((text + #"{"id": "last", "width": 0, "height": 10}]}"#).utf8)
            case .lastLineOf100000IsBad:
                var text = ""
                for index in 0..<99_999 {
                    text += #"{"id": "n\#(index)", "width": \#(100 + index % 900), "height": 200}"# + "\n"
                }
                return Data((text + #"{"id": "last", "width": 10, "height": -1}"# + "\n").utf8)
            case .twoObjectsOnOneLine:
                return Data(#"{"id": "a", "width": 1, "height": 1} {"id": "b", "width": 1, "height": 1}"#.utf8)
            case .randomGarbage50MB:
                let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
                defer { try? random.close() }
                var bytes = try #require(try random.read(upToCount: 50_000_000))
                bytes[0] = 0xFF  // never, by chance, a valid start
                return bytes
            case .whitespace50MBThenGarbage:
                return Data(#"{"images":["#.utf8) + Data(repeating: 0x20, count: 50_000_000) + Data("}".utf8)
            }
        }
    }

    /// Command lines that must be refused, with their status and a part of the sentence.
    struct BadFlags: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var fragment: String

        var testDescription: String { arguments.joined(separator: " ") }

        static let page = ["page", "--columns", "3", "--width", "375"]
        static let all: [BadFlags] = [
            .init(
                arguments: ["page", "--columns", "0", "--width", "375"], status: 64,
                fragment: "columns must be a whole number from 1 to 64, got 0."),
            .init(
                arguments: ["page", "--columns", "65", "--width", "375"], status: 64,
                fragment: "columns must be a whole number from 1 to 64, got 65."),
            .init(arguments: ["page", "--columns", "-3", "--width", "375"], status: 64, fragment: "columns"),
            .init(
                arguments: ["page", "--columns", "3", "--width=-1"], status: 64,
                fragment: "width must be greater than 0"),
            .init(arguments: ["page", "--columns", "3", "--width", "-1"], status: 64, fragment: "width"),
            .init(
                arguments: ["page", "--columns", "3", "--width", "0"], status: 64,
                fragment: "width must be greater than 0"),
            .init(
                arguments: ["page", "--columns", "3", "--width", "nan"], status: 64,
                fragment: "width must be greater than 0"),
            .init(
                arguments: ["page", "--columns", "3", "--width", "inf"], status: 64,
                fragment: "width must be greater than 0"),
            .init(arguments: ["page", "--columns", "3", "--width", "1e400"], status: 64, fragment: "width"),
            .init(arguments: ["page", "--columns", "3", "--width", "wide"], status: 64, fragment: "width"),
            .init(
                arguments: page + ["--column-spacing", "400"], status: 64, fragment: "itemWidth must be greater than 0"),
            .init(arguments: page + ["--inset", "200"], status: 64, fragment: "contentWidth must be greater than 0"),
            .init(arguments: page + ["--column-spacing", "nan"], status: 64, fragment: "columnSpacing"),
            .init(arguments: page + ["--header-height", "inf"], status: 64, fragment: "headerHeight"),
            .init(
                arguments: page + ["--offset=-1", "--limit", "5"], status: 64,
                fragment: "--offset must be 0 or more, got -1."),
            .init(arguments: page + ["--page=-1"], status: 64, fragment: "--page must be 0 or more, got -1."),
            .init(
                arguments: page + ["--page", "0", "--page-size", "0"], status: 64,
                fragment: "--page-size must be between 1 and 100000, got 0."),
            .init(arguments: page + ["--offset", "0", "--limit", "0"], status: 64, fragment: "--limit"),
            .init(arguments: page + ["--page", "99999999999999999999"], status: 64, fragment: "--page"),
            .init(arguments: page + ["--scale", "4"], status: 64, fragment: "scale must be 1, 2 or 3, got 4."),
            .init(arguments: page + ["--order", "random"], status: 64, fragment: "order"),
            .init(
                arguments: ["page", "--feed", "nope", "--columns", "2", "--width", "300"], status: 65,
                fragment: "unknown feed \"nope\""),
            .init(arguments: ["page", "--layout", "nope"], status: 65, fragment: "unknown layout \"nope\""),
            .init(
                arguments: ["viewport", "--layout", "nope", "--y", "0", "--height", "100"], status: 65,
                fragment: "unknown layout \"nope\""),
            .init(
                arguments: ["viewport", "--layout", "phone", "--y", "nan", "--height", "100"], status: 64,
                fragment: "--y must be a finite number"),
            .init(
                arguments: ["viewport", "--layout", "phone", "--y", "0", "--height", "inf"], status: 64,
                fragment: "--height"),
            .init(
                arguments: ["viewport", "--layout", "phone", "--y", "0", "--height=-5"], status: 64,
                fragment: "--height"),
            .init(
                arguments: ["coverflow", "--item-height", "0", "--viewport-width", "100", "--x", "0"], status: 64,
                fragment: "itemHeight"),
            .init(
                arguments: ["coverflow", "--item-height", "100", "--viewport-width", "100", "--x", "inf"], status: 64,
                fragment: "--x must be a finite number"),
            .init(
                arguments: [
                    "coverflow", "--item-height", "100", "--viewport-width", "100", "--x", "0", "--factor", "nan",
                ], status: 64, fragment: "factor"),
            .init(
                arguments: ["move", "a1", "--before", "a1"], status: 64, fragment: "cannot move \"a1\" next to itself."),
            .init(
                arguments: ["move", "a1", "--after", "a1"], status: 64, fragment: "cannot move \"a1\" next to itself."),
            .init(
                arguments: ["move", "a1", "--to", "2"], status: 65, fragment: "index 2 is outside section \"2024-05\""),
            .init(
                arguments: ["move", "a1", "--to", "9223372036854775807"], status: 65,
                fragment: "is outside section \"2024-05\""),
            .init(arguments: ["move", "a1", "--to=-1"], status: 64, fragment: "--to"),
            .init(
                arguments: ["move", "zz", "--to", "0"], status: 65,
                fragment: "unknown image id \"zz\" in feed \"travel\"."),
            .init(arguments: ["move", "a1", "--before", "zz"], status: 65, fragment: "unknown image id \"zz\""),
            .init(arguments: ["move", "a1", "--to", "0", "--before", "a2"], status: 64, fragment: ""),
            .init(arguments: ["move", "a1"], status: 64, fragment: ""),
            .init(
                arguments: ["move", "a1", "--to", "0", "--feed", "nope"], status: 65, fragment: "unknown feed \"nope\""),
            .init(
                arguments: ["move", String(repeating: "x", count: 100_000), "--to", "0"], status: 65,
                fragment: "unknown image id"),
            .init(arguments: ["move", "a\nb", "--to", "0"], status: 65, fragment: "unknown image id \"a\\nb\""),
            .init(arguments: ["remove", "zz"], status: 65, fragment: "unknown image id \"zz\""),
            .init(arguments: ["remove", "a1", "zz"], status: 65, fragment: "unknown image id \"zz\""),
            .init(arguments: ["images", "--feed", "nope"], status: 65, fragment: "unknown feed \"nope\""),
            .init(
                arguments: ["images", "--feed", String(repeating: "x", count: 100_000)], status: 65,
                fragment: "unknown feed"),
            .init(arguments: ["images", "--offset=-1"], status: 64, fragment: "offset"),
            .init(arguments: ["images", "--limit", "0"], status: 64, fragment: "limit"),
            .init(arguments: ["changes", "--since=-1"], status: 64, fragment: "--since"),
            .init(
                arguments: ["layout", "add", "", "--columns", "2", "--width", "300"], status: 64,
                fragment: "layout name"),
            .init(
                arguments: ["layout", "add", String(repeating: "x", count: 129), "--columns", "2", "--width", "300"],
                status: 64, fragment: "layout name"),
            .init(
                arguments: ["layout", "add", "tab\tlet", "--columns", "2", "--width", "300"], status: 64,
                fragment: "control character"),
            .init(
                arguments: ["layout", "add", "wide", "--columns", "65", "--width", "300"], status: 64,
                fragment: "columns"),
            .init(arguments: ["layout", "remove", "nope"], status: 65, fragment: "unknown layout \"nope\""),
            .init(arguments: ["layout", "warm", "nope"], status: 65, fragment: "unknown layout \"nope\""),
            .init(
                arguments: ["import", "travel.json", "--append", "--reset-order"], status: 64, fragment: "--reset-order"
            ),
            .init(arguments: ["frobnicate"], status: 64, fragment: ""),
            .init(arguments: ["feeds", "--no-such-flag"], status: 64, fragment: ""),
        ]
    }

    /// Reorder files that must be refused with exit 65, all of them or nothing applied.
    struct HostileReorder: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var fragment: String

        var testDescription: String { name }

        static let all: [HostileReorder] = [
            .init(
                name: "a valid move, then one of an unknown id",
                text: #"{"feed": "travel", "moves": [{"id": "a1", "to": 1}, {"id": "zz", "before": "a1"}]}"#,
                fragment: "moves[1]: unknown image id \"zz\""),
            .init(
                name: "a move before an unknown id",
                text: #"{"feed": "travel", "moves": [{"id": "a1", "before": "zz"}]}"#,
                fragment: "unknown image id \"zz\""),
            .init(
                name: "an order with an unknown id", text: #"{"feed": "travel", "order": ["a2", "zz"]}"#,
                fragment: "order[1]: unknown image id \"zz\""),
            .init(
                name: "an order with a duplicate", text: #"{"feed": "travel", "order": ["a1", "a2", "a1"]}"#,
                fragment: "order[2] \"a1\" is a duplicate of order[0]."),
            .init(
                name: "a removal list with a duplicate", text: #"{"feed": "travel", "remove": ["b1", "b1"]}"#,
                fragment: "remove[1] \"b1\" is a duplicate of remove[0]."),
            .init(
                name: "a valid move, then a removal of an unknown id",
                text: #"{"feed": "travel", "moves": [{"id": "b1", "before": "a1"}], "remove": ["a2", "zz"]}"#,
                fragment: "unknown image id \"zz\""),
            .init(
                name: "a move onto itself", text: #"{"feed": "travel", "moves": [{"id": "a1", "after": "a1"}]}"#,
                fragment: "cannot move \"a1\" after itself."),
            .init(
                name: "a move past the end of its section",
                text: #"{"feed": "travel", "moves": [{"id": "a1", "to": 2}]}"#,
                fragment: "index 2 is outside section \"2024-05\""),
            .init(
                name: "a negative index", text: #"{"feed": "travel", "moves": [{"id": "a1", "to": -1}]}"#,
                fragment: "moves[0].to: expected a non-negative integer, found -1."),
            .init(
                name: "a fractional index", text: #"{"feed": "travel", "moves": [{"id": "a1", "to": 0.5}]}"#,
                fragment: "moves[0].to"),
            .init(
                name: "two targets", text: #"{"feed": "travel", "moves": [{"id": "a1", "to": 0, "before": "a2"}]}"#,
                fragment: "exactly one of"),
            .init(
                name: "an unknown feed", text: #"{"feed": "nope", "order": ["a1"]}"#, fragment: "unknown feed \"nope\""),
            .init(
                name: "order and moves together", text: #"{"feed": "travel", "order": ["a1"], "moves": []}"#,
                fragment: "expected either \"order\" or \"moves\""),
            .init(name: "nothing to do", text: #"{"feed": "travel"}"#, fragment: "found none."),
            .init(name: "an empty order", text: #"{"feed": "travel", "order": []}"#, fragment: "found an empty array."),
            .init(name: "ids that are booleans", text: #"{"feed": "travel", "order": [true]}"#, fragment: "order[0]"),
            .init(
                name: "a megabyte id",
                text: #"{"feed": "travel", "remove": [""# + String(repeating: "x", count: 1 << 20) + #""]}"#,
                fragment: "expected at most 256 bytes"),
            .init(
                name: "a NUL in an id", text: #"{"feed": "travel", "remove": ["a\u0000"]}"#,
                fragment: "without control characters"),
            .init(name: "an empty file", text: "", fragment: "found an empty file."),
            .init(name: "a top-level array", text: #"["a1", "a2"]"#, fragment: "found an array."),
            .init(
                name: "a truncated file", text: #"{"feed": "travel", "moves": [{"id": "a1", "to"#,
                fragment: "found end of file."),
            .init(
                name: "nesting 200,000 deep",
                text: #"{"feed": "travel", "x": "# + String(repeating: "[", count: 200_000),
                fragment: "levels of nested"),
        ]
    }

    /// Things given as `--db` that are not a Waterfall database of this version.
    enum ForeignDatabase: String, CaseIterable, Sendable {
        case otherApplicationsSQLite, otherApplicationsSQLiteInWAL, textFile, binaryGarbage, sqliteHeaderOnly
        case damagedWaterfallDatabase, directory

        var fragment: String {
            switch self {
            case .otherApplicationsSQLite, .otherApplicationsSQLiteInWAL: "is a SQLite database of another application"
            case .textFile, .binaryGarbage: "is not a SQLite database"
            case .sqliteHeaderOnly: "not a database"
            case .damagedWaterfallDatabase: "malformed"
            case .directory: "is a directory"
            }
        }

        /// Creates the thing in `folder` and returns its path; `nil` when this machine cannot make
        /// it (no `sqlite3`). `database` is a valid Waterfall database to damage a copy of.
        func make(in folder: TemporaryDirectory, from database: String) throws -> String? {
            let path = folder.path("\(rawValue).sqlite")
            switch self {
            case .otherApplicationsSQLite:
                guard HostileInputSupport.sqlite3 != nil else { return nil }
                _ = try HostileInputSupport.runSQLite(path, "CREATE TABLE t(x); INSERT INTO t VALUES (1), ('two');")
            case .otherApplicationsSQLiteInWAL:
                guard HostileInputSupport.sqlite3 != nil else { return nil }
                _ = try HostileInputSupport.runSQLite(
                    path,
                    "PRAGMA journal_mode = WAL; CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES ('keep me');")
            case .textFile:
                try folder.write("shopping list\n- milk\n- bread\n", to: "\(rawValue).sqlite")
            case .binaryGarbage:
                var random = SeededGenerator(seed: 74)
                try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) }).write(
                    to: URL(fileURLWithPath: path))
            case .sqliteHeaderOnly:
                try (Data("SQLite format 3\u{0}".utf8) + Data(count: 84)).write(to: URL(fileURLWithPath: path))
            case .damagedWaterfallDatabase:
                try Data(contentsOf: URL(fileURLWithPath: database)).prefix(4096).write(to: URL(fileURLWithPath: path))
            case .directory:
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                try Data("inside\n".utf8).write(to: URL(fileURLWithPath: path + "/note.txt"))
            }
            return path
        }
    }
}

// MARK: - Helpers

/// Running `sqlite3` and comparing files, for the hostile-input and disk-full tests.
enum HostileInputSupport {
    /// Checks that a failed run printed exactly one line, `waterfall: error: <sentence>`, holding
    /// `fragment`, and nothing on standard output.
    static func expectOneErrorLine(
        _ result: WaterfallProcess.Result, mentioning fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = result.standardError
        #expect(error.hasPrefix("waterfall: error: "), "\(error.prefix(300))", sourceLocation: sourceLocation)
        #expect(error.hasSuffix(".\n"), "\(error.suffix(300))", sourceLocation: sourceLocation)
        #expect(
            error.filter { $0 == "\n" }.count == 1, "not one line: \(error.prefix(300))", sourceLocation: sourceLocation
        )
        if !fragment.isEmpty {
            #expect(
                error.contains(fragment), "expected “\(fragment)” in: \(error.prefix(300))",
                sourceLocation: sourceLocation)
        }
        #expect(result.standardOutput.isEmpty, "\(result.standardOutput.prefix(300))", sourceLocation: sourceLocation)
    }

    /// The `sqlite3` command-line shell, when installed.
    static let sqlite3: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs `sql` with `sqlite3` on the database at `path` and returns what it printed.
    static func runSQLite(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(sqlite3))
        process.arguments = [path, sql]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `PRAGMA integrity_check` of the database at `path`; `nil` without `sqlite3`.
    static func integrityCheck(_ path: String) -> String? {
        guard sqlite3 != nil else { return nil }
        return (try? runSQLite(path, "PRAGMA integrity_check")) ?? "sqlite3 failed"
    }

    /// The bytes of `path` (for a directory, its listing and its files' bytes) and the names of
    /// the files beside it, to show that nothing was written, created or left behind.
    static func snapshot(of path: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if isDirectory.boolValue {
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                result["inside/" + name] = try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
            }
        } else {
            result["file"] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        for sibling in try FileManager.default.contentsOfDirectory(atPath: folder)
        where sibling.hasPrefix(name) && sibling != name {
            result["beside/" + sibling] = Data()
        }
        return result
    }
}

extension HostileInputTests {
    @Test func aPathWithALineBreakStillGivesOneLine() throws {
        // A file name may hold any byte but `/` and NUL; the message must stay one line.
        let feed = try folder.write(
            #"{"feed": "travel", "images": [{"id": "a", "width": 0, "height": 1}]}"#, to: "bad\nfeed.json")
        try expectRefusal(["import", feed], status: 65, mentioning: "bad\\u000Afeed.json: images[0].width")
        try expectRefusal(
            ["reorder", folder.path("no\nsuch.json")], status: 66, mentioning: "no\\u000Asuch.json: cannot be read")
        let result = try WaterfallProcess.run(["--db", folder.path("no\nfolder/x.sqlite"), "feeds"])
        #expect(result.status == 73)
        HostileInputSupport.expectOneErrorLine(result, mentioning: "cannot create the database")
    }
}
