import Testing

@testable import WaterfallSync

@Suite("Decoding NDJSON feeds")
struct NDJSONTests {
    @Test func oneImagePerLineWithBlankLines() throws {
        // Given lines with blank, whitespace-only and CRLF lines, and no final line break
        let text =
            "\n{\"id\": \"a\", \"width\": 1, \"height\": 2, \"section\": \"s\"}\r\n  \t\n\n{\"id\": 7, \"width\": 3, \"height\": 4, \"span\": \"full\"}  "
        // When it is decoded
        let document = try decodeFeed(text, format: .ndjson)
        // Then every line is an image, with no feed name or declared sections
        #expect(document.feed == nil)
        #expect(document.declaredSections.isEmpty)
        #expect(document.sectionNames == ["s"])
        #expect(
            document.images == [
                FeedImage(id: "a", width: 1, height: 2, section: 0),
                FeedImage(id: "7", width: 3, height: 4, span: .full),
            ])
    }

    @Test func errorsNameTheLine() {
        let lines = (1...56).map { #"{"id": "i\#($0)", "width": 10, "height": 10}"# }
        let text = lines.joined(separator: "\n") + "\n\n" + #"{"id": "x", "width": -5, "height": 10}"# + "\n"
        #expect(
            feedError(text, format: .ndjson)
                == "feed.ndjson: line 58: width: expected an integer from 1 to 1000000, found -5.")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n{\"id\": \"b\", \"width\": 1}\n", format: .ndjson)
                == "feed.ndjson: line 2: expected a \"height\" field, found none.")
    }

    @Test func duplicateIdsNameBothLines() {
        let text = """
            {"id": "a", "width": 1, "height": 1}

            {"id": "b", "width": 1, "height": 1}
            {"id": "a", "width": 1, "height": 1}
            """
        #expect(feedError(text, format: .ndjson) == "feed.ndjson: line 4: id \"a\" is a duplicate of the id on line 1.")
    }

    @Test func eachLineMustHoldExactlyOneImageObject() {
        #expect(
            feedError("{\"id\": \"a\",\n\"width\": 1, \"height\": 1}", format: .ndjson)
                == "feed.ndjson: line 1, column 12: expected '\"' to start a field name, found end of line.")
        #expect(
            feedError(#"{"id": "a", "width": 1, "height": 1} {"id": "b", "width": 1, "height": 1}"#, format: .ndjson)
                == "feed.ndjson: line 1, column 38: expected the end of the line after the image object, found '{'.")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n[1]\n", format: .ndjson)
                == "feed.ndjson: line 2: expected an image object, found an array.")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n\"x\"\n", format: .ndjson)
                == "feed.ndjson: line 2: expected an image object, found \"x\".")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\nnope\n", format: .ndjson)
                == "feed.ndjson: line 2, column 2: expected 'null', found 'o'.")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n%\n", format: .ndjson)
                == "feed.ndjson: line 2, column 1: expected an image object, found '%'.")
        #expect(
            feedError(#"{"images": [{"id": "a", "width": 1, "height": 1}]}"#, format: .ndjson)
                == "feed.ndjson: line 1: expected an \"id\" field, found none.")
    }

    @Test func truncatedLastLine() {
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n{\"id\": \"b\", \"wid", format: .ndjson)
                == "feed.ndjson: line 2, column 17: expected '\"' to end the string, found end of file.")
        #expect(
            feedError("{\"id\": \"a\", \"width\": 1, \"height\": 1}\n{\"id\": \"b\", \"width\": 1", format: .ndjson)
                == "feed.ndjson: line 2, column 23: expected ',' or '}', found end of file.")
    }

    @Test func anNDJSONFileNeedsAtLeastOneImage() {
        #expect(
            feedError("", format: .ndjson) == "feed.ndjson: expected at least one image object, found an empty file.")
        #expect(
            feedError("\n \n\r\n", format: .ndjson)
                == "feed.ndjson: expected at least one image object, found only blank lines.")
    }

    @Test func deepNestingInALine() {
        #expect(
            feedError(#"{"id": "a", "x": "# + String(repeating: "[", count: 200_000), format: .ndjson)
                == "feed.ndjson: line 1, column 81: expected at most 64 levels of nested arrays and objects, found a deeper one."
        )
    }
}
