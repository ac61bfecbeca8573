import Foundation
import Testing
import WaterfallTestSupport

@testable import WaterfallSync

@Suite("Reading feed and reorder files")
struct FileReadingTests {
    /// Inputs that exercise every path of the scanner: escapes, surrogates, multi-byte
    /// characters, numbers, skipped values, and errors of each kind at various places.
    static let corpus: [(String, FeedFormat)] = [
        (
            #"{"feed": "f", "sections": [{"id": "s", "title": "T"}], "images": [{"id": "a", "width": 1, "height": 2, "url": "https://x/y.jpg", "title": "Tïtle 🌊", "section": "s", "span": "full"}]}"#,
            .json
        ),
        (
            "\u{FEFF}{\"images\": [{\"id\": \"caf\\u00e9 \\ud83d\\ude00 é\", \"width\": 10, \"height\": 20, \"extra\": {\"a\": [1.5e-3, -0, true, false, null, \"\\\"\"]}}]}",
            .json
        ),
        (
            "{\"images\": [{\"id\": 397133, \"width\": 1200, \"height\": 800, \"title\": \"\(String(repeating: "€", count: 300))\"}]}",
            .json
        ),
        (#"{"images": [{"id": "a", "width": 1.5, "height": 2}]}"#, .json),
        (#"{"images": [{"id": "a", "width": 99999999999999999999999, "height": 2}]}"#, .json),
        (#"{"images": [{"id": "a\u0000", "width": 1, "height": 2}]}"#, .json),
        (#"{"images": [{"id": "\ud83d\u0041", "width": 1, "height": 2}]}"#, .json),
        ("{\"images\": [{\"id\": \"été\u{1}\", \"width\": 1, \"height\": 2}]}", .json),
        ("{\"images\": [{\"id\": \"a\", \"width\": 1, \"height\": 2}]}\n\n  é", .json),
        (#"{"images": [{"id": "a", "width": 1, "height": 2}, {"id": "a", "width": 1, "height": 2}]}"#, .json),
        (#"{"images": [], "x": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["#, .json),
        ("{\"images\": [], \"x\": \"\(String(repeating: "ab", count: 100))", .json),
        ("", .json),
        ("[1, 2]", .json),
        (
            "{\"id\": \"a\", \"width\": 1, \"height\": 2}\r\n\n{\"id\": \"b\", \"width\": 3, \"height\": 4, \"section\": 5}\n",
            .ndjson
        ),
        ("{\"id\": \"a\", \"width\": 1, \"height\": 2}\n{\"id\": \"b\", \"width\": 0, \"height\": 4}\n", .ndjson),
        ("{\"id\": \"a\", \"width\": 1,\n \"height\": 2}", .ndjson),
        ("\n\n", .ndjson),
    ]

    @Test func filesReadInTinyChunksDecodeExactlyLikeMemory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (index, (text, format)) in FileReadingTests.corpus.enumerated() {
            let bytes = Array(text.utf8)
            let path = try directory.write(text, to: "feed\(index)" + (format == .json ? ".json" : ".ndjson"))
            let name = (path as NSString).lastPathComponent
            let expected = Result { () throws(SyncError) in
                try FeedDecoder().decode(bytes, format: format, source: path)
            }
            for chunkSize in [1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 1 << 20] {
                var decoder = FeedDecoder()
                decoder.chunkSize = chunkSize
                let actual = Result { () throws(SyncError) in try decoder.decode(contentsOf: path, format: format) }
                #expect(actual == expected, "\(name) read \(chunkSize) bytes at a time")
            }
        }
    }

    @Test func mutatedInputsNeverCrashAndReadTheSameInChunks() throws {
        // Given valid feeds with random bytes replaced, inserted or deleted
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let seed: UInt64 = 20_241_122
        var random = SeededGenerator(seed: seed)
        let interesting: [UInt8] =
            Array("{}[]:,\"\\/u0123456789.eE+-tfnul \n\r\t".utf8) + [
                0, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xFF,
            ]
        for round in 0..<300 {
            let (text, format) = FileReadingTests.corpus[
                Int.random(in: 0..<FileReadingTests.corpus.count, using: &random)]
            var bytes = Array(text.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
                let byte = interesting.randomElement(using: &random)!
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !bytes.isEmpty: bytes[index] = byte
                case 1 where !bytes.isEmpty: bytes.remove(at: index)
                default: bytes.insert(byte, at: index)
                }
            }
            // When they are decoded from memory and from a file read in small chunks
            let path = directory.path("mutated.json")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected = Result { () throws(SyncError) in
                try FeedDecoder().decode(bytes, format: format, source: path)
            }
            var decoder = FeedDecoder()
            decoder.chunkSize = Int.random(in: 1...12, using: &random)
            let actual = Result { () throws(SyncError) in try decoder.decode(contentsOf: path, format: format) }
            // Then both agree, and every error is one sentence
            #expect(actual == expected, "seed \(seed), round \(round), chunk \(decoder.chunkSize): \(bytes)")
            if case .failure(let error) = expected {
                #expect(error.message.hasSuffix(".") && !error.message.contains("\n"), "\(error.message)")
            }
        }
    }

    @Test func invalidUTF8AcrossChunkBoundaries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("bad.json")
        let bytes =
            Array(#"{"images": [{"id": "é"#.utf8) + [0xE2, 0x82] + Array(#"", "width": 1, "height": 1}]}"#.utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for chunkSize in 1...9 {
            var decoder = FeedDecoder()
            decoder.chunkSize = chunkSize
            #expect(throws: SyncError(kind: .invalidData, message: "\(path): is not valid UTF-8 at byte 22.")) {
                try decoder.decode(contentsOf: path, format: .json)
            }
        }
    }

    @Test func missingFilesAndDirectoriesAreUnreadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.path("missing.json")
        #expect(
            throws: SyncError(kind: .fileUnreadable, message: "\(missing): cannot be read: No such file or directory.")
        ) {
            try FeedDecoder().decode(contentsOf: missing, format: .json)
        }
        #expect(
            throws: SyncError(kind: .fileUnreadable, message: "\(directory.url.path): cannot be read: Is a directory.")
        ) {
            try FeedDecoder().decode(contentsOf: directory.url.path, format: .json)
        }
        #expect(
            throws: SyncError(kind: .fileUnreadable, message: "\(missing): cannot be read: No such file or directory.")
        ) {
            try ReorderDecoder().decode(contentsOf: missing)
        }
    }

    @Test func filesOverTheSizeLimitAreRejected() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(#"{"images": []}"#, to: "feed.json")
        #expect(
            throws: SyncError(
                kind: .invalidData, message: "\(path): expected a file of at most 10 bytes, found 14 bytes.")
        ) {
            try FeedDecoder(limits: SyncLimits(fileBytes: 10)).decode(contentsOf: path, format: .json)
        }
    }

    @Test func progressReportsBytesRead() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var generator = FeedGenerator.jsonImages(count: 200_000)
        generator.append("]}")
        let path = directory.path("big.json")
        try Data(generator.bytes).write(to: URL(fileURLWithPath: path))
        let reports = ProgressReports()
        let totals = ProgressReports()
        var decoder = FeedDecoder()
        decoder.progress = { bytes, total in
            reports.append(bytes)
            totals.append(total ?? -1)
        }
        let document = try decoder.decode(contentsOf: path, format: .json)
        #expect(document.images.count == 200_000)
        let seen = reports.values
        #expect(seen.last == generator.bytes.count)
        #expect(seen.count == generator.bytes.count / (4 << 20) + 1)
        #expect(seen == seen.sorted())
        #expect(Set(totals.values) == [generator.bytes.count])
    }

    @Test func aDashReadsStandardInput() throws {
        // Given standard input replaced by a pipe holding a feed with a bad size
        let text = "{\"id\": \"a\", \"width\": 1, \"height\": 1}\n{\"id\": \"b\", \"width\": 0, \"height\": 1}\n"
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let written = Array(text.utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        #expect(written == text.utf8.count)
        close(fds[1])
        let saved = dup(0)
        dup2(fds[0], 0)
        close(fds[0])
        defer {
            dup2(saved, 0)
            close(saved)
        }
        // When "-" is decoded
        // Then the input is read and named "standard input"
        #expect(
            throws: SyncError(
                kind: .invalidData,
                message: "standard input: line 2: width: expected an integer from 1 to 1000000, found 0.")
        ) {
            try FeedDecoder().decode(contentsOf: "-", format: .ndjson)
        }
    }

    @Test func reorderFilesAreReadFromDisk() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(#"{"feed": "travel", "order": ["b", "a"]}"#, to: "reorder.json")
        var decoder = ReorderDecoder()
        decoder.chunkSize = 3
        #expect(
            try decoder.decode(contentsOf: path) == ReorderDocument(feed: "travel", operations: .order(["b", "a"])))
    }
}

/// Collects progress reports from a `@Sendable` closure.
private final class ProgressReports: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []

    func append(_ value: Int) {
        lock.withLock { storage.append(value) }
    }

    var values: [Int] { lock.withLock { storage } }
}
