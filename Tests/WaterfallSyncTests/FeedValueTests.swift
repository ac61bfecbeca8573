import Testing

@testable import WaterfallSync

@Suite("Rejecting bad values in feeds")
struct FeedValueTests {
    static let sizeCases: [(String, String)] = [
        ("0", "0"), ("-5", "-5"), ("1000001", "1000001"), ("1200.0", "1200.0"), ("1.2e3", "1.2e3"),
        ("12E2", "12E2"), ("1e30", "1e30"), ("99999999999999999999", "99999999999999999999"),
        ("-99999999999999999999", "-99999999999999999999"), ("\"1200\"", "\"1200\""), ("\"\"", "an empty string"),
        ("true", "true"), ("false", "false"), ("null", "null"), ("{\"v\": 1}", "an object"), ("[1200]", "an array"),
        (
            "123456789012345678901234567890123456789012345678901234567890",
            "1234567890123456789012345678901234567890…"
        ),
    ]

    @Test(arguments: sizeCases)
    func badWidthsAreRejected(value: String, shown: String) {
        #expect(
            imageError(#"{"id": "a", "width": \#(value), "height": 10}"#)
                == "feed.json: images[0].width: expected an integer from 1 to 1000000, found \(shown).")
    }

    @Test(arguments: sizeCases)
    func badHeightsAreRejected(value: String, shown: String) {
        #expect(
            imageError(#"{"id": "a", "width": 10, "height": \#(value)}"#)
                == "feed.json: images[0].height: expected an integer from 1 to 1000000, found \(shown).")
    }

