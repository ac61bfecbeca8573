import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Waterfall
import WaterfallJSON
import WaterfallServer
import WaterfallTestSupport

/// A server over a fresh database file holding the travel sample (13 images, 4 sections) and
/// the layout `phone`, tested through HummingbirdTesting's router client (no sockets).
struct TestServer {
    let folder: TemporaryDirectory
    let service: WaterfallService
    let server: WaterfallServer

    /// - Parameters:
    ///   - database: the database file to create; by default `server.sqlite` in ``folder``.
    ///   - logger: where the access log goes; by default nowhere.
    init(
        database: String? = nil, limits: ServerLimits = ServerLimits(), publicRead: Bool = false,
        logger: Logger = Logger(label: "waterfall", factory: { _ in SwiftLogNoOpLogHandler() })
    ) async throws {
        folder = try TemporaryDirectory()
        service = try WaterfallService.openForServing(path: database ?? folder.path("server.sqlite"))
        _ = try await service.importFeed(contentsOf: Self.sampleData("travel.json"), options: .init())
        try await service.addLayout(
            feed: "travel", name: "phone",
            configuration: .waterfall(LayoutConfiguration(columns: 2, width: 375, headerHeight: 44)))
        var configuration = ServerConfiguration()
        configuration.limits = limits
        configuration.publicRead = publicRead
        server = try await WaterfallServer(service: service, configuration: configuration, logger: logger)
    }

    /// Runs `body` with a client of the server.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await server.application().test(.router, body)
    }

    /// A file of the repository's `SampleData/`.
    static func sampleData(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appending(path: "SampleData").appending(path: name).path
    }
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body parsed as a JSON object.
    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// Checks that the answer is a problem document of `status` whose detail contains `fragment`.
    func expectProblem(
        _ status: HTTPResponse.Status, _ fragment: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let problem = object
        #expect(problem["type"] as? String == "about:blank", sourceLocation: sourceLocation)
        #expect(problem["status"] as? Int == Int(status.code), sourceLocation: sourceLocation)
        #expect(problem["title"] as? String == status.reasonPhrase, sourceLocation: sourceLocation)
        let detail = problem["detail"] as? String ?? ""
        #expect(
            (fragment.isEmpty || detail.contains(fragment)) && !detail.isEmpty && !detail.contains("\n"), "\(detail)",
            sourceLocation: sourceLocation)
        #expect(text.hasSuffix("}\n"), sourceLocation: sourceLocation)
    }
}

extension ByteBuffer {
    init(_ text: String) {
        self.init(string: text)
    }
}

/// The stable JSON document of a service answer, as both front ends write it.
func document(_ value: some Encodable) throws -> String {
    String(decoding: try StableJSON.document(of: value), as: UTF8.self)
}

func document(_ value: some JSONWritable) throws -> String {
    String(decoding: try StableJSON.document(of: value), as: UTF8.self)
}
