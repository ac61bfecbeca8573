/// Reads the fields of a serialized layout state (``LayoutState``, ``JustifiedState``), throwing
/// instead of reading past the end; messages name the state as `subject` does.
struct StateByteReader {
    let bytes: [UInt8]
    /// What the bytes are, for messages: `layout state`, `justified layout state`.
    let subject: String
    var offset = 0

    init(_ bytes: [UInt8], subject: String) {
        self.bytes = bytes
        self.subject = subject
    }

    var remaining: Int { bytes.count - offset }

    mutating func byte(what: String) throws(LayoutStateDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw truncated(what) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func double(what: String) throws(LayoutStateDecodingError) -> Double {
        guard remaining >= 8 else { throw truncated(what) }
        var bits: UInt64 = 0
        for index in 0..<8 {
            bits |= UInt64(bytes[offset + index]) << UInt64(8 * index)
        }
        offset += 8
        return Double(bitPattern: bits)
    }

    mutating func varint(what: String) throws(LayoutStateDecodingError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte(what: what)
            let payload = UInt64(byte & 0x7F)
            guard shift < 64, shift < 63 || payload <= 1 else {
                throw LayoutStateDecodingError(
                    offset: start, message: "\(subject) \(what) does not fit in 64 bits.")
            }
            value |= payload << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A zigzag varint as a signed 64-bit value.
    mutating func signed(what: String) throws(LayoutStateDecodingError) -> Int64 {
        let raw = try varint(what: what)
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A zigzag varint that must be a count: 0 or more.
    mutating func count(what: String) throws(LayoutStateDecodingError) -> Int {
        let start = offset
        let value = try signed(what: what)
        guard value >= 0, let result = Int(exactly: value) else {
            throw LayoutStateDecodingError(
                offset: start, message: "\(subject) \(what) must be 0 or more, got \(value).")
        }
        return result
    }

    /// A zigzag varint that must fit in `Int32`.
    mutating func int32(what: String) throws(LayoutStateDecodingError) -> Int32 {
        let start = offset
        let value = try signed(what: what)
        guard let result = Int32(exactly: value) else {
            throw LayoutStateDecodingError(
                offset: start, message: "\(subject) \(what) \(value) does not fit in 32 bits.")
        }
        return result
    }

    private func truncated(_ what: String) -> LayoutStateDecodingError {
        LayoutStateDecodingError(
            offset: offset,
            message: "\(subject) is truncated: \(what) is missing at byte \(offset) of \(bytes.count).")
    }
}

/// Writes the fields of a serialized layout state in the form ``StateByteReader`` reads:
/// doubles as their IEEE-754 bit patterns, little-endian; counts as LEB128 varints.
struct StateByteWriter {
    var bytes: [UInt8] = []

    mutating func double(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
    }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Maps signed to unsigned so that small magnitudes stay short: 0, -1, 1, -2 → 0, 1, 2, 3.
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}
