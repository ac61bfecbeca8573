/// Finds repeated ids in a list, after the fact, with sequential memory access only.
///
/// Checking each id against a hash table as it arrives costs a cache miss per id once the
/// table outgrows the cache (a third of the decode time of a million-image feed). Instead,
/// this records one 8-byte word per id (a seeded 32-bit hash above the id's position), sorts
/// the words with a radix sort, and compares the ids of equal hashes only. Ids are compared
/// byte for byte (exact code points).
struct DuplicateFinder {
    private var words: [UInt64] = []

    /// Records the id of the next position.
    @inline(__always)
    mutating func append(_ id: String) {
        var hasher = Hasher()
        if id.utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(id.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        let hash = UInt64(UInt32(truncatingIfNeeded: hasher.finalize()))
        words.append(hash << 32 | UInt64(words.count))
    }

    /// Reserves room for `count` ids.
    mutating func reserveCapacity(_ count: Int) {
        words.reserveCapacity(count)
    }

    /// The first repeat in list order: the smallest position whose id appeared before, with
    /// the first position of that id; `nil` when all ids are distinct. `idAt` gives the id at
    /// a position.
    /// Consumes the recorded words (sorting them in place keeps memory at two copies).
    mutating func firstDuplicate(idAt: (Int) -> String) -> (earlier: Int, later: Int)? {
        guard words.count > 1 else { return nil }
        var unsorted: [UInt64] = []
        swap(&unsorted, &words)
        let sorted = DuplicateFinder.sortedByHash(unsorted)
        var best: (earlier: Int, later: Int)?
        var runStart = 0
        while runStart < sorted.count {
            let hash = sorted[runStart] >> 32
            var runEnd = runStart + 1
            while runEnd < sorted.count && sorted[runEnd] >> 32 == hash { runEnd += 1 }
            if runEnd - runStart > 1 {
                // Positions within a run are increasing (the sort is stable).
                for later in (runStart + 1)..<runEnd {
                    let laterPosition = Int(sorted[later] & 0xFFFF_FFFF)
                    if let best, best.later < laterPosition { break }
                    var laterID = idAt(laterPosition)
                    let match = laterID.withUTF8 { bytes in
                        (runStart..<later).first { JSONBytes.equal(idAt(Int(sorted[$0] & 0xFFFF_FFFF)), bytes) }
                    }
                    if let match {
                        best = (Int(sorted[match] & 0xFFFF_FFFF), laterPosition)
                        break
                    }
                }
            }
            runStart = runEnd
        }
        return best
    }

    /// `words` sorted by their upper 32 bits, stably (LSD radix sort, three passes).
    private static func sortedByHash(_ words: consuming [UInt64]) -> [UInt64] {
        var source = words
        var target = [UInt64](repeating: 0, count: source.count)
        var counts = [Int](repeating: 0, count: 1 << 11)
        for (shift, bits) in [(32, 11), (43, 11), (54, 10)] {
            let mask = UInt64(1 << bits - 1)
            for index in counts.indices { counts[index] = 0 }
            source.withUnsafeBufferPointer { source in
                counts.withUnsafeMutableBufferPointer { counts in
                    for word in source { counts[Int(word >> UInt64(shift) & mask)] += 1 }
                    var total = 0
                    for index in counts.indices {
                        let count = counts[index]
                        counts[index] = total
                        total += count
                    }
                    target.withUnsafeMutableBufferPointer { target in
                        for word in source {
                            let bucket = Int(word >> UInt64(shift) & mask)
                            target[counts[bucket]] = word
                            counts[bucket] += 1
                        }
                    }
                }
            }
            swap(&source, &target)
        }
        return source
    }
}
