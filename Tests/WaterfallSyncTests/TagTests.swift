import Testing

@testable import WaterfallSync

/// `tags` in feed files (DESIGN section 20): what is accepted and kept, and that anything else
/// is refused with its JSON path in one sentence.
@Suite struct TagTests {
    @Test func tagsAreReadInTheFeedsOrderAndComparedExactly() throws {
        // Given tags in unicode, "é" once precomposed and once decomposed, null and []
        let document = try decodeFeed(
            #"""
            {"images": [
              {"id": "a", "width": 1, "height": 1, "tags": ["zebra", "família", "caf\u00e9", "cafe\u0301", "🏖"]},
              {"id": "b", "width": 1, "height": 1, "tags": null},
              {"id": "c", "width": 1, "height": 1, "tags": []},
              {"id": "d", "width": 1, "height": 1}]}
            """#)
        // Then each image keeps its tags as given, the two spellings of "café" two tags
        #expect(document.images[0].tags == ["zebra", "família", "caf\u{e9}", "cafe\u{301}", "🏖"])
        #expect(document.images[0].tags.count == 5)
        #expect(document.images[1].tags.isEmpty && document.images[2].tags.isEmpty && document.images[3].tags.isEmpty)
    }

    @Test func ndjsonLinesCarryThem() throws {
        let document = try decodeFeed(#"{"id": "a", "width": 1, "height": 1, "tags": ["x"]}"# + "\n", format: .ndjson)
        #expect(document.images[0].tags == ["x"])
    }

    @Test func sixtyFourTagsOfSixtyFourBytesAreAccepted() throws {
        let tags = (0..<64).map { String(format: "%064d", $0) }
        let list = tags.map { "\"\($0)\"" }.joined(separator: ", ")
        #expect(
            try decodeFeed(feed(image: #"{"id": "a", "width": 1, "height": 1, "tags": [\#(list)]}"#)).images[0].tags
                == tags)
    }

    @Test(arguments: [
        (#"["x", "x"]"#, #"images[0].tags[1]: expected a tag not given before, found "x" again."#),
        (#"["a", 3]"#, "images[0].tags[1]: expected a tag: a non-empty string, found 3."),
        (#"[""]"#, "images[0].tags[0]: expected a tag: a non-empty string, found an empty string."),
        (#"["a\tb"]"#, #"images[0].tags[0]: expected a string without control characters, found "a\u0009b"."#),
        (
            "[\"" + String(repeating: "é", count: 33) + "\"]",
            "images[0].tags[0]: expected at most 64 bytes, found a string of 66 bytes."
        ),
        (#""beach""#, #"images[0].tags: expected an array of tags (strings), or null, found "beach"."#),
        (#"{"a": 1}"#, "images[0].tags: expected an array of tags (strings), or null, found an object."),
        (
            "[" + (0...64).map { "\"t\($0)\"" }.joined(separator: ",") + "]",
            "images[0].tags: expected at most 64 tags, found more."
        ),
    ])
    func badTagsAreRefusedWithTheirPath(value: String, message: String) {
        #expect(
            feedError(feed(image: #"{"id": "a", "width": 1, "height": 1, "tags": \#(value)}"#)) == "feed.json: "
                + message)
    }

    @Test func aRepeatedTagsFieldIsRefused() {
        #expect(
            feedError(feed(image: #"{"id": "a", "width": 1, "height": 1, "tags": ["a"], "tags": ["b"]}"#))
                == #"feed.json: images[0]: expected one "tags" field, found two."#)
    }

    @Test func theStoredTextGivesTheTagsBack() {
        let tags = ["a b", "família", "caf\u{e9}", "cafe\u{301}"]
        #expect(ImageTags.tags(storedText: ImageTags.storedText(tags)) == tags)
        #expect(ImageTags.storedText([]) == nil)
        #expect(ImageTags.tags(storedText: nil).isEmpty)
        #expect(ImageTags.contains(tags, "cafe\u{301}") && !ImageTags.contains(["caf\u{e9}"], "cafe\u{301}"))
        #expect(ImageTags.isValid("x") && !ImageTags.isValid("") && !ImageTags.isValid("a\nb"))
        #expect(!ImageTags.isValid(String(repeating: "a", count: 65)))
    }
}
