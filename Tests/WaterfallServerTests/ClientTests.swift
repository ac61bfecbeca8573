import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing
import Waterfall
import WaterfallClient
import WaterfallServer
import WaterfallTestSupport

/// The server through WaterfallClient, the client generated from its own `openapi.json`: every
/// read operation answers and decodes into the generated types, problems come back typed, a
/// stale `If-Match` is a 412, and the event stream reads as change events. A change to the
/// document that breaks a client breaks this suite (or the build).
@Suite(.onOwnThreads) struct ClientTests {
    @Test func changesArePagedAndAPrunedLogIsATypedGone() async throws {
        let fixture = try await TestServer(limits: Self.patientLimits)
        for step in 0..<260 {
            _ = try await fixture.service.move(feed: "travel", id: step % 2 == 0 ? "belem" : "tram-28", to: .index(0))
        }
        try await withAPI(fixture) { api in
            // Pages from revision 0 add up to the whole log
            var since = 0
            var rows = 0
            while true {
                let page = try await api.changes(feed: "travel", since: since, limit: 100)
                rows += page.changes.count
                guard let next = page.nextSince else { break }
                since = next
            }
            let whole = try await api.changes(feed: "travel").changes.count
            #expect(rows == 13 + 260 && rows == whole)
            // Pruned to the last 256 revisions, revision 0 is gone
            await #expect(try fixture.service.pruneChanges(keeping: .revisions(256)) == 13 + 4)
            do {
                _ = try await api.changes(feed: "travel", since: 0, limit: 10)
                Issue.record("a pruned log answered")
            } catch let problem as WaterfallProblem {
                #expect(problem.kind == .gone && problem.oldestSince == 5)
            }
        }
    }

    /// The server's limits, but a connection idle for ten minutes, not one, before it is closed:
    /// AsyncHTTPClient sends a request's body from a task of its own, on Swift's cooperative
    /// threads, which the suite's CPU-bound tests may hold for minutes; the server then closed
    /// the connection of a write whose body had not come (`remoteConnectionClosed`).
    static var patientLimits: ServerLimits {
        var limits = ServerLimits()
        limits.idleTimeout = .minutes(10)
        return limits
    }

