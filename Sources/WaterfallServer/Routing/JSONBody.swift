import CompressNIO
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// A JSON answer's bytes, and their gzip coding, made once on the first request that asks for
/// it (``ContentCoding``) and kept with them: a kept answer (``KeptAnswer``) is compressed at
/// most once per database version, however many clients ask for it.
///
/// Bodies under ``minimumCompressedBytes`` are always sent plain. Every response made from it
/// carries `Vary: Accept-Encoding`, compressed or not, so that a cache never hands the gzip
/// bytes to a client that did not ask for them (RFC 9110 section 12.5.5).
struct JSONBody: Sendable {
    /// The smallest body sent compressed: 1 KiB. Below it, gzip's 18 bytes of framing and the
    /// deflate work save less than a packet (a JSON answer this small fits in one TCP segment
    /// either way); Hummingbird's own compression middleware draws the line at the same size.
    static let minimumCompressedBytes = 1_024

    /// The document's bytes as the command line prints them.
    let plain: ByteBuffer
    private let gzipped: CompressedCopy?

    init(_ plain: ByteBuffer) {
        self.plain = plain
        gzipped = plain.readableBytes >= Self.minimumCompressedBytes ? CompressedCopy() : nil
    }

    /// The coding an answer to `request` is sent in and the bytes in it: gzip when the request
    /// asks for it and the body is large enough to gain from it (compressed on the first such
    /// request, then kept); the plain bytes otherwise.
    func encoded(for request: Request) -> (coding: ContentCoding, bytes: ByteBuffer) {
        guard let gzipped, ContentCoding(accepting: request) == .gzip, let bytes = gzipped.bytes(of: plain) else {
            return (.identity, plain)
        }
        return (.gzip, bytes)
    }

    /// The headers of an answer in `coding`: `Content-Type`, `Vary` and, for gzip,
    /// `Content-Encoding`, besides `headers`.
    static func headers(_ coding: ContentCoding, _ headers: HTTPFields = [:]) -> HTTPFields {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.vary] = "Accept-Encoding"
        if coding == .gzip { fields[.contentEncoding] = "gzip" }
        return fields
    }

    /// A response to `request` with this body, compressed when the request asks for it.
    func response(to request: Request, status: HTTPResponse.Status = .ok) -> Response {
        let (coding, bytes) = encoded(for: request)
        return Response(status: status, headers: Self.headers(coding), body: .init(byteBuffer: bytes))
    }
}

/// The gzip bytes of one body, made by the first request that needs them; later ones reuse
/// them. The lock is held while compressing, so concurrent first requests compress once.
private final class CompressedCopy: Sendable {
    private let bytes = NIOLockedValueBox<ByteBuffer?>(nil)

    /// The gzip bytes of `plain`, compressed now or kept from before; `nil` if zlib fails
    /// (it compresses into a buffer of its worst-case size, so it should not): then the plain
    /// bytes are sent, and compressing is tried again next time.
    func bytes(of plain: ByteBuffer) -> ByteBuffer? {
        bytes.withLockedValue { kept in
            if let kept { return kept }
            var input = plain
            // zlib's default level (6): most of level 9's gain, a fraction of its time.
            kept = try? input.compress(with: .gzip())
            return kept
        }
    }
}
