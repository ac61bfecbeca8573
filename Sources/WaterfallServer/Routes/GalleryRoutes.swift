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
    ]
}

/// The gallery's files, read once from the compiled-in assets.
private enum GalleryFiles {
    static let page = ByteBuffer(string: Assets.file("gallery.html"))
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
    /// The page runs only its own script and styles and talks only to this server; images come
    /// from wherever the feed's urls point.
    static let policy =
        "default-src 'self'; img-src * data: blob:; connect-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

extension Response {
    /// A file of the gallery: revalidated on every load (`no-cache`), so that a new binary's
    /// page is never mixed with an old script.
    fileprivate static func asset(_ body: ByteBuffer, type: String, extra: HTTPFields = [:]) -> Response {
        var headers: HTTPFields = [
            .contentType: type, .cacheControl: "no-cache", GalleryHeaders.contentTypeOptions: "nosniff",
        ]
        headers.append(contentsOf: extra)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}
