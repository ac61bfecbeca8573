import Testing
import WaterfallLayout
import WaterfallTestSupport

@Suite("Layout state persistence")
struct LayoutStateTests {
    @Test("serialization round-trips every field bit for bit")
    func roundTrip() throws {
        // Given random states, including odd doubles and large counts
        var generator = SeededGenerator(seed: 7)
        let oddValues: [Double] = [0, -0.0, 0.1, 1e300, -5, .infinity, 4_503_599_627_370_497]
        for _ in 0..<300 {
            let columns = Int.random(in: 0...64, using: &generator)
            let state = LayoutState(
                y: oddValues.randomElement(using: &generator)!,
                columnBottoms: (0..<columns).map { _ in Double.random(in: 0...1e9, using: &generator) },
                placedInSection: Int.random(in: 0...Int.max, using: &generator),
                imagesInSection: Int.random(in: 0...1_000_000, using: &generator),
                isSectionOpen: Bool.random(using: &generator),
                sectionStartY: Double.random(in: -1e6...1e6, using: &generator))

            // When it is serialized and read back
            let bytes = state.serialized()
            let decoded = try LayoutState(serialized: bytes)

            // Then it is the same state, to the bit
            #expect(decoded == state)
            #expect(decoded.y.bitPattern == state.y.bitPattern)
            #expect(decoded.sectionStartY.bitPattern == state.sectionStartY.bitPattern)
        }
    }

    @Test("the binary form is compact: 21 + 8 bytes per column for a usual state")
    func compact() {
        // Given a 3-column state with small counts
        let state = LayoutState(
            y: 10, columnBottoms: [1, 2, 3], placedInSection: 5, imagesInSection: 6, isSectionOpen: true)

        // Then version + flags (2) + two doubles (16) + three 1-byte varints (3) + 3 × 8 = 45 bytes
        #expect(state.serialized().count == 45)
        #expect(state.serialized().first == 1)
    }

    @Test("every truncation is rejected with an error, never a trap")
    func rejectsTruncated() {
        // Given a serialized 3-column state
        let bytes = LayoutState(y: 10, columnBottoms: [1, 2, 3], placedInSection: 300, isSectionOpen: true).serialized()

        // Then each strict prefix, and the bytes with one extra byte, are rejected
        for length in 0..<bytes.count {
            #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: bytes.prefix(length)) }
        }
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: bytes + [0]) }
    }

    @Test("a truncated state names what is missing")
    func truncatedMessage() {
        // Given only the version and flags bytes
        let bytes: [UInt8] = [1, 0]

        // Then the error says y is missing at byte 2
        #expect(
            throws: LayoutStateDecodingError(
                offset: 2, message: "layout state is truncated: y is missing at byte 2 of 2.")
        ) {
            try LayoutState(serialized: bytes)
        }
    }

    @Test("unknown versions, unknown flags and malformed counts are rejected")
    func rejectsGarbage() {
        var valid = LayoutState(columnBottoms: [1], isSectionOpen: true).serialized()
        var wrongVersion = valid
        wrongVersion[0] = 2
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: wrongVersion) }
        valid[1] = 4
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: valid) }
        // An 11-byte varint (more than 64 bits) where placedInSection belongs
        let overlong: [UInt8] = [1, 0] + Array(repeating: 0, count: 16) + Array(repeating: 0xFF, count: 11)
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: overlong) }
        // A negative count (zigzag 1 is -1)
        let negative: [UInt8] = [1, 0] + Array(repeating: 0, count: 16) + [1, 0, 0]
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: negative) }
        // A column count far larger than the bytes that follow
        let huge: [UInt8] = [1, 0] + Array(repeating: 0, count: 16) + [0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        #expect(throws: LayoutStateDecodingError.self) { try LayoutState(serialized: huge) }
    }

    @Test("random bytes never trap")
    func randomBytes() {
        // Given random byte strings, some starting like a real state
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator), !bytes.isEmpty { bytes[0] = 1 }
            // When decoded, then it either throws or gives a state that serializes again
            if let state = try? LayoutState(serialized: bytes) {
                #expect((try? LayoutState(serialized: state.serialized())) == state)
            }
        }
    }
}
