import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// Views (DESIGN section 20) through the service on both engines: a view lists the feed's
/// images that match its rule, in the feed's order and sections, and every answer equals the
/// same question asked of a fresh catalog holding those images alone, before and after moves,
/// appends, removals and re-imports of the feed.
@Suite(.onOwnThreads(lane: .database)) struct ViewServiceTests {
    /// A seeded generator, so that a failure can be run again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The rules every test follows: on tags, dates, sections, shape, and all at once.
    static let rules: [String: String] = [
        "tagged": #"{"where": {"tags": {"all": ["a"], "none": ["c"]}}}"#,
        "any": #"{"where": {"tags": {"any": ["b", "c"]}}}"#,
        "spring": #"{"where": {"takenAt": {"from": "2020-03-01", "to": "2020-06-01T12:00"}}}"#,
        "middle": #"{"where": {"sections": ["s1", null]}}"#,
        "wide": #"{"where": {"aspect": {"min": 1.2}}}"#,
        "all":
            #"{"where": {"tags": {"any": ["a", "b"]}, "aspect": {"max": 2}, "sections": ["s0", "s2"], "takenAt": {"to": "2020-10-01T00:00:00Z"}}}"#,
        "everything": #"{}"#,
    ]

    /// An image of the test feeds, as the file gives it.
    struct Image {
        var id: String
        var section: String?
        var width: Int
        var height: Int
        var full: Bool
        var takenAt: String?
        var tags: [String]

        var json: String {
            var fields = [#""id": "\#(id)""#, #""width": \#(width)"#, #""height": \#(height)"#]
            if let section { fields.append(#""section": "\#(section)""#) }
            if full { fields.append(#""span": "full""#) }
            if let takenAt { fields.append(#""takenAt": "\#(takenAt)""#) }
            if !tags.isEmpty { fields.append(#""tags": [\#(tags.map { "\"\($0)\"" }.joined(separator: ", "))]"#) }
            return "{" + fields.joined(separator: ", ") + "}"
        }

        static func random(_ id: String, _ generator: inout Generator) -> Image {
            let sections: [String?] = ["s0", "s1", "s2", nil]
            let day = Int.random(in: 0..<365, using: &generator)
            var date = DateComponents(
                calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "UTC"), year: 2020, month: 1,
                day: 1, hour: Int.random(in: 0..<24, using: &generator)
            ).date!
            date.addTimeInterval(Double(day) * 86_400)
            let stamp = ISO8601DateFormatter().string(from: date)
            return Image(
                id: id, section: sections.randomElement(using: &generator)!,
                width: Int.random(in: 50...400, using: &generator), height: Int.random(in: 50...400, using: &generator),
                full: Int.random(in: 0..<12, using: &generator) == 0,
                takenAt: Int.random(in: 0..<8, using: &generator) == 0 ? nil : stamp,
                tags: ["a", "b", "c"].filter { _ in Bool.random(using: &generator) })
        }
    }

    static let sectionsJSON =
        #"[{"id": "s0", "title": "Zero"}, {"id": "s1", "title": "One"}, {"id": "s2", "title": "Two"}]"#

    static func feedJSON(_ images: [Image], sections: String = sectionsJSON) -> String {
        #"{"feed": "f", "sections": \#(sections), "images": [\#(images.map(\.json).joined(separator: ",\n"))]}"#
    }

    static let layouts: [LayoutSource] = [
        .inline(.waterfall(LayoutConfiguration(columns: 3, width: 375))),
        .named("rows"),
    ]

    /// Checks every view against a fresh catalog holding the images its rule selects from the
    /// feed as it is now, chosen here by the test's own reading of the rule.
    static func expectViewsMatchFreshCatalogs(_ catalog: TestCatalog, step: String) async throws {
        let listing = try await catalog.service.images(feed: "f", offset: 0, limit: 100_000)
        let titles = try await catalog.service.sections(feed: "f").sections
        let feed = try await catalog.service.feed(named: "f")
        for (name, json) in rules {
            let rule = try ViewRule(json: Array(json.utf8), source: name)
            let members = listing.images.filter { Self.oracle(rule, $0) }
            let view = catalog.service.inView(name)
            let listed = try await view.images(feed: "f", offset: 0, limit: 100_000)
            #expect(listed.images.map(\.id) == members.map(\.id), "\(step): view \(name) lists its members in order")
            #expect(listed.revision == feed.revision, "\(step): view \(name) is at its feed's revision")
            #expect(listed.images.map(\.index) == Array(0..<members.count))

            // A fresh catalog with the members alone, their sections declared with their titles
            let fresh = try TestCatalog(.sqlite)
            let used = Set(members.map(\.section))
            let declared = titles.filter { used.contains($0.id) && $0.id != nil }.map {
                #"{"id": "\#($0.id!)", "title": \#($0.title.map { "\"\($0)\"" } ?? "null")}"#
            }
            let images = members.map { image in
                Image(
                    id: image.id, section: image.section, width: image.width, height: image.height,
                    full: image.isFullSpan, takenAt: image.takenAt, tags: image.tags
                ).json
            }
            try await fresh.importJSON(
                #"{"feed": "f", "sections": [\#(declared.joined(separator: ","))], "images": [\#(images.joined(separator: ","))]}"#
            )
            try await fresh.service.addLayout(
                feed: "f", name: "rows", configuration: .justified(JustifiedConfiguration(width: 375, rowHeight: 90)))
            let sections = try await view.sections(feed: "f").sections
            #expect(sections == (try await fresh.service.sections(feed: "f").sections), "\(step): \(name) sections")
            for layout in layouts {
                for (offset, limit) in [(0, 7), (5, 30), (0, 1000)] {
                    var got = try await view.page(feed: "f", layout: layout, offset: offset, limit: limit)
                    var want = try await fresh.service.page(feed: "f", layout: layout, offset: offset, limit: limit)
                    (got.revision, got.incarnation, want.revision, want.incarnation) = (0, 0, 0, 0)
                    #expect(got == want, "\(step): view \(name), \(layout), page \(offset)+\(limit)")
                }
                var got = try await view.viewport(feed: "f", layout: layout, y: 100, height: 700)
                var want = try await fresh.service.viewport(feed: "f", layout: layout, y: 100, height: 700)
                (got.revision, got.incarnation, want.revision, want.incarnation) = (0, 0, 0, 0)
                #expect(got == want, "\(step): view \(name), \(layout), viewport")
                var index = try await view.sectionIndex(feed: "f", layout: layout)
                var freshIndex = try await fresh.service.sectionIndex(feed: "f", layout: layout)
                (index.revision, index.incarnation, freshIndex.revision, freshIndex.incarnation) = (0, 0, 0, 0)
                #expect(index == freshIndex, "\(step): view \(name), \(layout), section index")
            }
        }
    }

    /// The test's own reading of a rule, from the listing.
    static func oracle(_ rule: ViewRule, _ image: ImageList.Image) -> Bool {
        if let sections = rule.sections, !sections.contains(where: { $0 == image.section }) { return false }
        let aspect = Double(image.width) / Double(image.height)
        if let min = rule.aspectMin, aspect < min { return false }
        if let max = rule.aspectMax, aspect > max { return false }
        if rule.isOnDates {
            guard let text = image.takenAt, let taken = TakenAt.milliseconds(parsing: Array(text.utf8)) else {
                return false
            }
            let utc = TimeZone(identifier: "UTC")!
            if let from = rule.takenFrom?.milliseconds(in: utc), taken < from { return false }
            if let to = rule.takenTo?.milliseconds(in: utc), taken >= to { return false }
        }
        if !rule.allTags.allSatisfy(image.tags.contains) { return false }
        if !rule.anyTags.isEmpty && !rule.anyTags.contains(where: image.tags.contains) { return false }
        if rule.noneTags.contains(where: image.tags.contains) { return false }
        return true
    }

    static func addViews(_ catalog: TestCatalog) async throws {
        try await catalog.service.addLayout(
            feed: "f", name: "rows", configuration: .justified(JustifiedConfiguration(width: 375, rowHeight: 90)))
        for (name, json) in rules {
            _ = try await catalog.service.addView(
                feed: "f", name: name, rule: try ViewRule(json: Array(json.utf8), source: name))
        }
    }

    @Test(arguments: TestEngine.all)
    func viewsAnswerAsTheirImagesAloneWouldThroughRandomChanges(engine: TestEngine) async throws {
        var generator = Generator(state: 20_261_128)
        let catalog = try TestCatalog(engine)
        var images = (0..<80).map { Image.random("i\($0)", &generator) }
        try await catalog.importJSON(Self.feedJSON(images))
        try await Self.addViews(catalog)
        try await Self.expectViewsMatchFreshCatalogs(catalog, step: "first import")

        var next = 80
        for step in 0..<10 {
            let order = try await catalog.service.images(feed: "f", offset: 0, limit: 1000).images.map(\.id)
            switch step % 7 {
            case 0, 3:
                // Moves of the feed, some into other sections
                for _ in 0..<5 {
                    let id = order.randomElement(using: &generator)!
                    let other = order.filter { $0 != id }.randomElement(using: &generator)!
                    _ = try await catalog.service.move(
                        feed: "f", id: id, to: Bool.random(using: &generator) ? .before(other) : .after(other))
                }
            case 1:
                // An append
                let new = (0..<12).map { _ -> Image in
                    defer { next += 1 }
                    return Image.random("i\(next)", &generator)
                }
                images += new
                try await catalog.importJSON(Self.feedJSON(new), mode: .append)
            case 2:
                // Removals
                let gone = Array(order.shuffled(using: &generator).prefix(6))
                _ = try await catalog.service.remove(feed: "f", ids: gone)
                images.removeAll { gone.contains($0.id) }
            case 4:
                // A re-import that changes tags, sizes and dates of some, in the file's order
                let current = Set(order)
                images.removeAll { !current.contains($0.id) }
                for index in images.indices where Int.random(in: 0..<4, using: &generator) == 0 {
                    let other = Image.random(images[index].id, &generator)
                    images[index].tags = other.tags
                    images[index].takenAt = other.takenAt
                    if Bool.random(using: &generator) { images[index].width = other.width }
                }
                try await catalog.importJSON(Self.feedJSON(images))
            case 5:
                // A move given in a view is a move in the feed
                let view = catalog.service.inView("any")
                let members = try await view.images(feed: "f", offset: 0, limit: 1000).images.map(\.id)
                if members.count >= 2 {
                    _ = try await view.move(feed: "f", id: members.last!, to: .before(members.first!))
                }
            default:
                // Many moves at one spot: the feed renumbers keys to make room
                let anchor = order[order.count / 2]
                for id in order.shuffled(using: &generator).prefix(40) where id != anchor {
                    _ = try await catalog.service.move(feed: "f", id: id, to: .after(anchor))
                }
            }
            try await Self.expectViewsMatchFreshCatalogs(catalog, step: "step \(step)")
        }
    }

    @Test(arguments: TestEngine.all)
    func aViewListsItsCountsAndItsChangesNameWhatEntersAndLeavesIt(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(
            #"""
            {"feed": "f", "images": [
              {"id": "a", "width": 100, "height": 100, "tags": ["x"]},
              {"id": "b", "width": 100, "height": 100},
              {"id": "c", "width": 100, "height": 100, "tags": ["x"]}]}
            """#)
        let rule = try ViewRule(json: Array(#"{"where": {"tags": {"all": ["x"]}}}"#.utf8), source: "rule")
        let added = try await catalog.service.addView(feed: "f", name: "xs", rule: rule)
        #expect(added.images == 2 && added.sections == 1)
        #expect(rule.canonicalJSON == #"{"where":{"tags":{"all":["x"]}}}"#)
        let every = try ViewRule(
            json: Array(
                #"{"where": {"aspect": {"max": 2, "min": 0.5}, "sections": ["s", null], "takenAt": {"to": "2020-01-01", "from": "2019-01-01"}, "tags": {"none": ["n"], "any": ["y"], "all": ["x"]}}}"#
                    .utf8), source: "rule")
        #expect(
            every.canonicalJSON
                == #"{"where":{"tags":{"all":["x"],"any":["y"],"none":["n"]},"takenAt":{"from":"2019-01-01","to":"2020-01-01"},"sections":["s",null],"aspect":{"min":0.5,"max":2}}}"#
        )
        let list = try await catalog.service.views(feed: "f")
        #expect(list.views.map(\.name) == ["xs"] && list.views[0].rule == rule)

        // When b gains the tag and a loses it, and c moves
        let before = try await catalog.revision()
        try await catalog.importJSON(
            #"""
            {"feed": "f", "images": [
              {"id": "a", "width": 100, "height": 100},
              {"id": "b", "width": 100, "height": 100, "tags": ["x"]},
              {"id": "c", "width": 100, "height": 100, "tags": ["x"]}]}
            """#)
        _ = try await catalog.service.move(feed: "f", id: "c", to: .before("b"))

        // Then the view's changes name b entering, a leaving, c moving; nothing else
        let view = catalog.service.inView("xs")
        let changes = try await view.changes(feed: "f", since: before)
        #expect(changes.changes.map { "\($0.kind) \($0.id)" } == ["remove a", "insert b", "move c"])
        #expect(try await view.images(feed: "f", offset: 0, limit: 10).images.map(\.id) == ["c", "b"])

        // And a view of no feed's images is empty, an unknown view is refused, a removed one gone
        await #expect(throws: WaterfallError.unknownView(feed: "f", view: "nope")) {
            try await catalog.service.inView("nope").images(feed: "f", offset: 0, limit: 1)
        }
        try await catalog.service.removeView(feed: "f", name: "xs")
        await #expect(throws: WaterfallError.unknownView(feed: "f", view: "xs")) {
            try await view.images(feed: "f", offset: 0, limit: 1)
        }
        #expect(try await catalog.service.feeds().feeds.map(\.name) == ["f"])
    }

    @Test func aFeedHoldsAtMostItsViewsAndAViewSavedAgainIsAnotherIncarnation() async throws {
        let catalog = try TestCatalog()
        try await catalog.importJSON(#"{"feed": "f", "images": [{"id": "a", "width": 1, "height": 1}]}"#)
        let all = try ViewRule(json: Array("{}".utf8), source: "rule")
        for index in 0..<WaterfallService.maximumViewsPerFeed {
            _ = try await catalog.service.addView(feed: "f", name: "v\(index)", rule: all)
        }
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.addView(feed: "f", name: "one more", rule: all)
        }
        // Saving one again replaces it, as another incarnation: its old cursors are refused
        let view = catalog.service.inView("v0")
        let before = try await view.images(feed: "f", offset: 0, limit: 1)
        _ = try await catalog.service.addView(feed: "f", name: "v0", rule: all)
        let after = try await view.images(feed: "f", offset: 0, limit: 1)
        #expect(after.incarnation != before.incarnation && after.images == before.images)
    }
}
