import Testing

@testable import WaterfallServer

/// The hash in an answer's entity tag (``Answer/hash(_:seed:)``), eight bytes at a time: a
/// document that differs from another anywhere (in a whole word, in the tail shorter than a
/// word, or only by trailing zero bytes, which the last word's padding would hide) gets another
/// tag, and so does the same document of another incarnation of its feed.
@Suite struct EntityTagHashTests {
    @Test func everyByteTheLengthAndTheIncarnationChangeTheHash() {
        let document = Array("{\"feed\":\"travel\",\"items\":[1,2,3]}".utf8)  // 34 bytes: 4 words and 2
        let hash = Answer.hash(document, seed: 1)
        for index in document.indices {
            var changed = document
            changed[index] ^= 0x01
            #expect(Answer.hash(changed, seed: 1) != hash, "byte \(index)")
        }
        #expect(Answer.hash(document + [0], seed: 1) != hash)
        #expect(Answer.hash(Array(document.dropLast()), seed: 1) != hash)
        #expect(Answer.hash(document, seed: 2) != hash)
        #expect(Answer.hash([], seed: 1) != Answer.hash([0], seed: 1))
        #expect(Answer.hash([], seed: 1) != Answer.hash(Array(repeating: 0, count: 8), seed: 1))
        // The seed is a word of its own, not folded into the first: a document whose first word
        // differs from another's by the two seeds' difference still gets another hash
        let word = Array("abcdefgh".utf8)
        var shifted = word
        shifted[0] ^= 1 ^ 3
        #expect(Answer.hash(word, seed: 1) != Answer.hash(shifted, seed: 3))
    }

    /// Instances over one database, of any build on any machine, give one document one tag:
    /// the hash is a function of the bytes alone (no per-run seed, as `Hasher` has), pinned
    /// here to values an independent script computed from the algorithm its comment describes.
    @Test func theHashIsPinned() {
        #expect(Answer.hash(Array("{}".utf8), seed: 7) == 0x1919_51aa_5d0d_053c)
        #expect(Answer.hash(Array("{\"feed\":\"travel\",\"items\":[1,2,3]}".utf8), seed: 1) == 0xc2ec_8982_1a62_9197)
    }
}
