import Foundation
import HTTPTypes
import Hummingbird
import Waterfall

extension APIRoutes {
    /// The web gallery (DESIGN section 10): one page, its styles and its script (native ES
    /// modules: the entry `/gallery.js` and the modules it imports, `/gallery/{module}`),
    /// compiled into the binary from `Assets/`. Open to anyone, like `/openapi.json`: the page holds no data;
    /// what it shows comes from the API, which asks for a key when the database has keys (the
    /// page sends the one its "API key" field keeps).
    static let galleryRoutes: [Route] = [
        Route(
            .get, "/", "getGallery", access: .open,
            OperationDoc(
                "The web gallery", tags: ["gallery"],
                responses: [
                    .ok(
                        "The gallery's page: pick a feed and a layout, scroll any feed end to end, drag images into place, watch other people's moves arrive live, or look at it as a cover flow. Plain HTML, CSS and JavaScript compiled into the binary; everything it shows comes from this API.",
                        .text("text/html"), headers: [.noCache])
                ],
                problems: .open)
        ) { request, _, _ in
            try RequestQuery(request).finish()
            return .asset(
                GalleryFiles.page, type: "text/html; charset=utf-8",
                extra: [GalleryHeaders.contentSecurityPolicy: GalleryHeaders.policy])
        },
        Route(
            .get, "/gallery.css", "getGalleryStyles", access: .open,
            OperationDoc(
                "The web gallery's styles", tags: ["gallery"],
                responses: [.ok("The gallery's style sheet.", .text("text/css"), headers: [.noCache])],
                problems: .open)
        ) { request, _, _ in
            try RequestQuery(request).finish()
            return .asset(GalleryFiles.styles, type: "text/css; charset=utf-8")
        },
        Route(
            .get, "/gallery.js", "getGalleryScript", access: .open,
            OperationDoc(
                "The web gallery's script", tags: ["gallery"],
                responses: [
                    .ok(
                        "The gallery's entry module (a native ES module: plain JavaScript, no dependencies, no build step); it imports the others from `/gallery/{module}`.",
                        .text("text/javascript"), headers: [.noCache])
                ],
                problems: .open)
        ) { request, _, _ in
            try RequestQuery(request).finish()
            return .asset(GalleryFiles.script, type: "text/javascript; charset=utf-8")
        },
        Route(
            .get, "/gallery/{module}", "getGalleryModule", access: .open,
            OperationDoc(
                "A module of the web gallery's script", tags: ["gallery"],
                parameters: [.path("GalleryModule")],
                responses: [
                    .ok(
                        "One of the ES modules the gallery's script imports: one concern each (the scroll mapping, the scrubber, the lightbox, the live updates…). `field-defaults.js` is written by the server from its field tables: every layout field's default.",
                        .text("text/javascript"), headers: [.noCache])
                ],
                problems: .open + [.notFound])
        ) { request, parameters, _ in
            try RequestQuery(request).finish()
            let name = parameters["module"]
            guard let module = GalleryFiles.modules[name] else {
                throw Problem(.notFound, "the gallery has no module \(name.quoted).")
            }
            return .asset(module, type: "text/javascript; charset=utf-8")
        },
        Route(
            .get, "/s/{token}/gallery", "getSharedGallery", access: .open,
            OperationDoc(
                "The web gallery on what a share link hands out", tags: ["gallery", "shares"],
                description:
                    "The gallery's page, opened on the link's feed or view (DESIGN section 20): read-only, with no key panel and no drag; everything it shows comes from the link's own paths. It sends no `Referer` (the token is in its address) and asks search engines not to index it.",
                parameters: [.shareToken],
                responses: [
                    .ok("The gallery's page.", .text("text/html"), headers: [.noCache]),
                    ResponseDoc(
                        status: 404,
                        description:
                            "No link answers with this token (removed, expired or never made): the same page, which says so.",
                        headers: [.noCache], content: [.text("text/html")]),
                ],
                problems: .open)
        ) { request, path, services in
            try RequestQuery(request).finish()
            // A link that answers nothing (removed, expired, never made) has the page too, with
            // 404: opened in a browser, it says so rather than showing a problem document.
            let link = try await services.shares.link(token: path["token"], runner: services.runner)
            return .asset(
                ByteBuffer(string: GalleryFiles.linkPage(layout: link?.scope.layout)), type: "text/html; charset=utf-8",
                status: link == nil ? .notFound : .ok,
                extra: [
                    GalleryHeaders.contentSecurityPolicy: GalleryHeaders.policy,
                    GalleryHeaders.referrerPolicy: "no-referrer", GalleryHeaders.robotsTag: "noindex, nofollow",
                ])
        },
    ]
}

