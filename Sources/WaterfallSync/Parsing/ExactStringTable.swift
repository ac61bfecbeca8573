/// An open-addressing hash index from exact UTF-8 byte strings to positions in an array the
/// caller owns, used to intern section names as they appear (image ids, far more numerous,
/// go through `DuplicateFinder` instead).
///
/// Keys are compared byte for byte, never with `String.==` (which equates canonically
/// equivalent strings). Each slot packs 32 bits of the key's hash with the position, so the
/// index costs 8 bytes a slot, at most two slots an entry, and never re-reads keys to grow.
/// Hashing is seeded per process (`Hasher`), so hostile ids cannot force collisions.
struct ExactStringTable {
    private var slots: [UInt64] = Array(repeating: 0, count: 16)
    private(set) var count = 0

    /// Finds `key`; when absent, records it at position `newPosition` and returns `nil`,
    /// otherwise returns the position already recorded. `keyAt` gives the stored key of a
    /// position, taken from `keys`.
    mutating func insert<Keys: RandomAccessCollection>(
        _ key: UnsafeBufferPointer<UInt8>, position newPosition: Int, in keys: Keys,
        keyAt: (Keys.Element) -> String
    ) -> Int? where Keys.Index == Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        let hash = UInt64(UInt32(truncatingIfNeeded: hasher.finalize()))
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            if entry >> 32 == hash {
                let position = Int(entry & 0xFFFF_FFFF) - 1
                if JSONBytes.equal(keyAt(keys[position]), key) { return position }
            }
            slot = (slot + 1) & mask
        }
        slots[slot] = hash << 32 | UInt64(newPosition + 1)
        count += 1
        if count * 2 > slots.count { grow() }
        return nil
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        let mask = slots.count - 1
        for entry in old where entry != 0 {
            var slot = Int(truncatingIfNeeded: entry >> 32) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = entry
        }
    }
}

/// Byte-level comparisons of strings.
enum JSONBytes {
    /// Whether `string`'s UTF-8 bytes are exactly `bytes`.
    @inline(__always)
    static func equal(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = string.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ $0.elementsEqual(bytes) }) {
            return result
        }
        return utf8.elementsEqual(bytes)
    }
}