    /// Runs `body` with a client of a live server (a real port) over the travel sample.
    func withAPI(_ fixture: TestServer? = nil, _ body: @escaping @Sendable (WaterfallAPI) async throws -> Void)
        async throws
    {
        let fixture = if let fixture { fixture } else { try await TestServer(limits: Self.patientLimits) }
        try await fixture.server.application().test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)"))
            // Timeouts for a hang, not a slow answer: beside the whole suite, whose synchronous
            // tests hold the two cooperative threads for minutes at a time, the server's
            // handlers may wait that long for a thread (one-minute timeouts failed there).
            let http = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: .init(timeout: .init(connect: .minutes(10), read: .minutes(10))))
            do {
                try await body(
                    WaterfallAPI(
                        serverURL: url,
                        transport: AsyncHTTPClientTransport(configuration: .init(client: http, timeout: .minutes(10)))))
            } catch {
                try await http.shutdown()
                throw error
            }
            try await http.shutdown()
        }
    }

    @Test func everyReadOperationAnswersAndDecodes() async throws {
        try await withAPI { api in
            let client = api.client
            // Given the travel sample and its layout `phone`, when every read is asked for,
            // then each answers 200 and its body decodes into the generated types.
            #expect(try await client.getHealth().ok.body.json.status == .ok)
            #expect(try await client.getGallery().ok.headers.xRequestID != nil)
            _ = try await client.getGalleryStyles().ok
            _ = try await client.getGalleryScript().ok
            _ = try await client.getGalleryModule(path: .init(module: "scroll.js")).ok
            let document = try await client.getOpenAPI().ok.body.json
            #expect(document.value["openapi"] as? String == "3.1.0")
            #expect(try await client.getAccess().ok.body.json.write == true)
            _ = try await client.getMetrics().ok
            #expect(try await client.getStats().ok.body.json.feeds.map(\.name) == ["travel"])
            #expect(try await client.listFeeds().ok.body.json.feeds.first?.images == 13)
            #expect(try await client.getFeed(path: .init(feed: "travel")).ok.body.json.sections == 4)
            let images = try await client.listImages(path: .init(feed: "travel"), query: .init(offset: 0, limit: 5)).ok
                .body.json
            #expect(images.images.map(\.id) == ["lisbon-banner", "tram-28", "azulejos", "pastel", "belem"])
            #expect(images.nextOffset == 5)
            let changes = try await client.listChanges(path: .init(feed: "travel"), query: .init(since: 0)).ok.body.json
            #expect(changes.changes.count == 13)
            // Three named sections and the unnamed one, whose id is null: decoded as nil.
            let sections = try await client.listSections(path: .init(feed: "travel")).ok.body.json.sections
            #expect(
                sections.count == 4 && sections.map(\.images).reduce(0, +) == 13 && sections.first?.id == "2024-05"
                    && sections.last?.id == nil)
            #expect(
                try await client.listLayouts(path: .init(feed: "travel")).ok.body.json.layouts.map(\.name) == ["phone"])
            guard
                case .LayoutConfiguration(let phone) = try await client.getLayout(
                    path: .init(feed: "travel", name: "phone")
                ).ok.body.json
            else {
                Issue.record("`phone` is a waterfall layout")
                return
            }
            #expect(phone.columns == 2 && phone.width == 375 && phone.headerHeight == 44)
            let page = try await client.getLayoutPage(
                path: .init(feed: "travel", name: "phone"), query: .init(offset: 0, limit: 4)
            ).ok.body.json
            #expect(page.items.count == 4 && page.layout == "phone" && page.nextOffset == 4)
            let viewport = try await client.getLayoutViewport(
                path: .init(feed: "travel", name: "phone"), query: .init(y: 0, height: 800)
            ).ok.body.json
            #expect(!viewport.items.isEmpty && viewport.height == 800)
            let sectionIndex = try await client.getLayoutSectionIndex(path: .init(feed: "travel", name: "phone")).ok
                .body.json
            #expect(sectionIndex.sections.count == 4)
            let inlinePage = try await client.getPage(
                path: .init(feed: "travel"), query: .init(limit: 13, columns: 3, width: 414)
            ).ok.body.json
            #expect(inlinePage.layout == nil && inlinePage.items.count == 13 && inlinePage.nextOffset == nil)
            let inlineViewport = try await client.getViewport(
                path: .init(feed: "travel"), query: .init(y: 100, height: 600, columns: 3, width: 414)
            ).ok.body.json
            #expect(inlineViewport.layout == nil && inlineViewport.y == 100)
            #expect(
                try await client.getSectionIndex(path: .init(feed: "travel"), query: .init(columns: 3, width: 414)).ok
                    .body.json.sections.count == 4)
            let coverFlow = try await client.getCoverFlow(
                path: .init(feed: "travel"), query: .init(itemHeight: 200, x: 0, viewportWidth: 375)
            ).ok.body.json
            #expect(!coverFlow.items.isEmpty)
            // The event stream is read in its own test.
        }
    }

    @Test func everyWriteOperationAnswersAndDecodes() async throws {
        try await withAPI { api in
            let client = api.client
            // Given a new feed imported as JSON, then 201 and what it inserted.
            let images: [Components.Schemas.FeedImage] = [
                .init(id: .case1("a"), width: 400, height: 300),
                .init(id: .case1("b"), width: 300, height: 400, section: .case1("later")),
                .init(id: .case2(7), width: 500, height: 500, span: .full),
            ]
            let created = try await client.importFeed(path: .init(feed: "new"), body: .json(.init(images: images)))
            guard case .created(let imported) = created else {
                Issue.record("a first import is not a 201: \(created)")
                return
            }
            #expect(try imported.body.json.inserted == 3 && imported.body.json.revision == 1)
            // When it is imported again in append mode with a fourth image, then 200.
            let appended = try await client.importFeed(
                path: .init(feed: "new"), query: .init(mode: .append),
                body: .json(.init(images: [.init(id: .case1("d"), width: 100, height: 100)])))
            #expect(try appended.ok.body.json.inserted == 1)

            // A layout saved (201), replaced (200), read back, and removed (204).
            let rows = Components.Schemas.AnyLayoutConfigurationInput.JustifiedConfigurationInput(
                .init(kind: .justified, width: 414, rowHeight: 150))
            guard case .created = try await client.putLayout(path: .init(feed: "new", name: "rows"), body: .json(rows))
            else {
                Issue.record("a new layout is not a 201")
                return
            }
            let wider = Components.Schemas.AnyLayoutConfigurationInput.JustifiedConfigurationInput(
                .init(kind: .justified, width: 600, rowHeight: 150))
            _ = try await client.putLayout(path: .init(feed: "new", name: "rows"), body: .json(wider)).ok
            guard
                case .JustifiedConfiguration(let saved) = try await client.getLayout(
                    path: .init(feed: "new", name: "rows")
                ).ok.body.json
            else {
                Issue.record("`rows` is not read back as justified rows")
                return
            }
            #expect(saved.width == 600 && saved.rowHeightTolerance == 0.25)
            _ = try await client.deleteLayout(path: .init(feed: "new", name: "rows")).noContent
            guard case .notFound = try await client.deleteLayout(path: .init(feed: "new", name: "rows")) else {
                Issue.record("a removed layout is found again")
                return
            }

            // A reorder of the whole order, then one image removed, then the feed.
            let order = Components.Schemas.ReorderDocument.ReorderOrder(
                .init(order: [.case1("d"), .case2(7), .case1("a"), .case1("b")]))
            #expect(try await client.reorderFeed(path: .init(feed: "new"), body: .json(order)).ok.body.json.moved > 0)
            let removed = try await client.deleteImage(path: .init(feed: "new", id: "a")).ok.body.json
            #expect(removed.removed == 1)
            let page = try await client.getPage(path: .init(feed: "new"), query: .init(columns: 2, width: 300)).ok.body
                .json
            #expect(page.items.map(\.id) == ["d", "7", "b"])
            _ = try await client.deleteFeed(path: .init(feed: "new")).noContent
            guard case .notFound = try await client.getFeed(path: .init(feed: "new")) else {
                Issue.record("a removed feed is found again")
                return
            }
        }
    }

    @Test func theShortFormsKeepTagsAndThrowTypedProblems() async throws {
        try await withAPI { api in
            // Given a page read with its tag, when it is read again with If-None-Match, then 304 (nil).
            let page = try await api.page(feed: "travel", layout: "phone", offset: 0, limit: 4)
            let tag = try #require(page.etag)
            #expect(try await api.page(feed: "travel", layout: "phone", offset: 0, limit: 4, ifNoneMatch: tag) == nil)
            #expect(try await api.feeds().map(\.name) == ["travel"])
            #expect(try await api.images(feed: "travel", limit: 2).value.images.count == 2)

            // An image located in a layout: the page of `limit` that holds it holds it there.
            let located = try await api.locate("tram-28", feed: "travel", layout: "phone", limit: 3)
            let holding = try await api.page(feed: "travel", layout: "phone", offset: located.offset, limit: 3).value
            let placed = try #require(holding.items.first { $0.id == "tram-28" })
            #expect(placed.index == located.index && placed.x == located.frame.x && placed.y == located.frame.y)
            await #expect { try await api.locate(takenBy: "2024-05-01", feed: "travel", layout: "phone") } throws: {
                ($0 as? WaterfallProblem)?.kind == .notFound
            }

            // An unknown feed is a typed 404, through the short form and the generated one.
            await #expect { try await api.feed("nowhere") } throws: { ($0 as? WaterfallProblem)?.kind == .notFound }
            guard case .notFound(let notFound) = try await api.client.getFeed(path: .init(feed: "nowhere")) else {
                Issue.record("an unknown feed is not a 404")
                return
            }
            #expect(try notFound.body.applicationProblemJson.detail.contains("nowhere"))

            // A configuration the server refuses is a 422 that names the field.
            let bad = Components.Schemas.AnyLayoutConfigurationInput.LayoutConfigurationInput(
                .init(columns: 0, width: 375))
            let refused = try await api.client.putLayout(path: .init(feed: "travel", name: "bad"), body: .json(bad))
            guard case .unprocessableContent(let problem) = refused else {
                Issue.record("columns 0 is not a 422: \(refused)")
                return
            }
            #expect(try problem.body.applicationProblemJson.detail.contains("columns"))

            // A move with the page's tag succeeds; the same tag again is a 412 and changes nothing.
            let moved = try await api.move("belem", .to(0), feed: "travel", ifMatch: tag)
            #expect(moved.revision == 2)
            await #expect {
                try await api.move("tram-28", .before("lisbon-banner"), feed: "travel", ifMatch: tag)
            } throws: { error in
                guard let problem = error as? WaterfallProblem else { return false }
                return problem.kind == .preconditionFailed && problem.status == 412
                    && problem.detail.contains("revision 2")
            }
            #expect(try await api.feed("travel").value.revision == 2)
        }
    }

    /// Views and share links through the short forms (DESIGN section 20): a view saved from its
    /// rule lists and lays out its members alone; a link reads its view (the server has no keys,
    /// the client sends none), pinned to
    /// its revision, then gone (a typed 404) once removed.
    @Test func viewsAndShareLinksThroughTheShortForms() async throws {
        try await withAPI { api in
            let rule = try JSONDecoder().decode(
                Components.Schemas.ViewRule.self, from: Data(#"{"where": {"aspect": {"min": 1.2}}}"#.utf8))
            let saved = try await api.saveView("wide", feed: "travel", rule: rule)
            let members = try await api.images(feed: "travel", view: "wide", limit: 100).value.images
            #expect(saved.images == members.count && members.count > 0)
            #expect(members.allSatisfy { Double($0.width) / Double($0.height) >= 1.2 })
            #expect(try await api.views(feed: "travel").value.views.map(\.name) == ["wide"])
            let page = try await api.page(feed: "travel", view: "wide", layout: "phone", limit: 100)
            #expect(page.value.items.map(\.id) == members.map(\.id))

            let link = try await api.share(feed: "travel", view: "wide", expires: "1d")
            let token = String(link.path.dropFirst("/s/".count))
            let root = try await api.shared(token: token)
            let revision = try #require(root.etag.flatMap { Int($0.dropFirst().prefix { $0 != "-" }) })
            let pinned = try await api.sharedPage(token: token, layout: "phone", limit: 100, revision: revision)
            #expect(pinned.value.items.map(\.id) == members.map(\.id))
            await #expect {
                try await api.sharedPage(token: token, layout: "phone", limit: 100, revision: revision + 1)
            } throws: { ($0 as? WaterfallProblem)?.kind == .gone }
            #expect(try await api.shares().shares.map(\.id) == [link.id])

            try await api.removeShare(id: link.id)
            try await Task.sleep(for: .milliseconds(600))
            await #expect { try await api.shared(token: token) } throws: {
                ($0 as? WaterfallProblem)?.kind == .notFound
            }
            try await api.removeView("wide", feed: "travel")
            await #expect { try await api.view("wide", feed: "travel") } throws: {
                ($0 as? WaterfallProblem)?.kind == .notFound
            }
        }
    }

    @Test func theEventStreamReadsAsChangeEvents() async throws {
        try await withAPI { api in
            // Given the stream from revision 0, then the import's revision comes first.
            let events = try await api.events(feed: "travel", since: 0)
            var iterator = events.makeAsyncIterator()
            let imported = try #require(try await iterator.next())
            #expect(imported.revision == 1 && imported.changes.count == 13)
            // When an image moves, then its revision follows, live.
            _ = try await api.move("belem", .after("gion"), feed: "travel")
            let moved = try #require(try await iterator.next())
            #expect(moved.revision == 2 && moved.changes.map(\.id) == ["belem"] && moved.changes.first?.kind == .move)
            // An unknown feed's stream does not start.
            await #expect { try await api.events(feed: "nowhere") } throws: {
                ($0 as? WaterfallProblem)?.kind == .notFound
            }
        }
    }
}
