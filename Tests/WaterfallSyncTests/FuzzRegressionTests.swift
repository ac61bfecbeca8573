import Foundation
import Testing

@testable import WaterfallSync

/// Replays the fuzz corpus (`Fuzz/corpus/`, see `Fuzz/README.md`) and pins what fuzzing and the
/// hostile-input tests found, so that every `swift test` re-checks it without libFuzzer.
@Suite struct FuzzRegressionTests {
    /// `Fuzz/corpus/<name>/`, from this file's place in the repository.
    static func corpus(_ name: String) throws -> [URL] {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Fuzz/corpus/\(name)", directoryHint: .isDirectory)
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        return files.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func everyFeedInTheCorpusDecodesAlikeFromMemoryAndFromAFileInChunks() throws {
        let files = try FuzzRegressionTests.corpus("feed")
        #expect(files.count >= 10)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            for format in [FeedFormat.json, .ndjson] {
                let expected = Result { () throws(SyncError) in
                    try FeedDecoder().decode(bytes, format: format, source: file.path)
                }
                if case .failure(let error) = expected { expectOneSentence(error) }
                for chunkSize in [1, 3, 7, 1 << 20] {
                    var decoder = FeedDecoder()
                    decoder.chunkSize = chunkSize
                    let actual = Result { () throws(SyncError) in
                        try decoder.decode(contentsOf: file.path, format: format)
                    }
                    #expect(actual == expected, "\(file.lastPathComponent) as \(format), \(chunkSize) bytes at a time")
                }
            }
        }
    }

    @Test func everyReorderFileInTheCorpusDecodesAlikeFromMemoryAndFromAFileInChunks() throws {
        let files = try FuzzRegressionTests.corpus("reorder")
        #expect(files.count >= 10)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            let expected = Result { () throws(SyncError) in try ReorderDecoder().decode(bytes, source: file.path) }
            if case .failure(let error) = expected { expectOneSentence(error) }
            for chunkSize in [1, 3, 7, 1 << 20] {
                var decoder = ReorderDecoder()
                decoder.chunkSize = chunkSize
                let actual = Result { () throws(SyncError) in try decoder.decode(contentsOf: file.path) }
                #expect(actual == expected, "\(file.lastPathComponent), \(chunkSize) bytes at a time")
            }
        }
    }

    @Test func aFileNameWithALineBreakStaysOnOneLineInMessages() throws {
        // Found by the hostile-input tests: `import $'bad\nfeed.json'` printed a two-line error.
        let feed = try #require(feedError(#"{"images": 1}"#.utf8.map { $0 }, source: "bad\nfeed.json\u{202E}"))
        #expect(feed == #"bad\u000Afeed.json\u202E: images: expected an array of image objects, found 1."#)
        let missing = Result { () throws(SyncError) in try ReorderDecoder().decode(contentsOf: "/no/such\r\nfile.json")
        }
        guard case .failure(let error) = missing else {
            Issue.record("a missing file decoded")
            return
        }
        #expect(
            error
                == SyncError(
                    kind: .fileUnreadable,
                    message: #"/no/such\u000D\u000Afile.json: cannot be read: No such file or directory."#))
    }

    /// The message of the error decoding `bytes` as a JSON feed named `source`, or `nil`.
    func feedError(_ bytes: [UInt8], source: String) -> String? {
        do {
            _ = try FeedDecoder().decode(bytes, format: .json, source: source)
            return nil
        } catch {
            return error.message
        }
    }

    /// A rejection is one sentence on one line, as the command line prints it.
    func expectOneSentence(_ error: SyncError, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.message.hasSuffix("."), "\(error.message)", sourceLocation: sourceLocation)
        #expect(
            !error.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
            "\(error.message.debugDescription)", sourceLocation: sourceLocation)
    }
}
