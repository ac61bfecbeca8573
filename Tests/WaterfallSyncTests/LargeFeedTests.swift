import Testing
import WaterfallTestSupport

@testable import WaterfallSync

/// Seconds of decoding each, on threads of their own (``OnOwnThreads``): on Swift's cooperative
/// pool (two threads on the CI machine) the four of them held it whole for the first 25 s of a
/// full run, and every other test's tasks, servers' included, waited.
@Suite("Million-image feeds", .onOwnThreads)
struct LargeFeedTests {
    static let count = 1_000_000
    /// The million images, without the closing `]}`; generated once for all tests here.
    static let images = FeedGenerator.jsonImages(count: count)

    @Test func aMillionImageFeedDecodes() throws {
        // Given a generated feed of a million images (about 45 MB)
        var generator = LargeFeedTests.images
        generator.append("\n]}\n")
        // When it is decoded
        let document = try FeedDecoder().decode(generator.bytes, format: .json, source: "big.json")
        // Then every image is there, in order
        #expect(document.images.count == LargeFeedTests.count)
        #expect(document.images[0] == FeedImage(id: "i0", width: 100, height: 100))
        #expect(document.images[999_999] == FeedImage(id: "i999999", width: 1099, height: 100 + 999_999 % 777))
    }

    @Test func aBadRecordAtTheVeryEndIsRejected() {
        var generator = LargeFeedTests.images
        generator.append(",\n{\"id\":\"last\",\"width\":1200,\"height\":0}\n]}\n")
        #expect(
            feedError(generator.bytes)
                == "feed.json: images[1000000].height: expected an integer from 1 to 1000000, found 0.")
    }

    @Test func aDuplicateAtTheVeryEndIsRejected() {
        var generator = LargeFeedTests.images
        generator.append(",\n{\"id\":\"i123456\",\"width\":1,\"height\":1}\n]}\n")
        #expect(
            feedError(generator.bytes)
                == "feed.json: images[1000000].id \"i123456\" is a duplicate of images[123456].id.")
    }

    @Test func aTruncatedMillionImageFeedIsRejected() {
        let generator = LargeFeedTests.images
        #expect(
            feedError(generator.bytes)
                == "feed.json: line 1000001, column 43: expected ',' or ']', found end of file.")
    }
}
