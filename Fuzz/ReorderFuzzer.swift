// libFuzzer target for ReorderDecoder: see README.md. Any SyncError is a fine answer; a crash,
// a trap, a sanitizer report or a failed `check` is a bug.

/// Decodes the input as a reorder file, from memory and from a file read in tiny chunks, with
/// the default limits and with tight ones, and checks that both ways agree and that every
/// accepted document keeps the promises of `ReorderDocument`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReorder(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: start, count: count))
    let path = fuzzFile(holding: bytes)
    for limits in [SyncLimits.default, tightLimits] {
        let decoder = ReorderDecoder(limits: limits)
        let inMemory = outcome { () throws(SyncError) in try decoder.decode(bytes, source: "fuzz") }
        let fromFile = outcome { () throws(SyncError) in
            let file = try FileReader(
                path: path, name: "fuzz", maximumBytes: limits.fileBytes, chunkSize: chunkSize(for: bytes),
                progress: nil)
            let parser = ReorderParser(scanner: JSONScanner(file: file, source: "fuzz", limits: limits), limits: limits)
            return try parser.parse()
        }
        check(inMemory == fromFile, "memory and file disagree: \(inMemory) vs \(fromFile)")
        if case .decoded(let document) = inMemory {
            checkDocument(document, limits: limits)
            check(isStrictJSON(bytes), "accepted a reorder file that is not JSON")
        }
    }
    return 0
}

/// The guarantees `ReorderDocument` documents.
func checkDocument(_ document: ReorderDocument, limits: SyncLimits) {
    func checkID(_ id: String) {
        check(!id.isEmpty && id.utf8.count <= limits.idBytes && !hasControl(id), "bad id \(id.debugDescription)")
    }
    func checkDistinct(_ ids: [String]) {
        check(ids.count <= limits.imagesPerFeed, "too many ids")
        check(Set(ids.map(ExactString.init)).count == ids.count, "repeated id")
        ids.forEach(checkID)
    }
    if let feed = document.feed {
        check(!feed.isEmpty && feed.utf8.count <= limits.feedNameBytes && !hasControl(feed), "bad feed name")
    }
    switch document.operations {
    case .order(let ids):
        check(!ids.isEmpty, "empty order")
        checkDistinct(ids)
    case .edits(let moves, let removals):
        checkDistinct(removals)
        check(moves.count <= limits.imagesPerFeed, "too many moves")
        for move in moves {
            checkID(move.id)
            switch move.target {
            case .before(let other), .after(let other):
                checkID(other)
                check(!other.utf8.elementsEqual(move.id.utf8), "a move next to itself")
            case .index(let index):
                check(index >= 0, "negative index")
            }
        }
    }
}
