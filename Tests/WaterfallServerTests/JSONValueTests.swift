import Testing

@testable import WaterfallServer

/// The order-keeping JSON that `openapi.json` is read and written with.
@Suite struct JSONValueTests {
    @Test func aDocumentInThePrintedFormReadsAndPrintsBackByteForByte() throws {
        // Given a document as the printer writes it: keys out of alphabetical order, escapes,
        // numbers as written, empty containers, text beyond ASCII
        let text = """
            {
              "zeta": "a \\"quoted\\" word, a back\\\\slash,\\na line feed and a tab\\t",
              "alpha": [
                1,
                0.25,
                -3e-7,
                true,
                false,
                null
              ],
              "empty": {},
              "none": [],
              "dash": "— ✓",
              "control": "\\u0001"
            }

            """
        // When it is read and printed again
        let value = try JSONValue(parsing: text)
        // Then the bytes are the same, and the members keep their order
        #expect(value.prettyPrinted == text)
        #expect(value.members?.map(\.key) == ["zeta", "alpha", "empty", "none", "dash", "control"])
        #expect(value["zeta"]?.text == "a \"quoted\" word, a back\\slash,\na line feed and a tab\t")
    }

    @Test func escapesOfAnyFormReadAsTheirCharacters() throws {
        let value = try JSONValue(parsing: #"{"a": "\/\u00e9\ud83d\ude00"}"#)
        #expect(value["a"]?.text == "/é😀")
    }

    @Test func badTextIsRefusedWithItsLine() {
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: "{\n  \"a\": 1,\n  \"a\": 2\n}") }
        do {
            _ = try JSONValue(parsing: "{\n  \"a\": 1,\n  \"b\" 2\n}")
            Issue.record("a missing colon was read")
        } catch {
            #expect(error.line == 3 && error.message.contains("colon"))
        }
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: "[1, 2] 3") }
        #expect(throws: JSONParsingError.self) { try JSONValue(parsing: "[+1]") }
    }
}
