import Testing

@testable import WaterfallSync

/// Decodes `text` as a feed held in memory, named `feed.json` (or `feed.ndjson`) in messages.
func decodeFeed(_ text: String, format: FeedFormat = .json, limits: SyncLimits = .default) throws(SyncError)
    -> FeedDocument
{
    try FeedDecoder(limits: limits).decode(
        Array(text.utf8), format: format, source: format == .json ? "feed.json" : "feed.ndjson")
}

/// The message of the error decoding `bytes` as a feed raises, or `nil` when it decodes.
func feedError(_ bytes: [UInt8], format: FeedFormat = .json, limits: SyncLimits = .default) -> String? {
    let source = format == .json ? "feed.json" : "feed.ndjson"
    do {
        _ = try FeedDecoder(limits: limits).decode(bytes, format: format, source: source)
        return nil
    } catch {
        #expect(error.kind == .invalidData)
        return error.message
    }
}

/// The message of the error decoding `text` as a feed raises, or `nil` when it decodes.
func feedError(_ text: String, format: FeedFormat = .json, limits: SyncLimits = .default) -> String? {
    feedError(Array(text.utf8), format: format, limits: limits)
}

/// A feed whose only image is `image` (JSON object text).
func feed(image: String) -> String {
    "{\"images\": [\(image)]}"
}

/// The error message for a feed whose only image is `image`.
func imageError(_ image: String) -> String? {
    feedError(feed(image: image))
}

/// Decodes `text` as a reorder file named `reorder.json` in messages.
func decodeReorder(_ text: String) throws(SyncError) -> ReorderDocument {
    try ReorderDecoder().decode(Array(text.utf8), source: "reorder.json")
}

/// The message of the error decoding `text` as a reorder file raises, or `nil`.
func reorderError(_ text: String) -> String? {
    do {
        _ = try decodeReorder(text)
        return nil
    } catch {
        return error.message
    }
}

/// Builds large feeds quickly, straight into a byte array.
struct FeedGenerator {
    private(set) var bytes: [UInt8] = []

    init(reservingBytes: Int) {
        bytes.reserveCapacity(reservingBytes)
    }

    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ value: Int) {
        var divisor = 1
        while divisor * 10 <= value { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// `{"images":[` then `count` images `{"id":"i<n>","width":<w>,"height":<h>}`, each on a
    /// line, without the closing `]}`.
    static func jsonImages(count: Int) -> FeedGenerator {
        var generator = FeedGenerator(reservingBytes: count * 48 + 64)
        generator.append("{\"images\":[\n")
        for index in 0..<count {
            if index > 0 { generator.append(",\n") }
            generator.append("{\"id\":\"i")
            generator.append(index)
            generator.append("\",\"width\":")
            generator.append(100 + index % 1000)
            generator.append(",\"height\":")
            generator.append(100 + index % 777)
            generator.append("}")
        }
        return generator
    }
}
