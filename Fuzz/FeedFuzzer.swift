// libFuzzer target for FeedDecoder: see README.md. Any SyncError is a fine answer; a crash, a
// trap, a sanitizer report or a failed `check` is a bug.

/// Decodes the input as a JSON feed and as an NDJSON feed, from memory and from a file read in
/// tiny chunks, with the default limits and with tight ones, and checks that both ways agree
/// and that every accepted document keeps the promises of `FeedDocument`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeed(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : Array(UnsafeRawBufferPointer(start: start, count: count))
    let path = fuzzFile(holding: bytes)
    for format in [FeedFormat.json, .ndjson] {
        for limits in [SyncLimits.default, tightLimits] {
            let decoder = FeedDecoder(limits: limits)
            let inMemory = outcome { () throws(SyncError) in try decoder.decode(bytes, format: format, source: "fuzz") }
            let fromFile = outcome { () throws(SyncError) in
                let file = try FileReader(
                    path: path, name: "fuzz", maximumBytes: limits.fileBytes, chunkSize: chunkSize(for: bytes),
                    progress: nil)
                let parser = FeedParser(
                    scanner: JSONScanner(file: file, source: "fuzz", limits: limits), limits: limits,
                    expectedBytes: file.knownSize)
                return try parser.parse(format)
            }
            check(inMemory == fromFile, "memory and file disagree (\(format)): \(inMemory) vs \(fromFile)")
            if case .decoded(let document) = inMemory {
                checkDocument(document, limits: limits)
                if format == .json {
                    check(isStrictJSON(bytes), "accepted a feed that is not JSON")
                } else {
                    check(isStrictNDJSON(bytes), "accepted an NDJSON feed whose lines are not JSON objects")
                }
            }
        }
    }
    return 0
}

/// The guarantees `FeedDocument` and `FeedImage` document.
func checkDocument(_ document: FeedDocument, limits: SyncLimits) {
    if let feed = document.feed {
        check(!feed.isEmpty && feed.utf8.count <= limits.feedNameBytes && !hasControl(feed), "bad feed name")
    }
    check(document.images.count <= limits.imagesPerFeed, "too many images")
    var ids = Set<ExactString>()
    for image in document.images {
        check(!image.id.isEmpty && image.id.utf8.count <= limits.idBytes && !hasControl(image.id), "bad id")
        check(ids.insert(ExactString(image.id)).inserted, "duplicate id \(image.id.debugDescription)")
        check((1...1_000_000).contains(image.width) && (1...1_000_000).contains(image.height), "bad size")
        check((image.url?.utf8.count ?? 0) <= limits.urlBytes, "url too long")
        check((image.title?.utf8.count ?? 0) <= limits.titleBytes, "title too long")
        if let section = image.section {
            check(section >= 0 && Int(section) < document.sectionNames.count, "section index out of range")
        }
    }
    var names = Set<ExactString>()
    for name in document.sectionNames {
        check(!name.isEmpty && name.utf8.count <= limits.sectionIdBytes && !hasControl(name), "bad section id")
        check(names.insert(ExactString(name)).inserted, "duplicate section name")
    }
    check(document.declaredSections.count <= document.sectionNames.count, "more declared sections than names")
    for (index, section) in document.declaredSections.enumerated() {
        check(document.sectionNames[index].utf8.elementsEqual(section.id.utf8), "declared sections out of order")
        check((section.title?.utf8.count ?? 0) <= limits.titleBytes, "section title too long")
    }
}
