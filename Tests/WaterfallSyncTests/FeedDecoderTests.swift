import Testing

@testable import WaterfallSync

@Suite("Decoding valid JSON feeds")
struct FeedDecoderTests {
    @Test func decodesTheDesignExample() throws {
        // Given the feed from DESIGN section 4
        let text = """
            { "feed": "travel",
              "sections": [ { "id": "2024-05", "title": "May 2024" } ],
              "images": [ { "id": "a1", "width": 1200, "height": 800, "url": "https://example.com/a1.jpg",
                            "title": "Lisbon", "section": "2024-05" } ] }
            """
        // When it is decoded
        let document = try decodeFeed(text)
        // Then every field is there
        #expect(document.feed == "travel")
        #expect(document.declaredSections == [FeedSection(id: "2024-05", title: "May 2024")])
        #expect(document.sectionNames == ["2024-05"])
        #expect(
            document.images == [
                FeedImage(
                    id: "a1", width: 1200, height: 800, url: "https://example.com/a1.jpg", title: "Lisbon",
                    section: 0, span: .normal)
            ])
    }

    @Test func anEmptyImagesArrayIsAnEmptyFeed() throws {
        let document = try decodeFeed(#"{"images": []}"#)
        #expect(document.feed == nil)
        #expect(document.images.isEmpty)
        #expect(document.sectionNames.isEmpty)
        #expect(document.declaredSections.isEmpty)
    }

    @Test func optionalFieldsMayBeNullOrAbsent() throws {
        let document = try decodeFeed(
            """
            {"feed": null, "sections": null, "images": [
              {"id": "a", "width": 1, "height": 2, "url": null, "title": null, "section": null, "span": null},
              {"id": "b", "width": 3, "height": 4}]}
            """)
        #expect(document.feed == nil)
        #expect(
            document.images == [
                FeedImage(id: "a", width: 1, height: 2),
                FeedImage(id: "b", width: 3, height: 4),
            ])
    }

    @Test func spanFullAndNormal() throws {
        let document = try decodeFeed(
            """
            {"images": [{"id": "a", "width": 1, "height": 1, "span": "full"},
                        {"id": "b", "width": 1, "height": 1, "span": "normal"}]}
            """)
        #expect(document.images.map(\.span) == [.full, .normal])
    }

    @Test func integerIdsAreKeptAsDecimalText() throws {
        let document = try decodeFeed(
            """
            {"sections": [{"id": 7}], "images": [
              {"id": 397133, "width": 1, "height": 1, "section": 7},
              {"id": 0, "width": 1, "height": 1, "section": 8},
              {"id": "-0", "width": 1, "height": 1, "section": "x"},
              {"id": -12, "width": 1, "height": 1},
              {"id": 99999999999999999999999, "width": 1, "height": 1}]}
            """)
        #expect(document.images.map(\.id) == ["397133", "0", "-0", "-12", "99999999999999999999999"])
        #expect(document.sectionNames == ["7", "8", "x"])
        #expect(document.images.map(\.section) == [0, 1, 2, nil, nil])
    }

    @Test func negativeZeroIdIsZero() throws {
        let document = try decodeFeed(#"{"images": [{"id": -0, "width": 1, "height": 1}]}"#)
        #expect(document.images[0].id == "0")
    }

    @Test func unknownFieldsAreSkippedAnywhere() throws {
        let document = try decodeFeed(
            """
            {"version": 2, "meta": {"a": [1, 2.5e-3, {"b": null}], "c": "\\u00e9\\ud83d\\ude00"},
             "sections": [{"id": "s", "extra": [[]], "title": "S"}],
             "images": [{"id": "a", "exif": {"iso": 100, "tags": ["x", true, false]}, "width": 5, "height": 6}],
             "trailer": []}
            """)
        #expect(document.images == [FeedImage(id: "a", width: 5, height: 6)])
        #expect(document.declaredSections == [FeedSection(id: "s", title: "S")])
    }

    @Test func fieldsMayComeInAnyOrder() throws {
        let document = try decodeFeed(
            """
            {"images": [{"height": 6, "section": "b", "width": 5, "id": "a"}],
             "sections": [{"title": "A", "id": "a"}, {"id": "b"}], "feed": "f"}
            """)
        #expect(document.feed == "f")
        #expect(document.sectionNames == ["a", "b"])
        #expect(document.images[0].section == 1)
    }

    @Test func sectionOrderIsDeclaredFirstThenFirstUse() throws {
        // Given images using sections "z", "b", "y" and a declared list "b", "c"
        let document = try decodeFeed(
            """
            {"images": [{"id": "1", "width": 1, "height": 1, "section": "z"},
                        {"id": "2", "width": 1, "height": 1, "section": "b"},
                        {"id": "3", "width": 1, "height": 1},
                        {"id": "4", "width": 1, "height": 1, "section": "y"},
                        {"id": "5", "width": 1, "height": 1, "section": "z"}],
             "sections": [{"id": "b", "title": "Bee"}, {"id": "c"}]}
            """)
        // Then the declared ones come first, in their order, then the others by first image
        #expect(document.sectionNames == ["b", "c", "z", "y"])
        #expect(document.images.map(\.section) == [2, 0, nil, 3, 2])
        #expect(document.declaredSections == [FeedSection(id: "b", title: "Bee"), FeedSection(id: "c")])
    }

    @Test func unicodeIdsAreExactCodePointSequences() throws {
        // Given ids with emoji, precomposed and decomposed "é", right-to-left text, escapes
        let document = try decodeFeed(
            """
            {"images": [{"id": "📷🌊", "width": 1, "height": 1},
                        {"id": "caf\\u00e9", "width": 1, "height": 1},
                        {"id": "cafe\\u0301", "width": 1, "height": 1},
                        {"id": "שלום", "width": 1, "height": 1},
                        {"id": "\\ud83d\\ude00", "width": 1, "height": 1},
                        {"id": "a\\/b\\\\c\\"d", "width": 1, "height": 1}]}
            """)
        // Then they are distinct (no normalization) and decoded exactly
        #expect(
            document.images.map { Array($0.id.unicodeScalars.map(\.value)) } == [
                [0x1F4F7, 0x1F30A], [0x63, 0x61, 0x66, 0xE9], [0x63, 0x61, 0x66, 0x65, 0x301],
                [0x5E9, 0x5DC, 0x5D5, 0x5DD], [0x1F600], [0x61, 0x2F, 0x62, 0x5C, 0x63, 0x22, 0x64],
            ])
    }

    @Test func sectionNamesAreExactToo() throws {
        let document = try decodeFeed(
            """
            {"images": [{"id": "1", "width": 1, "height": 1, "section": "caf\\u00e9"},
                        {"id": "2", "width": 1, "height": 1, "section": "cafe\\u0301"},
                        {"id": "3", "width": 1, "height": 1, "section": "caf\\u00e9"}]}
            """)
        #expect(document.sectionNames.count == 2)
        #expect(document.images.map(\.section) == [0, 1, 0])
    }

    @Test func titlesAndUrlsMayHoldEscapesAndControlCharacters() throws {
        let document = try decodeFeed(
            #"{"images": [{"id": "a", "width": 1, "height": 1, "url": "", "title": "Line\nbreak\ttab \u001f é"}]}"#)
        #expect(document.images[0].url == "")
        #expect(document.images[0].title == "Line\nbreak\ttab \u{1F} é")
    }

    @Test func byteOrderMarkAndWhitespaceAreAccepted() throws {
        let document = try decodeFeed("\u{FEFF} \r\n\t{\"images\":[ ]} \n\n")
        #expect(document.images.isEmpty)
    }

    @Test func limitsAreInclusive() throws {
        let id = String(repeating: "é", count: 128)  // exactly 256 bytes
        let document = try decodeFeed(
            """
            {"feed": "\(String(repeating: "f", count: 128))", "images": [
              {"id": "\(id)", "width": 1000000, "height": 1, "url": "\(String(repeating: "u", count: 4096))",
               "title": "\(String(repeating: "t", count: 1024))", "section": "\(String(repeating: "s", count: 256))"}]}
            """)
        #expect(document.images[0].id == id)
        #expect(document.images[0].width == 1_000_000)
    }

    @Test func customLimitsApply() {
        let limits = SyncLimits(idBytes: 3, imagesPerFeed: 1)
        #expect(
            feedError(feed(image: #"{"id": "abcd", "width": 1, "height": 1}"#), limits: limits)
                == "feed.json: images[0].id: expected at most 3 bytes, found a string of 4 bytes.")
        #expect(
            feedError(
                #"{"images": [{"id": "a", "width": 1, "height": 1}, {"id": "b", "width": 1, "height": 1}]}"#,
                limits: limits)
                == "feed.json: images: expected at most 1 images, found more.")
        #expect(
            feedError(#"{"images": [], "x": [[1]]}"#, limits: SyncLimits(nestingDepth: 2))
                == "feed.json: line 1, column 22: expected at most 2 levels of nested arrays and objects, found a deeper one."
        )
        #expect(
            feedError(#"{"images": []}"#, limits: SyncLimits(fileBytes: 10))
                == "feed.json: expected a file of at most 10 bytes, found 14 bytes.")
    }

    @Test func formatFollowsTheExtension() {
        #expect(FeedFormat(path: "a/feed.ndjson") == .ndjson)
        #expect(FeedFormat(path: "feed.JSONL") == .ndjson)
        #expect(FeedFormat(path: "feed.json") == .json)
        #expect(FeedFormat(path: "feed") == .json)
        #expect(FeedFormat(path: "-") == .json)
    }

    @Test func exactStringComparesCodePoints() {
        #expect(ExactString("caf\u{E9}") != ExactString("cafe\u{301}"))
        #expect("caf\u{E9}" == "cafe\u{301}")  // what Swift's == does, and why ExactString exists
        #expect(Set([ExactString("caf\u{E9}"), ExactString("cafe\u{301}"), ExactString("caf\u{E9}")]).count == 2)
    }
}
