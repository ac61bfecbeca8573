import Hummingbird

extension Response {
    /// A JSON answer to `request`: the bytes of the stable format, as the command line's
    /// `--json` prints them, gzip-compressed when the request asks for it (``JSONBody``).
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, to request: Request) async -> Response {
        await JSONBody(body).response(to: request, status: status)
    }

    /// An answer with no body.
    static func noContent() -> Response {
        Response(status: .noContent)
    }
}
