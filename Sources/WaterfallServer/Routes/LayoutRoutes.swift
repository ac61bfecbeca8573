import Foundation
import Hummingbird
import Waterfall
import WaterfallJSON

extension APIRoutes {
    /// A feed's named layouts: list, read, save, delete.
    static let layoutRoutes: [Route] = [
        Route(
            .get, "/v1/feeds/{feed}/layouts", "listLayouts",
            OperationDoc(
                "A feed's named layouts", tags: ["layouts"],
                parameters: [.feed, .ifNoneMatch],
                responses: [.ok("The layouts.", .json("LayoutList"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let feed = path["feed"]
            return try await server.runner.answer(for: request, path) { service in
                let version = try await service.feed(named: feed).version
                // Through a share link limited to one layout, that layout alone.
                let layouts = try await service.layouts(feed: feed).filter { layout in
                    path.link?.scope.layout.map { layout.name.utf8.elementsEqual($0.utf8) } ?? true
                }
                return (try StableJSON.document(of: LayoutList(layouts: layouts)), version)
            }.response(to: request)
        },
        Route(
            .get, "/v1/feeds/{feed}/layouts/{name}", "getLayout",
            OperationDoc(
                "A named layout's configuration", tags: ["layouts"],
                parameters: [.feed, .layoutName, .ifNoneMatch],
                responses: [.ok("The canonical configuration.", .json("AnyLayoutConfiguration"), headers: [.eTag])],
                problems: .feedRead)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let (feed, name) = (path["feed"], path["name"])
            return try await server.runner.answer(for: request, path) { service in
                let version = try await service.feed(named: feed).version
                let layout = try await service.layout(feed: feed, name: name)
                return (try StableJSON.document(of: layout), version)
            }.response(to: request)
        },
        Route(
            .put, "/v1/feeds/{feed}/layouts/{name}", "putLayout",
            OperationDoc(
                "Save a named layout", tags: ["layouts"],
                parameters: [.feed, .layoutName] + ParameterGroup.writePreconditions,
                body: RequestBodyDoc(.json("AnyLayoutConfigurationInput")),
                responses: [
                    .ok("Replaced; the canonical configuration.", .json("AnyLayoutConfiguration")),
                    .created("Created; the canonical configuration.", .json("AnyLayoutConfiguration")),
                ],
                problems: .feedUpload)
        ) { request, path, server in
            try RequestQuery(request).finish()
            _ = try FeedFormat(contentType: request.headers[.contentType], allowsLines: false)
            let bytes = try await RequestBodyBytes.collect(
                request.body, limit: min(server.limits.maximumBodyBytes, 1 << 20))
            let configuration = try AnyLayoutConfiguration(body: bytes)
            let (feed, name) = (path["feed"], path["name"])
            let expected = try EntityTags.expectedState(of: request)
            let existed = try await server.runner.write { service in
                do {
                    return try await expected.applied(to: service).addLayout(
                        feed: feed, name: name, configuration: configuration)
                } catch WaterfallError.invalidConfiguration(let error) {
                    throw Problem(.unprocessableContent, "request body: \(error.message)")
                }
            }
            return await .json(
                ByteBuffer(bytes: try StableJSON.document(of: configuration)), status: existed ? .ok : .created,
                to: request)
        },
        Route(
            .delete, "/v1/feeds/{feed}/layouts/{name}", "deleteLayout",
            OperationDoc(
                "Remove a named layout", tags: ["layouts"],
                parameters: [.feed, .layoutName] + ParameterGroup.writePreconditions,
                responses: [.noContent("Removed.")],
                problems: .feedWrite)
        ) { request, path, server in
            try RequestQuery(request).finish()
            let (feed, name) = (path["feed"], path["name"])
            let expected = try EntityTags.expectedState(of: request)
            try await server.runner.write {
                try await expected.applied(to: $0).removeLayout(feed: feed, name: name)
            }
            return .noContent()
        },
    ]
}

extension AnyLayoutConfiguration {
    /// A configuration from a JSON request body: `kind` (default `waterfall`) and the keys of
    /// that kind's canonical form, only `columns` and `width` (waterfall) or `width` and
    /// `rowHeight` (justified) required; any other key is refused (a misspelt key would
    /// otherwise fall back to its default unnoticed).
    /// - Throws: ``Problem`` 422 naming what is wrong.
    init(body: [UInt8]) throws(Problem) {
        do {
            self = try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(body))
            let given = (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?.keys.sorted() ?? []
            let keys = Self.keys(of: kind)
            if let unknown = given.first(where: { !keys.contains($0) }) {
                throw Problem(
                    .unprocessableContent,
                    "request body: unknown key \(unknown.quoted); a \(kind.rawValue) configuration has \(keys.sorted().joined(separator: ", "))."
                )
            }
        } catch let problem as Problem {
            throw problem
        } catch let error as ConfigurationKeyError {
            throw Problem(.unprocessableContent, "request body: \(error.sentence(naming: { $0 }))")
        } catch let error as LayoutConfigurationError {
            throw Problem(.unprocessableContent, "request body: \(error.message)")
        } catch let DecodingError.keyNotFound(key, _) {
            throw Problem(.unprocessableContent, "request body: \(key.stringValue) is required.")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw Problem(.unprocessableContent, "request body: \(context.path): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw Problem(
                .unprocessableContent,
                "request body: \(context.codingPath.isEmpty ? "" : context.path + ": ")\(context.debugDescription)")
        } catch {
            throw Problem(.unprocessableContent, "request body: not a layout configuration (\(error)).")
        }
    }
}

extension DecodingError.Context {
    /// The JSON path of the value at fault: `sectionInset.top`.
    fileprivate var path: String {
        codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
