import HTTPTypes
import Hummingbird

extension APIRoutes {
    /// The web gallery (DESIGN section 10): one page, its styles and its script, compiled into
    /// the binary from `Assets/`. Open to anyone, like `/openapi.json`: the page holds no data;
    /// what it shows comes from the API, which asks for a key when the database has keys (the
    /// page sends the one its "API key" field keeps).
    static func galleryRoutes() -> [Route] {
        let page = ByteBuffer(string: Assets.file("gallery.html"))
        let styles = ByteBuffer(string: Assets.file("gallery.css"))
        let script = ByteBuffer(string: Assets.file("gallery.js"))
        return [
            Route(.get, "/", "getGallery", access: .open) { request, _ in
                try RequestQuery(request).finish()
                return .asset(page, type: "text/html; charset=utf-8", extra: [GalleryHeaders.contentSecurityPolicy: GalleryHeaders.policy])
            },
            Route(.get, "/gallery.css", "getGalleryStyles", access: .open) { request, _ in
                try RequestQuery(request).finish()
                return .asset(styles, type: "text/css; charset=utf-8")
            },
            Route(.get, "/gallery.js", "getGalleryScript", access: .open) { request, _ in
                try RequestQuery(request).finish()
                return .asset(script, type: "text/javascript; charset=utf-8")
            },
        ]
    }
}

private enum GalleryHeaders {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    /// The page runs only its own script and styles and talks only to this server; images come
    /// from wherever the feed's urls point.
    static let policy =
        "default-src 'self'; img-src * data: blob:; connect-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

extension Response {
    /// A file of the gallery: revalidated on every load (`no-cache`), so that a new binary's
    /// page is never mixed with an old script.
    fileprivate static func asset(_ body: ByteBuffer, type: String, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-cache", GalleryHeaders.contentTypeOptions: "nosniff"]
        headers.append(contentsOf: extra)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