    @Test func theFailingImageIsNamedByItsIndex() {
        let images =
            (0..<1235).map { #"{"id": "i\#($0)", "width": 10, "height": 10}"# }
            + [#"{"id": "x", "width": -5, "height": 10}"#]
        #expect(
            feedError(#"{"images": [\#(images.joined(separator: ","))]}"#)
                == "feed.json: images[1235].width: expected an integer from 1 to 1000000, found -5.")
    }

    @Test func nonNumericSizesThatAreNotJSONAreSyntaxErrors() {
        #expect(
            imageError(#"{"id": "a", "width": abc, "height": 10}"#)
                == "feed.json: line 1, column 34: expected an integer from 1 to 1000000, found 'a'.")
        #expect(
            imageError(#"{"id": "a", "width": NaN, "height": 10}"#)
                == "feed.json: line 1, column 34: expected an integer from 1 to 1000000, found 'N'.")
        #expect(
            imageError(#"{"id": "a", "width": +5, "height": 10}"#)
                == "feed.json: line 1, column 34: expected an integer from 1 to 1000000, found '+'.")
        #expect(
            imageError(#"{"id": "a", "width": 012, "height": 10}"#)
                == "feed.json: line 1, column 35: expected '.', 'e' or the end of the number after a leading 0, found '1'."
        )
        #expect(
            imageError(#"{"id": "a", "width": 1., "height": 10}"#)
                == "feed.json: line 1, column 36: expected a digit after '.', found ','.")
        #expect(
            imageError(#"{"id": "a", "width": 1e, "height": 10}"#)
                == "feed.json: line 1, column 36: expected a digit in the exponent, found ','.")
        #expect(
            imageError(#"{"id": "a", "width": -, "height": 10}"#)
                == "feed.json: line 1, column 35: expected a digit after '-', found ','.")
        #expect(
            imageError(#"{"id": "a", "width": tru, "height": 10}"#)
                == "feed.json: line 1, column 37: expected 'true', found ','.")
    }

    @Test func missingRequiredFields() {
        #expect(
            imageError(#"{"width": 1, "height": 1}"#) == "feed.json: images[0]: expected an \"id\" field, found none.")
        #expect(
            imageError(#"{"id": "a", "height": 1}"#) == "feed.json: images[0]: expected a \"width\" field, found none.")
        #expect(
            imageError(#"{"id": "a", "width": 1}"#) == "feed.json: images[0]: expected a \"height\" field, found none.")
        #expect(
            feedError(#"{"feed": "x"}"#)
                == "feed.json: expected an \"images\" field in the top-level object, found none.")
        #expect(
            feedError(#"{"sections": [{"title": "x"}], "images": []}"#)
                == "feed.json: sections[0]: expected an \"id\" field, found none.")
    }

    @Test func repeatedFieldsAreRejected() {
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "width": 2}"#)
                == "feed.json: images[0]: expected one \"width\" field, found two.")
        #expect(
            feedError(#"{"images": [], "images": []}"#)
                == "feed.json: expected one \"images\" field in the top-level object, found two.")
    }

    static let idCases: [(String, String)] = [
        ("\"\"", "expected a non-empty string or an integer, found an empty string"),
        ("true", "expected a non-empty string or an integer, found true"),
        ("null", "expected a non-empty string or an integer, found null"),
        ("{}", "expected a non-empty string or an integer, found an object"),
        ("[\"a\"]", "expected a non-empty string or an integer, found an array"),
        ("1.5", "expected a non-empty string or an integer, found 1.5"),
        ("1e3", "expected a non-empty string or an integer, found 1e3"),
        (#""a\u0000b""#, #"expected a string without control characters, found "a\u0000b""#),
        (#""tab\there""#, #"expected a string without control characters, found "tab\u0009here""#),
        (#""del\u007F""#, #"expected a string without control characters, found "del\u007F""#),
        ("\"del\u{7F}raw\"", #"expected a string without control characters, found "del\u007Fraw""#),
    ]

    @Test(arguments: idCases)
    func badIdsAreRejected(value: String, problem: String) {
        #expect(imageError(#"{"id": \#(value), "width": 1, "height": 1}"#) == "feed.json: images[0].id: \(problem).")
    }

    @Test func aMegabyteIdIsRejectedByItsLength() {
        let id = String(repeating: "x", count: 1 << 20)
        #expect(
            imageError(#"{"id": "\#(id)", "width": 1, "height": 1}"#)
                == "feed.json: images[0].id: expected at most 256 bytes, found a string of 1048576 bytes.")
        let digits = String(repeating: "7", count: 300)
        #expect(
            imageError(#"{"id": \#(digits), "width": 1, "height": 1}"#)
                == "feed.json: images[0].id: expected at most 256 bytes, found an integer of 300 characters.")
    }

    @Test func duplicateIdsNameBothPlaces() {
        #expect(
            feedError(
                """
                {"images": [{"id": "a0", "width": 1, "height": 1}, {"id": "a1", "width": 1, "height": 1},
                            {"id": "a1", "width": 1, "height": 1}, {"id": "a0", "width": 1, "height": 1}]}
                """) == "feed.json: images[2].id \"a1\" is a duplicate of images[1].id.")
        // An integer id and the same digits as a string are the same id.
        #expect(
            feedError(
                """
                {"images": [{"id": 42, "width": 1, "height": 1}, {"id": "42", "width": 1, "height": 1}]}
                """) == "feed.json: images[1].id \"42\" is a duplicate of images[0].id.")
        // An escaped and a raw spelling of the same code points are the same id.
        #expect(
            feedError(
                """
                {"images": [{"id": "caf\\u00e9", "width": 1, "height": 1}, {"id": "café", "width": 1, "height": 1}]}
                """) == "feed.json: images[1].id \"café\" is a duplicate of images[0].id.")
    }

    @Test func duplicateSectionsAreRejected() {
        #expect(
            feedError(#"{"sections": [{"id": "s"}, {"id": "t"}, {"id": "s"}], "images": []}"#)
                == "feed.json: sections[2].id \"s\" is a duplicate of sections[0].id.")
    }

    @Test func badUrlsTitlesAndSections() {
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "url": 5}"#)
                == "feed.json: images[0].url: expected a string or null, found 5.")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "title": false}"#)
                == "feed.json: images[0].title: expected a string or null, found false.")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "title": "a\u0000"}"#)
                == #"feed.json: images[0].title: expected a string without NUL characters, found "a\u0000"."#)
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "url": "\#(String(repeating: "u", count: 5000))"}"#)
                == "feed.json: images[0].url: expected at most 4096 bytes, found a string of 5000 bytes.")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "section": ""}"#)
                == "feed.json: images[0].section: expected a non-empty string, an integer or null, found an empty string."
        )
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "section": ["x"]}"#)
                == "feed.json: images[0].section: expected a non-empty string, an integer or null, found an array.")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "section": "a\nb"}"#)
                == #"feed.json: images[0].section: expected a string without control characters, found "a\u000Ab"."#)
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "span": "wide"}"#)
                == "feed.json: images[0].span: expected \"full\", \"normal\" or null, found \"wide\".")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "span": 1}"#)
                == "feed.json: images[0].span: expected \"full\", \"normal\" or null, found 1.")
    }

    @Test func badTopLevelFields() {
        #expect(
            feedError(#"{"feed": "", "images": []}"#)
                == "feed.json: feed: expected a non-empty string, found an empty string.")
        #expect(feedError(#"{"feed": 3, "images": []}"#) == "feed.json: feed: expected a non-empty string, found 3.")
        #expect(
            feedError(#"{"feed": "\#(String(repeating: "n", count: 129))", "images": []}"#)
                == "feed.json: feed: expected at most 128 bytes, found a string of 129 bytes.")
        #expect(
            feedError(#"{"images": {}}"#) == "feed.json: images: expected an array of image objects, found an object.")
        #expect(feedError(#"{"images": null}"#) == "feed.json: images: expected an array of image objects, found null.")
        #expect(feedError(#"{"images": ["a"]}"#) == "feed.json: images[0]: expected an image object, found \"a\".")
        #expect(
            feedError(#"{"images": [], "sections": {}}"#)
                == "feed.json: sections: expected an array of section objects, found an object.")
        #expect(
            feedError(#"{"images": [], "sections": [3]}"#)
                == "feed.json: sections[0]: expected a section object, found 3.")
        #expect(
            feedError(#"{"images": [], "sections": [{"id": "s", "title": 3}]}"#)
                == "feed.json: sections[0].title: expected a string or null, found 3.")
    }

    @Test func longFoundStringsAreShortenedAndEscaped() {
        let long = String(repeating: "ab", count: 100)
        #expect(
            imageError(#"{"id": "a", "width": "\#(long)", "height": 1}"#)
                == "feed.json: images[0].width: expected an integer from 1 to 1000000, found \"\(String(repeating: "ab", count: 20))…\"."
        )
        #expect(
            imageError(#"{"id": "a", "width": "\u202Eevil\u001b[31m", "height": 1}"#)
                == #"feed.json: images[0].width: expected an integer from 1 to 1000000, found "\u202Eevil\u001B[31m"."#)
    }
}
