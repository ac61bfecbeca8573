import Testing

@testable import WaterfallSync

@Suite("Decoding reorder files")
struct ReorderDecoderTests {
    @Test func movesAndRemovals() throws {
        // Given the reorder file of DESIGN section 4
        let document = try decodeReorder(
            """
            {"feed": "travel", "moves": [{"id": "a", "before": "b"}, {"id": "c", "after": "d"},
              {"id": "e", "to": 0}, {"id": 5, "after": 6, "note": "x"}], "remove": ["x", 12]}
            """)
        // Then the moves keep their order and their places in the file
        #expect(
            document
                == ReorderDocument(
                    feed: "travel",
                    operations: .edits(
                        moves: [
                            ReorderMove(id: "a", target: .before("b"), path: "moves[0]"),
                            ReorderMove(id: "c", target: .after("d"), path: "moves[1]"),
                            ReorderMove(id: "e", target: .index(0), path: "moves[2]"),
                            ReorderMove(id: "5", target: .after("6"), path: "moves[3]"),
                        ],
                        removals: ["x", "12"])))
    }

    @Test func movesOrRemovalsAlone() throws {
        #expect(
            try decodeReorder(#"{"moves": [{"id": "a", "to": 3}]}"#)
                == ReorderDocument(
                    operations: .edits(moves: [ReorderMove(id: "a", target: .index(3), path: "moves[0]")], removals: [])
                ))
        #expect(
            try decodeReorder(#"{"remove": ["a"], "order": null}"#)
                == ReorderDocument(operations: .edits(moves: [], removals: ["a"])))
        #expect(try decodeReorder(#"{"moves": []}"#) == ReorderDocument(operations: .edits(moves: [], removals: [])))
    }

    @Test func order() throws {
        #expect(
            try decodeReorder(#"{"feed": "f", "order": ["id3", "id1", 2], "v": {"x": []}}"#)
                == ReorderDocument(feed: "f", operations: .order(["id3", "id1", "2"])))
    }

    @Test func movingAnImageNextToItselfIsRejected() {
        #expect(
            reorderError(#"{"moves": [{"id": "z", "to": 1}, {"id": "y", "after": "z"}, {"id": "a", "before": "a"}]}"#)
                == "reorder.json: moves[2]: cannot move \"a\" before itself.")
        #expect(
            reorderError(#"{"moves": [{"after": 7, "id": 7}]}"#)
                == "reorder.json: moves[0]: cannot move \"7\" after itself.")
        // Canonically equivalent but different code points are different images.
        #expect(reorderError(#"{"moves": [{"id": "caf\u00e9", "before": "cafe\u0301"}]}"#) == nil)
    }

    @Test func formsCannotBeMixedOrLeftOut() {
        #expect(
            reorderError(#"{"order": ["a"], "moves": []}"#)
                == "reorder.json: expected either \"order\" or \"moves\" and \"remove\", found both \"order\" and \"moves\"."
        )
        #expect(
            reorderError(#"{"remove": ["b"], "order": ["a"]}"#)
                == "reorder.json: expected either \"order\" or \"moves\" and \"remove\", found both \"order\" and \"remove\"."
        )
        #expect(
            reorderError(#"{"feed": "f"}"#)
                == "reorder.json: expected an \"order\", \"moves\" or \"remove\" field in the top-level object, found none."
        )
        #expect(
            reorderError(#"{"order": []}"#)
                == "reorder.json: order: expected a non-empty array of ids, found an empty array.")
    }

    @Test func badIdLists() {
        #expect(
            reorderError(#"{"order": ["a", "b", "a"]}"#) == "reorder.json: order[2] \"a\" is a duplicate of order[0].")
        #expect(
            reorderError(#"{"remove": ["x", "y", "y"]}"#)
                == "reorder.json: remove[2] \"y\" is a duplicate of remove[1].")
        #expect(reorderError(#"{"order": "a"}"#) == "reorder.json: order: expected an array of ids, found \"a\".")
        #expect(
            reorderError(#"{"order": ["a", ""]}"#)
                == "reorder.json: order[1]: expected a non-empty string or an integer, found an empty string.")
        #expect(
            reorderError(#"{"remove": [null]}"#)
                == "reorder.json: remove[0]: expected a non-empty string or an integer, found null.")
        #expect(
            reorderError(#"{"remove": [1.5]}"#)
                == "reorder.json: remove[0]: expected a non-empty string or an integer, found 1.5.")
        #expect(
            reorderError(#"{"order": ["a\u0001"]}"#)
                == #"reorder.json: order[0]: expected a string without control characters, found "a\u0001"."#)
    }

    @Test func badMoves() {
        #expect(
            reorderError(#"{"moves": [{"before": "b"}]}"#)
                == "reorder.json: moves[0]: expected an \"id\" field, found none.")
        #expect(
            reorderError(#"{"moves": [{"id": "a"}]}"#)
                == "reorder.json: moves[0]: expected one of \"before\", \"after\" or \"to\", found none.")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "before": "b", "to": 1}]}"#)
                == "reorder.json: moves[0]: expected exactly one of \"before\", \"after\" or \"to\", found both \"before\" and \"to\"."
        )
        #expect(
            reorderError(#"{"moves": [{"id": "a", "after": "b", "after": "c"}]}"#)
                == "reorder.json: moves[0]: expected exactly one of \"before\", \"after\" or \"to\", found two \"after\" fields."
        )
        #expect(
            reorderError(#"{"moves": [{"id": "a", "id": "b", "to": 1}]}"#)
                == "reorder.json: moves[0]: expected one \"id\" field, found two.")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "to": -1}]}"#)
                == "reorder.json: moves[0].to: expected a non-negative integer, found -1.")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "to": 1.0}]}"#)
                == "reorder.json: moves[0].to: expected a non-negative integer, found 1.0.")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "to": "3"}]}"#)
                == "reorder.json: moves[0].to: expected a non-negative integer, found \"3\".")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "to": 99999999999999999999}]}"#)
                == "reorder.json: moves[0].to: expected a non-negative integer, found 99999999999999999999.")
        #expect(
            reorderError(#"{"moves": [{"id": "a", "before": null}]}"#)
                == "reorder.json: moves[0].before: expected a non-empty string or an integer, found null.")
        #expect(reorderError(#"{"moves": ["a"]}"#) == "reorder.json: moves[0]: expected a move object, found \"a\".")
        #expect(
            reorderError(#"{"moves": {}}"#)
                == "reorder.json: moves: expected an array of move objects, found an object.")
    }

    @Test func badFiles() {
        #expect(reorderError("") == "reorder.json: expected a JSON object at the top level, found an empty file.")
        #expect(
            reorderError(#"["a", "b"]"#) == "reorder.json: expected a JSON object at the top level, found an array.")
        #expect(
            reorderError(#"{"order": ["a"]} ]"#)
                == "reorder.json: line 1, column 18: expected the end of the file after the top-level object, found ']'."
        )
        #expect(
            reorderError(#"{"order": ["a""#)
                == "reorder.json: line 1, column 15: expected ',' or ']', found end of file.")
        #expect(
            reorderError(#"{"feed": "", "order": ["a"]}"#)
                == "reorder.json: feed: expected a non-empty string, found an empty string.")
        #expect(
            reorderError(#"{"order": ["a"], "x": "# + String(repeating: "[", count: 200_000))
                == "reorder.json: line 1, column 86: expected at most 64 levels of nested arrays and objects, found a deeper one."
        )
    }
}
