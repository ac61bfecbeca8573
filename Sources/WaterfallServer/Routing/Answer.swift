import HTTPTypes
import Hummingbird
import NIOCore
import Waterfall

/// A read's answer: its JSON document and its entity tag, which says which state of the feed it
/// shows (`"12-3-9f3a…"`: the revision, the feed's incarnation (DESIGN section 19), then a hash
/// of the bytes, since a named layout can change without a new revision). A client sends the
/// tag back in `If-None-Match` to be told 304 when nothing changed, or in `If-Match` on a write
/// to have it refused (412) when the feed moved on since, or was removed and made anew: the
/// incarnation is also in the hash, so no tag of a feed since removed names the new feed's bytes.
///
/// The gzip coding of the same document is another representation of it (RFC 9110 section
/// 8.4: a content coding is part of the representation, unlike a transfer coding), with other
/// bytes, so it has a tag of its own, the plain one with `+gzip` inside the quotes
/// (`"12-9f3a…+gzip"`): a strong tag names one sequence of bytes (RFC 9110 section 8.8.1), and
/// a cache holding both codings under `Vary: Accept-Encoding` must be able to tell them apart
/// when it revalidates. `If-None-Match` is compared with the tag of the coding the request
/// would get; `If-Match` reads the revision before the dash, so either tag serves a write.
struct Answer: Sendable {
    let body: JSONBody
    /// The tag of the plain document.
    let entityTag: String

    /// - Parameter version: the state of the feed the answer shows; nil for answers about no
    ///   one feed (the list of feeds).
    init(body: [UInt8], version: FeedVersion?) {
        self.body = JSONBody(ByteBuffer(bytes: body))
        let digest = String(Self.hash(body, seed: UInt64(bitPattern: version?.incarnation ?? 0)), radix: 16)
        entityTag =
            "\"" + (version.map { "\($0.revision)-\($0.incarnation)-" } ?? "")
            + String(repeating: "0", count: 16 - digest.count) + digest + "\""
    }

    /// The hash in the tag: the seed (the feed's incarnation), then the bytes eight at a time
    /// (little-endian words, the last one padded with zeros), then their length, each word
    /// mixed in by an odd multiplier and a fold of the high half into the low, finished by
    /// MurmurHash3's `fmix64`. Not a cryptographic hash: it tells documents of one feed's
    /// revision apart, after the tag's revision and incarnation (a client cannot choose both
    /// documents). The same on every machine and in
    /// every run (unlike `Hasher`), so that instances over one database give one tag for one
    /// document. Byte at a time (FNV-1a, before issue 53) it took 5% of a random page's time.
    static func hash(_ bytes: [UInt8], seed: UInt64) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
        }
        mix(seed)
        bytes.withUnsafeBytes { raw in
            let whole = raw.count / 8 * 8
            for offset in stride(from: 0, to: whole, by: 8) {
                mix(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
            var last: UInt64 = 0
            for (shift, byte) in raw[whole...].enumerated() { last |= UInt64(byte) << (8 * UInt64(shift)) }
            mix(last)
        }
        mix(UInt64(bytes.count))
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash &*= 0xc4ce_b9fe_1a85_ec53
        return hash ^ (hash >> 33)
    }

    /// The tag of the document in `coding`.
    func entityTag(_ coding: ContentCoding) -> String {
        switch coding {
        case .identity: entityTag
        case .gzip: String(entityTag.dropLast()) + "+gzip\""
        }
    }

    /// 200 with the document, gzip-compressed when the request asks for it (``JSONBody``), or
    /// 304 when the request's `If-None-Match` names the tag of the coding it would get. Both
    /// carry `Vary: Accept-Encoding`: a 304 carries what the 200 would (RFC 9110 section 15.4.5),
    /// and `Cache-Control: no-cache` (a cache asks again with the tag; an answer pinned to its
    /// revision is immutable instead, ``RevisionPin``).
    func response(to request: Request, status: HTTPResponse.Status = .ok) async -> Response {
        let (coding, bytes) = await body.encoded(for: request)
        let tag = entityTag(coding)
        if let tags = request.headers[.ifNoneMatch], EntityTags.list(tags).contains(where: { $0 == "*" || $0 == tag }) {
            return Response(
                status: .notModified, headers: [.eTag: tag, .vary: "Accept-Encoding", .cacheControl: "no-cache"])
        }
        return Response(
            status: status, headers: JSONBody.headers(coding, [.eTag: tag, .cacheControl: "no-cache"]),
            body: .init(byteBuffer: bytes))
    }
}

/// Reading entity tags from conditional request headers.
enum EntityTags {
    /// The tags of an `If-Match` / `If-None-Match` value, weak ones (`W/"…"`) as strong.
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { tag in
            let trimmed = tag.trimmingSpaces
            return String(trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed)
        }
    }

    /// What a write expects of its feed: `X-Feed-Revision: R` (a revision of whichever feed has
    /// the name), or the revision and incarnation of the first tag of `If-Match` that a server
    /// of this version gave (`"R-I-…"`, either coding; `*` expects nothing).
    /// - Throws: ``Problem`` 400 for an `X-Feed-Revision` that is not a revision; 412 for an
    ///   `If-Match` naming no state of a feed (it cannot match any).
    static func expectedState(of request: Request) throws(Problem) -> Expectation {
        if let value = request.headers[.feedRevision] {
            guard let revision = Int64(value.trimmingSpaces), revision >= 0 else {
                throw Problem.badRequest(
                    "X-Feed-Revision must be a revision of 0 or more, got \(String(value.prefix(100)).quoted).")
            }
            return .revision(revision)
        }
        guard let value = request.headers[.ifMatch] else { return .anything }
        let tags = list(value)
        if tags.contains("*") { return .anything }
        for tag in tags {
            guard tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 else { continue }
            var inner = tag.dropFirst().dropLast()
            if inner.hasSuffix("+gzip") { inner = inner.dropLast(5) }
            let parts = inner.split(separator: "-", omittingEmptySubsequences: false)
            if parts.count == 3, let revision = Int64(parts[0]), revision >= 0, let incarnation = Int64(parts[1]) {
                return .version(FeedVersion(incarnation: incarnation, revision: revision))
            }
        }
        throw Problem(
            .preconditionFailed,
            "If-Match \(String(value.prefix(200)).quoted) names no revision of this feed; send an ETag this server gave, or X-Feed-Revision."
        )
    }

    /// What a write expects of its feed's state.
    enum Expectation {
        /// Nothing: no precondition, or `If-Match: *`.
        case anything
        /// A revision of whichever feed has the name (`X-Feed-Revision`).
        case revision(Int64)
        /// One incarnation of the feed at one revision (an `If-Match` tag).
        case version(FeedVersion)

        /// The service, expecting the feed a read of the change log follows to be the tag's
        /// incarnation (at whatever revision: the log moves on); `X-Feed-Revision` names no feed.
        func incarnation(appliedTo service: WaterfallService) -> WaterfallService {
            if case .version(let version) = self { return service.expecting(incarnation: version.incarnation) }
            return service.expecting(incarnation: nil)
        }

        /// The service, expecting this of the feed it writes.
        func applied(to service: WaterfallService) -> WaterfallService {
            switch self {
            case .anything: service.expecting(revision: nil)
            case .revision(let revision): service.expecting(revision: revision)
            case .version(let version): service.expecting(version)
            }
        }
    }
}

extension HTTPField.Name {
    /// `X-Feed-Revision: R`: the revision a write expects its feed at.
    static let feedRevision = HTTPField.Name("X-Feed-Revision")!
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        let text = Substring(self)
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return text[start..<Swift.max(start, end)]
    }
}