/// The gallery's files, read once from the compiled-in assets.
private enum GalleryFiles {
    static let page = ByteBuffer(string: pageText)
    static let styles = ByteBuffer(string: Assets.file("gallery.css"))
    /// The entry module.
    static let script = ByteBuffer(string: Assets.file("gallery.js"))
    /// The modules of `/gallery/{module}` by name: the files of `Assets/gallery/` and
    /// `field-defaults.js`, which the server writes.
    static let modules: [String: ByteBuffer] = {
        var modules: [String: ByteBuffer] = [:]
        for file in Assets.files(in: "gallery") where file.name.hasSuffix(".js") {
            modules[file.name] = ByteBuffer(string: file.text)
        }
        precondition(
            modules[fieldDefaultsName] == nil,
            "Assets/gallery/\(fieldDefaultsName) is written by the server, not compiled in")
        modules[fieldDefaultsName] = ByteBuffer(string: fieldDefaults)
        return modules
    }()

    /// The page for a share link's gallery: the gallery's, with the one layout the link is
    /// limited to (if any) in a `waterfall-share-layout` meta tag, percent-encoded (so nothing in
    /// a name can be markup), and a referrer policy that keeps the token out of image requests.
    static func linkPage(layout: String?) -> String {
        var tags = #"<meta name="referrer" content="no-referrer">"# + "\n"
        if let layout {
            var encoded = ""
            for byte in layout.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    encoded += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
                }
            }
            tags += #"<meta name="waterfall-share-layout" content=""# + encoded + "\">\n"
        }
        return pageText.replacingOccurrences(
            of: "<meta charset=\"utf-8\">\n", with: "<meta charset=\"utf-8\">\n" + tags)
    }

    private static let pageText = Assets.file("gallery.html")

    /// The name of the module ``fieldDefaults``.
    static let fieldDefaultsName = "field-defaults.js"

    /// The module `field-defaults.js`: every layout field's default, from the field tables
    /// (``LayoutParameter``), so that the gallery never restates one.
    static var fieldDefaults: String {
        var defaults: [String: ConfigurationValue] = [:]
        for parameter in LayoutParameter.all {
            if let value = parameter.defaultValue { defaults[parameter.key] = value }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Plain numbers, words and insets: always encodable.
        let json = (try? encoder.encode(defaults)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return
            "// Written by the server from its field tables: the default of every layout field.\nexport const FIELD_DEFAULTS = \(json);\n"
    }
}

private enum GalleryHeaders {
    static let contentSecurityPolicy = HTTPField.Name("Content-Security-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let robotsTag = HTTPField.Name("X-Robots-Tag")!
    /// The page runs only its own script and styles and talks only to this server; images come
    /// from wherever the feed's urls point.
    static let policy =
        "default-src 'self'; img-src * data: blob:; connect-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

extension Response {
    /// A file of the gallery: revalidated on every load (`no-cache`), so that a new binary's
    /// page is never mixed with an old script.
    fileprivate static func asset(
        _ body: ByteBuffer, type: String, status: HTTPResponse.Status = .ok, extra: HTTPFields = [:]
    ) -> Response {
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "no-cache", GalleryHeaders.contentTypeOptions: "nosniff",
        ]
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
