import CompressNIO
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Waterfall

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
    func encoded(for request: Request) async -> (coding: ContentCoding, bytes: ByteBuffer) {
        guard let gzipped, ContentCoding(accepting: request) == .gzip, let bytes = await gzipped.bytes(of: plain)
        else {
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
    func response(to request: Request, status: HTTPResponse.Status = .ok) async -> Response {
        let (coding, bytes) = await encoded(for: request)
        return Response(status: status, headers: Self.headers(coding), body: .init(byteBuffer: bytes))
    }
}

/// The gzip bytes of one body, made by the first request that needs them; later ones reuse
/// them, and those that come while they are made await the same work (one task, no lock held
/// meanwhile). A body of ``threadedBytes`` or more is compressed on the process's threads for
/// blocking work (``BlockingThreads``), never on a cooperative thread; a smaller one, which
/// takes well under a millisecond, where it is asked for.
private final class CompressedCopy: Sendable {
    /// The smallest body compressed on a thread for blocking work: 64 KiB.
    static let threadedBytes = 64 << 10

    private enum State {
        case none
        case compressing(Task<ByteBuffer?, Never>)
        case done(ByteBuffer)
    }

    private let state = NIOLockedValueBox(State.none)

    /// What a caller found: the bytes, the work that makes them, or a small body to compress
    /// itself (two callers at once may both do it; the bytes are the same).
    private enum Either {
        case ready(ByteBuffer)
        case wait(Task<ByteBuffer?, Never>)
        case compressHere
    }

    /// The gzip coding of `plain` with zlib's default level (6): most of level 9's gain, a
    /// fraction of its time.
    @Sendable private static func compress(_ plain: ByteBuffer) -> ByteBuffer? {
        var input = plain
        return try? input.compress(with: .gzip())
    }

    /// The gzip bytes of `plain`, compressed now or kept from before; `nil` if zlib fails
    /// (it compresses into a buffer of its worst-case size, so it should not) or no thread could
    /// be had: then the plain bytes are sent, and compressing is tried again next time.
    func bytes(of plain: ByteBuffer) async -> ByteBuffer? {
        let work: Task<ByteBuffer?, Never>
        switch state.withLockedValue({ state -> Either in
            switch state {
            case .done(let bytes): return .ready(bytes)
            case .compressing(let task): return .wait(task)
            case .none:
                guard plain.readableBytes >= Self.threadedBytes else { return .compressHere }
                let task = Task { try? await BlockingThreads.run { Self.compress(plain) } ?? nil }
                state = .compressing(task)
                return .wait(task)
            }
        }) {
        case .ready(let bytes): return bytes
        case .wait(let task): work = task
        case .compressHere:
            let bytes = Self.compress(plain)
            if let bytes { state.withLockedValue { $0 = .done(bytes) } }
            return bytes
        }
        let bytes = await work.value
        state.withLockedValue { state in
            // Only the work that is still the one under way settles the state.
            guard case .compressing(let current) = state, current == work else { return }
            state = bytes.map(State.done) ?? .none
        }
        return bytes
    }
}
