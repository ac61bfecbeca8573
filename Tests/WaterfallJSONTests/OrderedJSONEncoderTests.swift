import Foundation
import Testing
import Waterfall
import WaterfallTestSupport

@testable import WaterfallJSON

/// The JSON every `--json` output goes through: keys in encoding order, compact, exact numbers.
@Suite struct OrderedJSONEncoderTests {
    struct Leaf: Encodable {
        var name: String
        var size: Double
        var note: String?
        var tags: [Int]
    }

    struct Tree: Encodable {
        var zebra: Int
        var leaves: [Leaf]
        var nested: [[Leaf]]
        var empty: [String]
        var flag: Bool
        var map: [String: Int]
        var nothing: Int?
    }

    /// Asks for its keyed container twice and nests containers by hand.
    struct Handmade: Encodable {
        enum Key: String, CodingKey { case a, b, c, d }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: Key.self)
            try first.encode(1, forKey: .a)
            var inner = first.nestedContainer(keyedBy: Key.self, forKey: .b)
            try inner.encodeNil(forKey: .a)
            var list = inner.nestedUnkeyedContainer(forKey: .b)
            try list.encode("x")
            try list.encodeNil()
            var second = encoder.container(keyedBy: Key.self)
            try second.encode(Int64(-7), forKey: .c)
            var array = second.nestedUnkeyedContainer(forKey: .d)
            var deep = array.nestedContainer(keyedBy: Key.self)
            try deep.encode(true, forKey: .a)
        }
    }

    struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func keysKeepTheirOrderAndContainersCloseWhereTheyShould() throws {
        let tree = Tree(
            zebra: 1,
            leaves: [
                Leaf(name: "a", size: 2.5, note: nil, tags: []), Leaf(name: "b", size: 3, note: "n", tags: [1, 2]),
            ],
            nested: [[], [Leaf(name: "c", size: -0.125, note: nil, tags: [3])]],
            empty: [], flag: false, map: ["only": 1], nothing: nil)
        #expect(
            try OrderedJSONEncoder().encode(tree) == """
                {"zebra":1,"leaves":[{"name":"a","size":2.5,"tags":[]},{"name":"b","size":3,"note":"n","tags":[1,2]}],\
                "nested":[[],[{"name":"c","size":-0.125,"tags":[3]}]],"empty":[],"flag":false,"map":{"only":1}}
                """)
        #expect(
            try OrderedJSONEncoder().encode(Handmade())
                == #"{"a":1,"b":{"a":null,"b":["x",null]},"c":-7,"d":[{"a":true}]}"#)
        #expect(try OrderedJSONEncoder().encode([Silent(), Silent()]) == "[{},{}]")
        #expect(try OrderedJSONEncoder().encode([String?.none, "y"]) == #"[null,"y"]"#)
        #expect(try OrderedJSONEncoder().encode(42) == "42")
    }

    @Test(arguments: [
        ("https://img.example.com/0.jpg", #""https://img.example.com/0.jpg""#),
        ("", #""""#),
        (" ~", #"" ~""#),
        ("plain then \"quoted\"", #""plain then \"quoted\"""#),
        ("back\\slash", #""back\\slash""#),
        ("del\u{7F}", #""del\u007f""#),
        ("tab\tnewline\n", #""tab\tnewline\n""#),
        ("line\u{2028}separator", #""line\u2028separator""#),
        ("café 📷", "\"café 📷\""),
    ])
    func stringsAreCopiedWhenPlainAndEscapedWhenNot(text: String, json: String) throws {
        var bytes: [UInt8] = []
        JSONWriter.append(string: text, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == json)
        // And any JSON reader reads the text back
        let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
    }

    @Test func stringsAreEscapedAndNumbersExact() throws {
        #expect(
            try OrderedJSONEncoder().encode(["q\"b\\n\n\r\t\u{1}\u{7F}\u{2028}é📷"])
                == #"["q\"b\\n\n\r\t\u0001\u007f\u2028é📷"]"#)
        #expect(
            try OrderedJSONEncoder().encode([1e300, 0.1, -0.0, 9_007_199_254_740_992, 4503599627370496.5])
                == "[1e+300,0.1,0,9007199254740992.0,4503599627370496]")
        #expect(throws: EncodingError.self) { try OrderedJSONEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) {
            try OrderedJSONEncoder().encode(Leaf(name: "", size: .infinity, note: nil, tags: []))
        }
    }

    @Test func theOutputIsJSONFoundationReadsBackToTheSameValues() throws {
        var random = SeededGenerator(seed: 3)
        for _ in 0..<50 {
            let leaves = (0..<Int.random(in: 0...5, using: &random)).map { index in
                Leaf(
                    name: "leaf \(index) \u{0}\"", size: Double(Int.random(in: -1000...1000, using: &random)) / 8,
                    note: Bool.random(using: &random) ? "🌊" : nil, tags: (0..<index).map { $0 * 3 })
            }
            let text = try OrderedJSONEncoder().encode(leaves)
            let decoded = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
            #expect(decoded.count == leaves.count)
            for (object, leaf) in zip(decoded, leaves) {
                #expect(object["name"] as? String == leaf.name)
                #expect((object["size"] as? NSNumber)?.doubleValue == leaf.size)
                #expect(object["note"] as? String == leaf.note)
                #expect((object["tags"] as? [Int]) == leaf.tags)
            }
        }
    }
}

/// Integers (and integral numbers) are written digit by digit, as `String(value)` writes them.
@Suite struct JSONWriterIntegerTests {
    @Test func integersAreWrittenAsSwiftPrintsThem() throws {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_000_000, Int64.max, Int64.min, Int64.min + 1]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            values.append(
                Int64.random(in: .min ... .max, using: &generator) >> Int64.random(in: 0...63, using: &generator))
        }
        for value in values {
            var writer = JSONWriter()
            writer.integer(value)
            #expect(writer.bytes == Array(String(value).utf8), "\(value)")
            var integral = JSONWriter()
            let double = Double(value)
            try integral.number(double)
            let expected =
                double == double.rounded() && abs(double) < 9_007_199_254_740_992 ? String(Int64(double)) : "\(double)"
            #expect(integral.bytes == Array(expected.utf8), "\(double)")
        }
        var unsigned = JSONWriter()
        unsigned.integer(UInt64.max)
        #expect(unsigned.bytes == Array(String(UInt64.max).utf8))
        var negativeZero = JSONWriter()
        try negativeZero.number(-0.0)
        #expect(negativeZero.bytes == Array("0".utf8))
    }
}
