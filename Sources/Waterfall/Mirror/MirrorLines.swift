import Foundation
import WaterfallStore
import WaterfallSync

/// The image lines a server sent a mirror (DESIGN section 21), spooled to a file, read back a
/// batch at a time inside the mirror's write transaction: each batch is decoded and checked by
/// the feed decoder, as an import's lines are (a server is as hostile as any input), so the
/// memory held is a batch's whatever the feed's size.
struct MirrorLines {
    /// Lines decoded at a time.
    static let batchLines = 4_096
    /// The most bytes a line may take (a feed's image is well under 200 KB at most).
    static let maximumLineBytes = 1 << 20

    private let file: FileHandle
    private let source: String
    private var pending: [UInt8] = []
    /// Where the unread bytes of `pending` start.
    private var start = 0
    private var atEnd = false
    /// Lines handed out so far (for the place in a message).
    private(set) var count = 0

    /// Opens the spooled lines at `path`; `source` names the server in messages.
    init(path: String, source: String) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw WaterfallError.fileUnreadable("cannot read the lines spooled from \(source) at \(path).")
        }
        self.file = file
        self.source = source
    }

    /// The next batch of images, each with its section's name (`nil`: the unnamed one); empty
    /// at the end.
    mutating func next() throws -> [(image: FeedImage, section: String?)] {
        var lines: [UInt8] = []
        var lineCount = 0
        func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.allSatisfy { $0 == 0x20 || $0 == 0x0D || $0 == 0x09 } }
        while lineCount < Self.batchLines {
            if let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[start..<newline]
                if !isBlank(line) {
                    lines += line
                    lines.append(UInt8(ascii: "\n"))
                    lineCount += 1
                }
                start = newline + 1
                continue
            }
            if atEnd {
                if !isBlank(pending[start...]) {
                    lines += pending[start...]
                    lineCount += 1
                }
                (pending, start) = ([], 0)
                break
            }
            if pending.count - start > Self.maximumLineBytes {
                throw WaterfallError.invalidData("\(source) sent an image line over \(Self.maximumLineBytes) bytes.")
            }
            let chunk = try file.read(upToCount: 1 << 20) ?? Data()
            pending.removeSubrange(..<start)
            start = 0
            if chunk.isEmpty { atEnd = true } else { pending += chunk }
        }
        guard lineCount > 0 else { return [] }
        let document = try FeedDecoder().decode(lines, format: .ndjson, source: "\(source), lines \(count + 1)…")
        count += lineCount
        return document.images.map { image in
            (image, image.section.map { document.sectionNames[Int($0)] })
        }
    }
}
