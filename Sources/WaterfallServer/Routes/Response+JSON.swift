import Hummingbird

extension Response {
    /// A JSON answer: the bytes of the stable format, as the command line's `--json` prints them.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }

    /// An answer with no body.
    static func noContent() -> Response {
        Response(status: .noContent)
    }
}
