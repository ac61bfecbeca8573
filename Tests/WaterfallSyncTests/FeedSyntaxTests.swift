import Testing

@testable import WaterfallSync

@Suite("Rejecting malformed and hostile feed files")
struct FeedSyntaxTests {
    @Test func emptyAndNonObjectFiles() {
        #expect(feedError("") == "feed.json: expected a JSON object at the top level, found an empty file.")
        #expect(
            feedError("  \n ")
                == "feed.json: line 2, column 2: expected a JSON object at the top level, found end of file.")
        #expect(feedError("[]") == "feed.json: expected a JSON object at the top level, found an array.")
        #expect(
            feedError(#"[{"id": "a", "width": 1, "height": 1}]"#)
                == "feed.json: expected a JSON object at the top level, found an array.")
        #expect(feedError(#""images""#) == "feed.json: expected a JSON object at the top level, found \"images\".")
        #expect(feedError("42") == "feed.json: expected a JSON object at the top level, found 42.")
        #expect(feedError("null") == "feed.json: expected a JSON object at the top level, found null.")
        #expect(
            feedError("hello world")
                == "feed.json: line 1, column 1: expected a JSON object at the top level, found 'h'.")
        #expect(
            feedError("<?xml version=\"1.0\"?><feed/>")
                == "feed.json: line 1, column 1: expected a JSON object at the top level, found '<'.")
        #expect(
            feedError("images: []")
                == "feed.json: line 1, column 1: expected a JSON object at the top level, found 'i'.")
    }

    @Test func truncatedFiles() {
        let whole = """
            {"images": [
              {"id": "a", "width": 10, "height": 20, "title": "x\\u00e9"}
            ]}
            """
        // Every proper prefix of a valid feed is rejected, none crashes.
        let bytes = Array(whole.utf8)
        for count in 1..<bytes.count {
            #expect(feedError(Array(bytes[0..<count])) != nil, "prefix of \(count) bytes")
        }
        #expect(
            feedError(String(whole.dropLast()))
                == "feed.json: line 3, column 2: expected ',' or '}', found end of file.")
        #expect(
            feedError(#"{"images": [{"id": "a", "wid"#)
                == "feed.json: line 1, column 29: expected '\"' to end the string, found end of file.")
        #expect(
            feedError(#"{"images": [{"id": "a", "width": 12"#)
                == "feed.json: line 1, column 36: expected ',' or '}', found end of file.")
        #expect(
            feedError(#"{"images": [{"id": "a", "width": 12, "height": 3}"#)
                == "feed.json: line 1, column 50: expected ',' or ']', found end of file.")
        #expect(
            feedError(#"{"images": [{"id": "a\u00"#)
                == "feed.json: line 1, column 26: expected four hex digits after \\u, found end of file.")
    }

    @Test func punctuationErrorsNameLineAndColumn() {
        #expect(
            feedError("{\n  \"images\": [\n    {\"id\": \"a\" \"width\": 1}\n  ]\n}")
                == "feed.json: line 3, column 16: expected ',' or '}', found '\"'.")
        #expect(
            feedError(#"{"images" []}"#)
                == "feed.json: line 1, column 11: expected ':' after the field name, found '['.")
        #expect(
            feedError(#"{"images": [],}"#)
                == "feed.json: line 1, column 15: expected '\"' to start a field name, found '}'.")
        #expect(feedError(#"{"images": [1,]}"#) == "feed.json: images[0]: expected an image object, found 1.")
        #expect(
            feedError(#"{"images": [{"id": "a", "width": 1, "height": 1},]}"#)
                == "feed.json: line 1, column 50: expected an image object, found ']'.")
        #expect(
            feedError(#"{images: []}"#)
                == "feed.json: line 1, column 2: expected '\"' to start a field name or '}', found 'i'.")
        #expect(
            feedError(#"{'images': []}"#)
                == "feed.json: line 1, column 2: expected '\"' to start a field name or '}', found '''.")
        #expect(
            feedError("{\"images\": [], \"x\": 'single'}")
                == "feed.json: line 1, column 21: expected a JSON value, found '''.")
        // Columns count characters, not bytes.
        #expect(
            feedError("{\"feed\": \"été 🌊\" \"images\": []}")
                == "feed.json: line 1, column 18: expected ',' or '}', found '\"'.")
    }

    @Test func trailingGarbageAfterTheTopLevelObject() {
        #expect(
            feedError(#"{"images": []} x"#)
                == "feed.json: line 1, column 16: expected the end of the file after the top-level object, found 'x'.")
        #expect(
            feedError("{\"images\": []}\n{\"images\": []}")
                == "feed.json: line 2, column 1: expected the end of the file after the top-level object, found '{'.")
        #expect(
            feedError("{\"images\": []}\u{0}")
                == "feed.json: line 1, column 15: expected the end of the file after the top-level object, found control character U+0000."
        )
    }

    @Test func stringSyntax() {
        #expect(
            imageError("{\"id\": \"a\tb\", \"width\": 1, \"height\": 1}")
                == "feed.json: line 1, column 22: expected a string character, found an unescaped control character U+0009."
        )
        #expect(
            imageError("{\"id\": \"a\nb\", \"width\": 1, \"height\": 1}")
                == "feed.json: line 1, column 22: expected '\"' to end the string, found end of line.")
        #expect(
            imageError(#"{"id": "a\qb", "width": 1, "height": 1}"#)
                == #"feed.json: line 1, column 23: expected one of \" \\ \/ \b \f \n \r \t \u after '\', found 'q'."#)
        #expect(
            imageError(#"{"id": "\u12G4", "width": 1, "height": 1}"#)
                == "feed.json: line 1, column 25: expected four hex digits after \\u, found 'G'.")
        #expect(
            imageError(#"{"id": "\ud83d", "width": 1, "height": 1}"#)
                == "feed.json: line 1, column 27: expected a \\u escape for a low surrogate after \\uD83D, found '\"'.")
        #expect(
            imageError(#"{"id": "\ud83d\u0041", "width": 1, "height": 1}"#)
                == "feed.json: line 1, column 27: expected a low surrogate (\\uDC00 to \\uDFFF) after \\uD83D, found \\u0041."
        )
        #expect(
            imageError(#"{"id": "\ude00x", "width": 1, "height": 1}"#)
                == "feed.json: line 1, column 21: expected a high surrogate (\\uD800 to \\uDBFF) before a low surrogate, found \\uDE00."
        )
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        let prefix = Array(#"{"images": [{"id": ""#.utf8)  // 20 bytes
        let suffix = Array(#"", "width": 1, "height": 1}]}"#.utf8)
        let cases: [[UInt8]] = [
            [0xFF], [0x80], [0xC0, 0xAF], [0xC3], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80],
            [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xE2, 0x82],
        ]
        for bad in cases {
            #expect(
                feedError(prefix + Array("ok".utf8) + bad + suffix) == "feed.json: is not valid UTF-8 at byte 22.",
                "bytes \(bad)")
        }
        // In skipped values and outside strings too.
        #expect(
            feedError(Array(#"{"x": "a"#.utf8) + [0xFE] + Array(#"", "images": []}"#.utf8))
                == "feed.json: is not valid UTF-8 at byte 8.")
        #expect(
            feedError(Array(#"{"images": []}"#.utf8) + [0xC3])
                == "feed.json: is not valid UTF-8 at byte 14.")
        #expect(
            feedError([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == "feed.json: is not valid UTF-8 at byte 0.")
        // Valid non-ASCII outside strings is named by code point.
        #expect(
            feedError("{\"images\": [], é}")
                == "feed.json: line 1, column 16: expected '\"' to start a field name, found the character U+00E9.")
    }

    @Test func deepNestingIsRejectedWithoutRecursion() {
        let depth = 200_000
        // At the top level: not an object.
        #expect(
            feedError(String(repeating: "[", count: depth))
                == "feed.json: expected a JSON object at the top level, found an array.")
        // In an unknown field, arrays and objects.
        #expect(
            feedError(#"{"x": "# + String(repeating: "[", count: depth))
                == "feed.json: line 1, column 70: expected at most 64 levels of nested arrays and objects, found a deeper one."
        )
        #expect(
            feedError(#"{"images": [], "x": "# + String(repeating: #"{"a": "#, count: depth))
                == "feed.json: line 1, column 399: expected at most 64 levels of nested arrays and objects, found a deeper one."
        )
        // Inside an image.
        #expect(
            imageError(#"{"id": "a", "meta": "# + String(repeating: "[", count: depth))
                == "feed.json: line 1, column 94: expected at most 64 levels of nested arrays and objects, found a deeper one."
        )
        // 64 levels in all is fine.
        let allowed =
            #"{"images": [], "x": "# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"
        #expect(feedError(allowed) == nil)
    }

    @Test func hugeGarbageIsRejectedAtOnce() {
        var garbage = [UInt8](repeating: UInt8(ascii: "A"), count: 50 << 20)
        #expect(
            feedError(garbage) == "feed.json: line 1, column 1: expected a JSON object at the top level, found 'A'.")
        garbage[0] = UInt8(ascii: "{")
        #expect(
            feedError(garbage) == "feed.json: line 1, column 2: expected '\"' to start a field name or '}', found 'A'.")
        var zeros = [UInt8](repeating: 0, count: 50 << 20)
        #expect(
            feedError(zeros)
                == "feed.json: line 1, column 1: expected a JSON object at the top level, found control character U+0000."
        )
        zeros[0] = UInt8(ascii: "\"")
        #expect(
            feedError(zeros)
                == "feed.json: line 1, column 2: expected a string character, found an unescaped control character U+0000."
        )
    }

    @Test func aHugeUnterminatedStringIsRejected() {
        let bytes = Array(#"{"images": [], "x": ""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 20 << 20)
        #expect(
            feedError(bytes)
                == "feed.json: line 1, column 20971542: expected '\"' to end the string, found end of file.")
    }
}
