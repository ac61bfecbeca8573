import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallServer
import WaterfallTestSupport

/// Every route of the HTTP API through HummingbirdTesting: answers are the service's answers
/// in the stable JSON (the command line's `--json`), failures are problem documents.
@Suite struct RouteTests {
    @Test func healthAndTheOpenAPIDocument() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok && response.text == "{\"status\":\"ok\"}\n")
            }
            try await client.execute(uri: "/openapi.json", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "application/json")
                #expect(response.text == WaterfallServer.openAPIDocument)
            }
            try await client.execute(uri: "/healthz?x=1", method: .get) {
                $0.expectProblem(.badRequest, "unknown query parameter \"x\"")
            }
        }
    }

    @Test func feedsAndOneFeed() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds", method: .get) { response in
                let expected = try await document(service.feeds())
                #expect(response.status == .ok && response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel", method: .get) { response in
                #expect(response.text == #"{"name":"travel","images":13,"sections":4,"revision":1,"layouts":1}"# + "\n")
            }
            try await client.execute(uri: "/v1/feeds/nope", method: .get) {
                $0.expectProblem(.notFound, "unknown feed \"nope\".")
            }
            try await client.execute(uri: "/v1/feeds/%ZZ", method: .get) {
                $0.expectProblem(.badRequest, "percent-encoded")
            }
            try await client.execute(uri: "/v1/stats", method: .get) { response in
                #expect(response.status == .ok && (response.object["feeds"] as? [Any])?.count == 1)
            }
        }
    }

    /// Issue 53 item 5: a server keeps its feeds (with their named layouts) before it listens,
    /// so that its first reader finds them in memory: `/v1/stats` lists the feed kept before
    /// any page was asked for.
    @Test func aServerKeepsItsFeedsBeforeItListens() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/v1/stats", method: .get) { response in
                let hot = response.object["hot"] as? [[String: Any]]
                #expect(hot?.map { $0["feed"] as? String } == ["travel"])
            }
        }
    }

    @Test func imagesAndChanges() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/images", method: .get) { response in
                let expected = try await document(service.images(feed: "travel", offset: 0, limit: 50))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/images?offset=3&limit=2", method: .get) { response in
                let expected = try await document(service.images(feed: "travel", offset: 3, limit: 2))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/images?limit=0", method: .get) {
                $0.expectProblem(.badRequest, "limit must be between 1 and 100000, got 0.")
            }
            try await client.execute(uri: "/v1/feeds/travel/images?offset=-1", method: .get) {
                $0.expectProblem(.badRequest, "offset must be 0 or more, got -1.")
            }
            try await client.execute(uri: "/v1/feeds/travel/images?offset=1&offset=2", method: .get) {
                $0.expectProblem(.badRequest, "more than once")
            }
            try await client.execute(uri: "/v1/feeds/travel/changes?since=0", method: .get) { response in
                let expected = try await document(service.changes(feed: "travel", since: 0))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/sections", method: .get) { response in
                let expected = try await document(service.sections(feed: "travel"))
                #expect(response.text == expected)
                let sections = response.object["sections"] as? [[String: Any]] ?? []
                #expect(sections.count == 4 && sections.reduce(0) { $0 + ($1["images"] as? Int ?? 0) } == 13)
                #expect(sections.first?["id"] as? String == "2024-05" && sections.first?["title"] as? String != nil)
            }
            try await client.execute(uri: "/v1/feeds/travel/changes?since=-2", method: .get) {
                $0.expectProblem(.badRequest, "since must be a revision of 0 or more, got -2.")
            }
        }
    }

    @Test func pagesAndViewportsOfANamedLayout() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page?offset=2&limit=5", method: .get) {
                response in
                let expected = try await document(
                    service.page(feed: "travel", layout: .named("phone"), offset: 2, limit: 5))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page?page=1&pageSize=4", method: .get) {
                response in
                let expected = try await document(
                    service.page(feed: "travel", layout: .named("phone"), offset: 4, limit: 4))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page", method: .get) { response in
                let expected = try await document(
                    service.page(feed: "travel", layout: .named("phone"), offset: 0, limit: 50))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page?page=1&limit=4", method: .get) {
                $0.expectProblem(.badRequest, "page cannot be combined with limit.")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone/viewport?y=600&height=300&pinOffset=20", method: .get
            ) { response in
                let answer = try await service.viewport(
                    feed: "travel", layout: .named("phone"), y: 600, height: 300, pinOffset: 20)
                let expected = try document(answer)
                #expect(response.text == expected)
                #expect(answer.headers.contains { $0.pinned == true })
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/phone/viewport?y=600&height=300&pinHeaders=true", method: .get
            ) { response in
                let expected = try await document(
                    service.viewport(feed: "travel", layout: .named("phone"), y: 600, height: 300, pinOffset: 0))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/viewport?height=300", method: .get) {
                $0.expectProblem(.badRequest, "y is required.")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/viewport?y=nan&height=300", method: .get) {
                $0.expectProblem(.badRequest, "y must be a finite number of points, got nan.")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/viewport?y=0&height=-3", method: .get) {
                $0.expectProblem(.badRequest, "height must be a number of points above 0")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet/page", method: .get) {
                $0.expectProblem(.notFound, "unknown layout \"tablet\" for feed \"travel\".")
            }
        }
    }

    @Test func inlineConfigurationsAreQueryParametersNamedLikeTheirJSONKeys() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        let configuration = LayoutConfiguration(
            columns: 3, width: 414, columnSpacing: 6, rowSpacing: 8,
            sectionInset: EdgeInsets(top: 1, left: 2, bottom: 3, right: 4),
            headerHeight: 30, footerHeight: 12, headerInset: EdgeInsets(all: 2), captionHeight: 18,
            minimumContentHeight: 5000,
            order: .rightToLeft, scale: 3)
        let query =
            "columns=3&width=414&columnSpacing=6&rowSpacing=8&sectionInset=1,2,3,4&headerHeight=30&footerHeight=12"
            + "&headerInset=2&captionHeight=18&minimumContentHeight=5000&order=right-to-left&scale=3"
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/page?\(query)&offset=1&limit=6", method: .get) { response in
                let expected = try await document(
                    service.page(feed: "travel", layout: .inline(.waterfall(configuration)), offset: 1, limit: 6))
                #expect(response.text == expected)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/viewport?\(query)&y=100&height=500&pinOffset=10", method: .get
            ) { response in
                let expected = try await document(
                    service.viewport(
                        feed: "travel", layout: .inline(.waterfall(configuration)), y: 100, height: 500, pinOffset: 10))
                #expect(response.text == expected)
            }
            let failures: [(String, String)] = [
                ("width=300", "columns is required."),
                ("columns=2", "width is required."),
                ("columns=65&width=300", "columns must be a whole number from 1 to 64, got 65."),
                ("columns=two&width=300", "columns must be a whole number, got \"two\"."),
                ("columns=2&width=0", "width must be greater than 0"),
                ("columns=2&width=300&columnSpacing=400", "itemWidth must be greater than 0"),
                (
                    "columns=2&width=300&sectionInset=1,2",
                    "sectionInset takes one number or four comma-separated numbers"
                ),
                (
                    "columns=2&width=300&order=zigzag",
                    "order does not accept \"zigzag\"; expected one of shortest, left-to-right, right-to-left."
                ),
                ("columns=2&width=300&scale=4", "scale must be 1, 2 or 3, got 4."),
                ("columns=2&width=300&colums=3", "unknown query parameter \"colums\""),
                ("columns=2&width=300&limit=100001", "limit must be between 1 and 100000, got 100001."),
            ]
            for (parameters, fragment) in failures {
                try await client.execute(uri: "/v1/feeds/travel/page?\(parameters)", method: .get) {
                    $0.expectProblem(.badRequest, fragment)
                }
            }
        }
    }

    @Test func justifiedLayoutsTakeTheirKindInQueriesAndBodies() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        let configuration = AnyLayoutConfiguration.justified(
            JustifiedConfiguration(
                width: 414, rowHeight: 120, rowHeightTolerance: 0.4, columnSpacing: 4, lastRow: .center,
                headerHeight: 30, scale: 2))
        let query =
            "kind=justified&width=414&rowHeight=120&rowHeightTolerance=0.4&columnSpacing=4&lastRow=center&headerHeight=30&scale=2"
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel/page?\(query)&offset=2&limit=5", method: .get) { response in
                let expected = try await document(
                    service.page(feed: "travel", layout: .inline(configuration), offset: 2, limit: 5))
                #expect(response.text == expected)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/viewport?\(query)&y=50&height=400&pinOffset=0", method: .get
            ) { response in
                let expected = try await document(
                    service.viewport(feed: "travel", layout: .inline(configuration), y: 50, height: 400, pinOffset: 0))
                #expect(response.text == expected)
            }
            for (parameters, fragment) in [
                ("kind=justified&width=300", "rowHeight is required."),
                ("kind=justified&width=300&rowHeight=100&columns=3", "columns does not apply to a justified layout"),
                ("kind=justified&width=300&rowHeight=100&order=shortest", "order does not apply to a justified layout"),
                ("columns=3&width=300&rowHeight=100", "rowHeight does not apply to a waterfall layout"),
                ("kind=justified&width=300&rowHeight=100&lastRow=right", "lastRow"),
                ("kind=rows&width=300&rowHeight=100", "kind"),
            ] {
                try await client.execute(uri: "/v1/feeds/travel/page?\(parameters)", method: .get) {
                    $0.expectProblem(.badRequest, fragment)
                }
            }
            let json: HTTPFields = [.contentType: "application/json"]
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/rows", method: .put, headers: json,
                body: ByteBuffer(#"{"kind": "justified", "width": 414, "rowHeight": 120, "lastRow": "justify"}"#)
            ) { response in
                #expect(response.status == .created)
                #expect(response.text.hasPrefix(#"{"kind":"justified","width":414,"rowHeight":120,"#))
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/rows/page?offset=0&limit=4", method: .get) {
                response in
                let saved = AnyLayoutConfiguration.justified(
                    JustifiedConfiguration(width: 414, rowHeight: 120, lastRow: .justify))
                let expected = try await document(
                    service.page(feed: "travel", layout: .inline(saved), offset: 0, limit: 4))
                #expect(
                    response.text == expected.replacingOccurrences(of: #""layout":null"#, with: #""layout":"rows""#))
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json,
                body: ByteBuffer(#"{"kind": "justified", "width": 414, "rowHeight": 120, "columns": 3}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "columns does not apply to a justified layout")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json,
                body: ByteBuffer(#"{"kind": "justified", "width": 414, "rowHeight": 120, "rowheight": 3}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "unknown key \"rowheight\"")
            }
            // Per-section overrides (DESIGN section 14), kept in the order given.
            let steer =
                #"{"columns": 3, "width": 414, "sections": [{"section": "2024-06", "kind": "justified", "rowHeight": 90}, {"section": "2024-05", "columns": 1}]}"#
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/steer", method: .put, headers: json, body: ByteBuffer(string: steer)
            ) { response in
                #expect(response.status == .created)
                #expect(
                    response.text.contains(
                        #""sections":[{"section":"2024-06","kind":"justified","rowHeight":90},{"section":"2024-05","columns":1}]"#
                    ), "\(response.text)")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/steer/page?offset=0&limit=50", method: .get) {
                response in
                let saved = try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(steer.utf8))
                let expected = try await document(
                    service.page(feed: "travel", layout: .inline(saved), offset: 0, limit: 50))
                #expect(
                    response.text == expected.replacingOccurrences(of: #""layout":null"#, with: #""layout":"steer""#))
            }
            // Inline, the same overrides are the `sections` query parameter, as JSON.
            let inline =
                "columns=3&width=414&sections="
                + #"[{"section":"2024-06","kind":"justified","rowHeight":90},{"section":"2024-05","columns":1}]"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/v1/feeds/travel/page?offset=0&limit=50&\(inline)", method: .get) {
                response in
                let saved = try JSONDecoder().decode(AnyLayoutConfiguration.self, from: Data(steer.utf8))
                await #expect(
                    response.text
                        == (try document(service.page(feed: "travel", layout: .inline(saved), offset: 0, limit: 50))))
            }
            try await client.execute(uri: "/v1/feeds/travel/page?columns=3&width=414&sections=columns", method: .get) {
                $0.expectProblem(.badRequest, "sections takes the JSON list of the sections' own settings")
            }
            for (sections, fragment) in [
                (
                    #"[{"section": "a", "columns": 1}, {"section": "a", "columns": 2}]"#,
                    #"sections[1].section names "a" again"#
                ),
                (
                    #"[{"section": "a", "columns": 65}]"#,
                    "sections[0].columns must be a whole number from 1 to 64, got 65."
                ),
                (#"[{"section": "a", "width": 300}]"#, "sections[0].width cannot differ per section"),
                (#"[{"section": "a", "kind": "justified"}]"#, "sections[0].rowHeight is required"),
            ] {
                try await client.execute(
                    uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json,
                    body: ByteBuffer(string: #"{"columns": 3, "width": 414, "sections": "# + sections + "}")
                ) {
                    $0.expectProblem(.unprocessableContent, fragment)
                }
            }
        }
    }

    @Test func coverFlow() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            try await client.execute(
                uri: "/v1/feeds/travel/coverflow?itemHeight=120&viewportWidth=390&x=250", method: .get
            ) { response in
                let answer = try await service.coverFlow(
                    feed: "travel", configuration: CoverFlowConfiguration(itemHeight: 120), x: 250, viewportWidth: 390)
                let expected = try document(answer)
                #expect(response.text == expected)
            }
            try await client.execute(
                uri:
                    "/v1/feeds/travel/coverflow?itemHeight=120&viewportWidth=390&x=0&spacing=4&factor=0.01&sectionInset=0&scale=2",
                method: .get
            ) { response in
                let configuration = CoverFlowConfiguration(
                    itemHeight: 120, spacing: 4, sectionInset: .zero, factor: 0.01, scale: 2)
                let expected = try await document(
                    service.coverFlow(feed: "travel", configuration: configuration, x: 0, viewportWidth: 390))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/coverflow?itemHeight=120&viewportWidth=390", method: .get) {
                $0.expectProblem(.badRequest, "x is required.")
            }
            try await client.execute(uri: "/v1/feeds/travel/coverflow?itemHeight=0&viewportWidth=390&x=0", method: .get)
            {
                $0.expectProblem(.badRequest, "itemHeight must be greater than 0")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/coverflow?itemHeight=10&viewportWidth=390&x=inf", method: .get
            ) {
                $0.expectProblem(.badRequest, "x must be a finite number of points")
            }
        }
    }

    @Test func namedLayoutsAreSavedReadAndRemoved() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            let json: HTTPFields = [.contentType: "application/json"]
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/tablet", method: .put, headers: json,
                body: ByteBuffer(
                    #"{"columns": 4, "width": 768, "sectionInset": {"top": 0, "left": 8, "bottom": 0, "right": 8}}"#)
            ) { response in
                #expect(response.status == .created)
                let expected = try document(
                    LayoutConfiguration(
                        columns: 4, width: 768, sectionInset: EdgeInsets(top: 0, left: 8, bottom: 0, right: 8)))
                #expect(response.text == expected)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/tablet", method: .put, headers: json,
                body: ByteBuffer(#"{"columns": 5, "width": 768}"#)
            ) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet", method: .get) { response in
                let expected = try document(LayoutConfiguration(columns: 5, width: 768))
                #expect(response.text == expected)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts", method: .get) { response in
                let expected = try await document(LayoutList(layouts: try fixture.service.layouts(feed: "travel")))
                #expect(response.text == expected)
                #expect((response.object["layouts"] as? [Any])?.count == 2)
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json,
                body: ByteBuffer(#"{"columns": 0, "width": 768}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "columns must be a whole number from 1 to 64, got 0.")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json, body: ByteBuffer(#"{"width": 768}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "columns is required.")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: json, body: ByteBuffer("{")
            ) {
                $0.expectProblem(.unprocessableContent, "request body")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/layouts/bad", method: .put, headers: [.contentType: "text/plain"],
                body: ByteBuffer("{}")
            ) {
                $0.expectProblem(.unsupportedMediaType, "application/json")
            }
            try await client.execute(
                uri: "/v1/feeds/nope/layouts/x", method: .put, headers: json,
                body: ByteBuffer(#"{"columns": 2, "width": 300}"#)
            ) {
                $0.expectProblem(.notFound, "unknown feed \"nope\".")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet", method: .delete) {
                #expect($0.status == .noContent)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet", method: .get) {
                $0.expectProblem(.notFound, "unknown layout \"tablet\"")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/tablet", method: .delete) {
                $0.expectProblem(.notFound, "unknown layout")
            }
        }
    }

    @Test func importsThroughPut() async throws {
        let fixture = try await TestServer(
            limits: {
                var limits = ServerLimits()
                limits.maximumBodyBytes = 64 << 10
                return limits
            }())
        let travel = try String(contentsOfFile: TestServer.sampleData("travel.json"), encoding: .utf8)
        try await fixture.test { client in
            let json: HTTPFields = [.contentType: "application/json; charset=utf-8"]
            try await client.execute(uri: "/v1/feeds/travel", method: .put, headers: json, body: ByteBuffer(travel)) {
                response in
                #expect(response.status == .ok)
                #expect(
                    response.text
                        == #"{"feed":"travel","revision":1,"inserted":0,"updated":0,"moved":0,"removed":0,"unchanged":13}"#
                        + "\n")
            }
            let lines =
                #"{"id": "n1", "width": 300, "height": 200}"# + "\n"
                + #"{"id": "鳥", "width": 200, "height": 300, "section": "s"}"# + "\n"
            try await client.execute(
                uri: "/v1/feeds/lines", method: .put, headers: [.contentType: "application/x-ndjson"],
                body: ByteBuffer(lines)
            ) { response in
                #expect(response.status == .created)
                #expect(
                    response.text
                        == #"{"feed":"lines","revision":1,"inserted":2,"updated":0,"moved":0,"removed":0,"unchanged":0}"#
                        + "\n")
            }
            try await client.execute(
                uri: "/v1/feeds/lines?mode=append", method: .put, headers: json,
                body: ByteBuffer(#"{"images": [{"id": "n2", "width": 10, "height": 10}]}"#)
            ) { response in
                #expect(response.object["inserted"] as? Int == 1)
            }
            try await client.execute(uri: "/v1/feeds/other", method: .put, headers: json, body: ByteBuffer(travel)) {
                $0.expectProblem(
                    .unprocessableContent, "request body: feed: the document names feed \"travel\", not \"other\".")
            }
            try await client.execute(
                uri: "/v1/feeds/other", method: .put, headers: json,
                body: ByteBuffer(#"{"images": [{"id": "a", "width": 0, "height": 1}]}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "request body: images[0].width")
            }
            try await client.execute(
                uri: "/v1/feeds/other", method: .put, headers: json, body: ByteBuffer(#"{"images": ["#)
            ) {
                $0.expectProblem(.unprocessableContent, "request body")
            }
            try await client.execute(
                uri: "/v1/feeds/other", method: .put, headers: [.contentType: "text/csv"], body: ByteBuffer("id,width")
            ) {
                $0.expectProblem(.unsupportedMediaType, "text/csv")
            }
            try await client.execute(
                uri: "/v1/feeds/other?mode=append&resetOrder=true", method: .put, headers: json, body: ByteBuffer("{}")
            ) {
                $0.expectProblem(.badRequest, "resetOrder cannot be combined with mode=append.")
            }
            try await client.execute(
                uri: "/v1/feeds/other?mode=merge", method: .put, headers: json, body: ByteBuffer("{}")
            ) {
                $0.expectProblem(.badRequest, "mode must be snapshot or append")
            }
            let huge = #"{"images": [], "padding": ""# + String(repeating: "x", count: 70_000) + #""}"#
            try await client.execute(uri: "/v1/feeds/other", method: .put, headers: json, body: ByteBuffer(huge)) {
                $0.expectProblem(.contentTooLarge, "65536 bytes")
            }
            try await client.execute(uri: "/v1/feeds", method: .get) { response in
                #expect(
                    (response.object["feeds"] as? [[String: Any]])?.map { $0["name"] as? String } == [
                        "lines", "travel",
                    ])
            }
        }
    }

    @Test func reordersAndRemovals() async throws {
        let fixture = try await TestServer()
        let service = fixture.service
        try await fixture.test { client in
            let json: HTTPFields = [.contentType: "application/json"]
            let moves = ByteBuffer(#"{"moves": [{"id": "tram-28", "before": "lisbon-banner"}]}"#)
            try await client.execute(
                uri: "/v1/feeds/travel/reorder?dryRun=true", method: .post, headers: json, body: moves
            ) { response in
                #expect(response.object["moved"] as? Int == 1 && response.object["revision"] as? Int == 2)
            }
            await #expect(try service.feed(named: "travel").revision == 1)
            try await client.execute(uri: "/v1/feeds/travel/reorder", method: .post, headers: json, body: moves) {
                response in
                #expect(
                    response.text
                        == #"{"feed":"travel","revision":2,"inserted":0,"updated":0,"moved":1,"removed":0,"unchanged":0}"#
                        + "\n")
            }
            await #expect(try service.images(feed: "travel", offset: 0, limit: 1).images.first?.id == "tram-28")
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json,
                body: ByteBuffer(#"{"moves": [{"id": "belem", "after": "belem"}]}"#)
            ) {
                $0.expectProblem(.conflict, "request body: moves[0]: cannot move \"belem\" after itself.")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json,
                body: ByteBuffer(#"{"order": ["belem", "zz"]}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "unknown image id \"zz\"")
            }
            try await client.execute(
                uri: "/v1/feeds/travel/reorder", method: .post, headers: json,
                body: ByteBuffer(#"{"feed": "x", "order": ["belem"]}"#)
            ) {
                $0.expectProblem(.unprocessableContent, "names feed \"x\", not \"travel\"")
            }
            try await client.execute(uri: "/v1/feeds/travel/images/%E9%B3%A5%E5%B1%85", method: .delete) { response in
                #expect(response.object["removed"] as? Int == 1 && response.object["revision"] as? Int == 3)
            }
            try await client.execute(uri: "/v1/feeds/travel/images/%E9%B3%A5%E5%B1%85", method: .delete) {
                $0.expectProblem(.notFound, "unknown image id \"鳥居\" in feed \"travel\".")
            }
            await #expect(try service.feed(named: "travel").revision == 3)
        }
    }

    @Test func feedsAreDeletedWithEverythingOfThem() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/v1/feeds/travel", method: .delete) {
                #expect($0.status == .noContent && $0.body.readableBytes == 0)
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone/page", method: .get) {
                $0.expectProblem(.notFound, "unknown feed")
            }
            try await client.execute(uri: "/v1/feeds/travel", method: .delete) {
                $0.expectProblem(.notFound, "unknown feed \"travel\".")
            }
        }
        await #expect(try fixture.service.feeds().feeds.isEmpty)
    }

    @Test func unknownRoutesAndMethods() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            try await client.execute(uri: "/v2/feeds", method: .get) {
                $0.expectProblem(.notFound, "no route answers \"/v2/feeds\"")
            }
            try await client.execute(uri: "/v1/feeds/", method: .get) { $0.expectProblem(.notFound) }
            try await client.execute(uri: "/v1/feeds/travel/images", method: .post) { response in
                response.expectProblem(.methodNotAllowed, "does not take POST")
                #expect(response.headers[.allow] == "GET, HEAD")
            }
            try await client.execute(uri: "/v1/feeds/travel/layouts/phone", method: .patch) { response in
                #expect(response.headers[.allow] == "GET, PUT, DELETE, HEAD")
            }
            try await client.execute(uri: "/v1/feeds/travel", method: .head) { response in
                #expect(response.status == .ok && response.body.readableBytes == 0)
            }
        }
    }

    @Test func keptAnswersNeverOutliveAWrite() async throws {
        let fixture = try await TestServer()
        // Another connection (another process, in real life) writes between two identical reads.
        let other = try WaterfallService.open(path: fixture.folder.path("server.sqlite"))
        try await fixture.test { client in
            let uri = "/v1/feeds/travel/layouts/phone/page?offset=0&limit=3"
            let first = try await client.execute(uri: uri, method: .get) { $0.text }
            #expect(try await client.execute(uri: uri, method: .get) { $0.text } == first)
            _ = try await other.move(feed: "travel", id: "belem", to: .before("lisbon-banner"))
            let second = try await client.execute(uri: uri, method: .get) { $0.text }
            #expect(second != first)
            let expected = try await document(other.page(feed: "travel", layout: .named("phone"), offset: 0, limit: 3))
            #expect(second == expected)
        }
    }
}
