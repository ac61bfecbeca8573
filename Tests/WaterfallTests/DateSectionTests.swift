import Foundation
import Testing
import WaterfallStore
import WaterfallSync
import WaterfallTestSupport

@testable import Waterfall

/// A timeline by date (DESIGN section 17): sections from `takenAt` in a time zone, date order
/// that survives growth and user moves, and moves that may not leave their date.
@Suite(.onOwnThreads(lane: .database)) struct DateSectionTests {
    /// Zones with daylight saving time (New York: 2017-03-12 and 2017-11-05), the earliest
    /// offset there is (+14:00), and a negative offset whose local midnight is mid-day in UTC.
    static let zones = ["UTC", "America/New_York", "Pacific/Kiritimati", "America/Los_Angeles"]

    /// An image of a test feed: an instant in seconds (`nil`: undated), written with an offset
    /// of `offsetMinutes`, and maybe a `section` field the date sections ignore.
    struct Photo {
        var id: String
        var seconds: Int64?
        var offsetMinutes = 0
        var section: String?
        var width = 300
    }

    /// RFC 3339 with the given offset, written by Foundation (not by the code under test).
    static func rfc3339(_ seconds: Int64, offsetMinutes: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(secondsFromGMT: offsetMinutes * 60)!
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func seconds(_ text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return Int64(formatter.date(from: text)!.timeIntervalSince1970)
    }

    static func feedJSON(_ photos: [Photo], sectionBy: String? = nil, timeZone: String? = nil) -> String {
        var top = ["\"feed\":\"f\""]
        if let sectionBy { top.append("\"sectionBy\":\"\(sectionBy)\"") }
        if let timeZone { top.append("\"timeZone\":\"\(timeZone)\"") }
        let images = photos.map { photo in
            var fields = ["\"id\":\"\(photo.id)\"", "\"width\":\(photo.width)", "\"height\":200"]
            if let seconds = photo.seconds {
                fields.append("\"takenAt\":\"\(rfc3339(seconds, offsetMinutes: photo.offsetMinutes))\"")
            }
            if let section = photo.section { fields.append("\"section\":\"\(section)\"") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "{" + top.joined(separator: ",") + ",\"images\":[" + images.joined(separator: ",") + "]}"
    }

    /// A random library: instants around the DST changes of 2017, around local and UTC
    /// midnights, anywhere in 2016–2018, ties, undated images, random offsets, stray sections.
    static func randomLibrary(seed: UInt64, count: Int) -> [Photo] {
        var random = SeededGenerator(seed: seed)
        let anchors = [
            seconds("2017-03-12T07:00:00Z"), seconds("2017-11-05T06:00:00Z"), seconds("2017-12-31T10:00:00Z"),
            seconds("2017-06-01T00:00:00Z"), seconds("2018-01-01T00:00:00Z"),
        ]
        var photos: [Photo] = []
        for index in 0..<count {
            var photo = Photo(id: "p\(index)")
            switch Int.random(in: 0..<10, using: &random) {
            case 0: photo.seconds = nil
            case 1 where !photos.isEmpty: photo.seconds = photos.randomElement(using: &random)!.seconds  // a tie
            case 2...5:
                photo.seconds =
                    anchors.randomElement(using: &random)! + Int64.random(in: -14 * 3600...14 * 3600, using: &random)
            default:
                photo.seconds = seconds("2016-01-01T00:00:00Z") + Int64.random(in: 0..<3 * 365 * 86_400, using: &random)
            }
            photo.offsetMinutes = Int.random(in: -12 * 4...14 * 4, using: &random) * 15
            if Int.random(in: 0..<3, using: &random) == 0 { photo.section = "s\(index % 3)" }
            photos.append(photo)
        }
        return photos
    }

    /// The sections and order DESIGN section 17 asks for, computed here with Foundation's
    /// Gregorian calendar in `zone`: "section/id" strings, and each section's title.
    static func reference(_ photos: [Photo], sectionBy: SectionBy, zone: String) -> (
        order: [String], titles: [String: String]
    ) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat =
            switch sectionBy {
            case .day: "d MMMM yyyy"
            case .month: "MMMM yyyy"
            default: "yyyy"
            }
        var sectionOf: [String: String] = [:]
        var titles: [String: String] = ["undated": "Undated"]
        for photo in photos {
            guard let seconds = photo.seconds else {
                sectionOf[photo.id] = "undated"
                continue
            }
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let id =
                switch sectionBy {
                case .day: String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
                case .month: String(format: "%04d-%02d", parts.year!, parts.month!)
                default: String(format: "%04d", parts.year!)
                }
            sectionOf[photo.id] = id
            titles[id] = formatter.string(from: date)
        }
        let ranked = photos.enumerated().sorted { left, right in
            let (a, b) = (sectionOf[left.element.id]!, sectionOf[right.element.id]!)
            if a != b { return a == "undated" ? false : b == "undated" ? true : a > b }
            let (x, y) = (left.element.seconds ?? .min, right.element.seconds ?? .min)
            if x != y { return x > y }
            return left.offset < right.offset
        }
        return (ranked.map { "\(sectionOf[$0.element.id]!)/\($0.element.id)" }, titles)
    }

    func titles(_ catalog: TestCatalog) async throws -> [String: String] {
        try await catalog.service.database.read { tx in
            let feed = try tx.feed(named: "f")!
            return Dictionary(uniqueKeysWithValues: try tx.sections(feedID: feed.id).map { ($0.name!, $0.title!) })
        }
    }

    // MARK: Sections from dates

    @Test(arguments: TestEngine.all, zones)
    func dateSectionsOfARandomLibraryEqualAReferenceComputedWithTheCalendar(engine: TestEngine, zone: String)
        async throws
    {
        for (seed, sectionBy) in [(UInt64(1), SectionBy.day), (2, .month), (3, .year)] {
            // Given a random library with dates around DST changes and midnights
            let catalog = try TestCatalog(engine)
            let photos = Self.randomLibrary(seed: seed &* 31 &+ UInt64(zone.utf8.count), count: 160)
            // When it is imported with date sections in the zone
            let summary = try await catalog.importJSON(
                Self.feedJSON(photos, sectionBy: sectionBy.rawValue, timeZone: zone))
            // Then sections, their order and titles, and the images' order are the reference's
            let expected = Self.reference(photos, sectionBy: sectionBy, zone: zone)
            #expect(try await catalog.order() == expected.order, "seed \(seed), \(sectionBy) in \(zone)")
            let titles = try await titles(catalog)
            #expect(
                titles == expected.titles.filter { titles[$0.key] != nil }
                    && titles.count == Set(expected.order.map { $0.split(separator: "/")[0] }).count)
            #expect(summary.sectionFieldsIgnored == photos.filter { $0.section != nil }.count)
        }
    }

    /// The ids of many images, found with the zone's offset remembered a UTC day, equal the
    /// calendar's answer for each instant alone: around transitions, in zones of half and
    /// quarter hours, with a transition at midnight, and in years before standard time.
    @Test(arguments: [
        "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/Sao_Paulo", "Europe/Paris",
        "Pacific/Apia",
    ])
    func idsFoundWithTheOffsetRememberedADayEqualTheCalendars(zone: String) throws {
        var random = SeededGenerator(seed: 99)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        for sectionBy in [SectionBy.day, .month] {
            let sections = try #require(DateSections(sectionBy: sectionBy, zoneName: zone))
            var cache = DateSections.Cache()
            for _ in 0..<20_000 {
                // Mostly within a few hours of the year's transitions, some anywhere from 1850 on.
                let seconds =
                    Bool.random(using: &random)
                    ? Int64.random(in: -3_786_825_600...4_102_444_800, using: &random)
                    : Self.seconds(
                        "20\(Int.random(in: 10...30, using: &random))-0\(Int.random(in: 3...4, using: &random))-0\(Int.random(in: 1...9, using: &random))T00:00:00Z"
                    )
                        + Int64.random(in: -86_400 * 30...86_400 * 30, using: &random)
                let milliseconds = seconds * 1000 + Int64.random(in: 0..<1000, using: &random)
                let parts = calendar.dateComponents(
                    [.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(seconds)))
                let expected =
                    sectionBy == .day
                    ? String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
                    : String(format: "%04d-%02d", parts.year!, parts.month!)
                #expect(sections.sectionID(of: milliseconds, &cache) == expected, "\(zone) \(seconds)")
            }
        }
    }

    @Test func aDSTChangeAndA14HourOffsetDecideTheDay() throws {
        // 2017-03-12 06:59Z is 01:59 EST; 07:00Z is 03:00 EDT: both on the 12th in New York,
        // while 04:59Z on the 12th is still the 11th there. Kiritimati (+14:00) is a day ahead.
        let newYork = try #require(DateSections(sectionBy: .day, zoneName: "America/New_York"))
        let kiritimati = try #require(DateSections(sectionBy: .day, zoneName: "Pacific/Kiritimati"))
        let ms = { (text: String) in Self.seconds(text) * 1000 }
        #expect(newYork.sectionID(of: ms("2017-03-12T06:59:59Z")) == "2017-03-12")
        #expect(newYork.sectionID(of: ms("2017-03-12T07:00:00Z")) == "2017-03-12")
        #expect(newYork.sectionID(of: ms("2017-03-12T04:59:59Z")) == "2017-03-11")
        #expect(newYork.sectionID(of: ms("2017-11-05T04:30:00Z")) == "2017-11-05")  // 00:30 EDT
        #expect(newYork.sectionID(of: ms("2017-11-06T04:30:00Z")) == "2017-11-05")  // 23:30 EST
        #expect(kiritimati.sectionID(of: ms("2017-12-31T10:00:00Z")) == "2018-01-01")
        #expect(kiritimati.title(of: "2018-01-01") == "1 January 2018")
    }

    // MARK: Order that survives growth

    /// A small dated library: two images in November 2017, two in September, one undated.
    static let library = [
        Photo(id: "nov20", seconds: seconds("2017-11-20T12:00:00Z")),
        Photo(id: "nov10", seconds: seconds("2017-11-10T12:00:00Z")),
        Photo(id: "sep30", seconds: seconds("2017-09-30T12:00:00Z")),
        Photo(id: "sep05", seconds: seconds("2017-09-05T12:00:00Z")),
        Photo(id: "old", seconds: nil),
    ]

    @Test(arguments: TestEngine.all)
    func reImportingTheSameLibraryChangesNothing(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month"))
        let again = try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month"))
        #expect(again.moved == 0 && again.inserted == 0 && again.updated == 0 && again.revision == 1)
        #expect(again.unchanged == 5 && again.sectionFieldsIgnored == 0)
        // The feed remembers its date sections: the same file without sectionBy changes nothing either.
        let remembered = try await catalog.importJSON(Self.feedJSON(Self.library))
        #expect(remembered.revision == 1 && remembered.sectionFieldsIgnored == 0)
    }

    @Test(arguments: TestEngine.all, [ImportMode.append, .snapshot])
    func newImagesLandBeforeTheFirstOlderImageOfTheirSection(engine: TestEngine, mode: ImportMode) async throws {
        // Given the library by month
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month"))
        #expect(
            try await catalog.order() == [
                "2017-11/nov20", "2017-11/nov10", "2017-09/sep30", "2017-09/sep05", "undated/old",
            ])
        // When images are added: the newest of all, one between, one tying nov10, one in a new
        // month between the two, one undated (the feed remembers sectionBy)
        let added = [
            Photo(id: "nov25", seconds: Self.seconds("2017-11-25T12:00:00Z")),
            Photo(id: "nov15", seconds: Self.seconds("2017-11-15T12:00:00Z")),
            Photo(id: "tie10", seconds: Self.seconds("2017-11-10T12:00:00Z")),
            Photo(id: "oct01", seconds: Self.seconds("2017-10-01T12:00:00Z"), offsetMinutes: -240),
            Photo(id: "older", seconds: nil),
        ]
        let photos = mode == .append ? added : Self.library + added
        let summary = try await catalog.importJSON(Self.feedJSON(photos), mode: mode)
        // Then each is placed in date order, the new month in its date's place
        #expect(summary.inserted == 5 && summary.moved == 0)
        #expect(
            try await catalog.order() == [
                "2017-11/nov25", "2017-11/nov20", "2017-11/nov15", "2017-11/nov10", "2017-11/tie10",
                "2017-10/oct01", "2017-09/sep30", "2017-09/sep05", "undated/old", "undated/older",
            ])
        #expect(try await titles(catalog)["2017-10"] == "October 2017")
    }

    @Test(arguments: TestEngine.all)
    func aMoveWithinASectionSurvivesReImportsAndAppends(engine: TestEngine) async throws {
        // Given the library, where the user moved sep05 before sep30
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month"))
        let move = try await catalog.service.move(feed: "f", id: "sep05", to: .before("sep30"))
        #expect(move.moved == 1)
        // When the same library is imported again, then an image of mid-September appended
        let again = try await catalog.importJSON(Self.feedJSON(Self.library))
        try await catalog.importJSON(
            Self.feedJSON([Photo(id: "sep20", seconds: Self.seconds("2017-09-20T12:00:00Z"))]), mode: .append)
        // Then the move is kept, and the new image goes before the first older one in the
        // section's order as the user left it (sep05 is older, and first)
        #expect(again.moved == 0 && again.revision == move.revision)
        #expect(
            try await catalog.order() == [
                "2017-11/nov20", "2017-11/nov10", "2017-09/sep20", "2017-09/sep05", "2017-09/sep30", "undated/old",
            ])
        // And --reset-order adopts the date order again
        try await catalog.importJSON(
            Self.feedJSON(Self.library + [Photo(id: "sep20", seconds: Self.seconds("2017-09-20T12:00:00Z"))]),
            resetOrder: true)
        #expect(
            try await catalog.order() == [
                "2017-11/nov20", "2017-11/nov10", "2017-09/sep30", "2017-09/sep20", "2017-09/sep05", "undated/old",
            ])
    }

    @Test(arguments: TestEngine.all)
    func aMoveIntoAnotherDateSectionIsRefusedAndChangesNothing(engine: TestEngine) async throws {
        // Given the library by month
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month"))
        let before = try await catalog.order()
        // When an image is moved next to one of another month, or an order list swaps months
        await #expect(
            throws: WaterfallError.moveAcrossDateSections(
                feed: "f", id: "sep05", from: "2017-09", to: "2017-11", sectionBy: "month", place: "")
        ) {
            try await catalog.service.move(feed: "f", id: "sep05", to: .after("nov20"))
        }
        let error = await #expect(throws: WaterfallError.self) {
            try await catalog.service.reorder(
                ReorderDocument(operations: .order(["sep30", "nov20", "nov10", "sep05"])), feed: "f",
                source: "order.json")
        }
        // Then both are refused with one sentence, and nothing changed
        #expect(
            error?.sentence(naming: { "\($0)" })
                == "order.json: order[0]: cannot move \"sep30\" from section \"2017-09\" into section \"2017-11\": feed \"f\" has sections by month, so an image's date decides its section."
        )
        let (after, revision) = (try await catalog.order(), try await catalog.revision())
        #expect(after == before && revision == 1)
        // While a move inside the month is an ordinary move
        #expect(try await catalog.service.move(feed: "f", id: "nov10", to: .index(0)).moved == 1)
    }

    // MARK: An append reads what it touches

    /// Three days of eight images each, by day, in UTC.
    static let threeDays = ["2017-11-20", "2017-11-21", "2017-11-22"].flatMap { day in
        [22, 20, 18, 15, 12, 10, 7, 5].map { hour in
            Photo(id: "\(day)-\(hour)", seconds: seconds("\(day)T\(two(hour)):00:00Z"))
        }
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    func keys(_ catalog: TestCatalog) async throws -> [String: Int64] {
        try await catalog.service.database.read { tx in
            Dictionary(
                uniqueKeysWithValues: try tx.allImages(feedID: try tx.feed(named: "f")!.id).map {
                    ($0.externalID, $0.key)
                })
        }
    }

    @Test(arguments: TestEngine.all)
    func anAppendToOneDayReadsOnlyItAndLeavesTheFeedInTheOrderOfAFullImport(engine: TestEngine) async throws {
        // Given three days by day
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.threeDays, sectionBy: "day"))
        let before = try await keys(catalog)
        // When images of the middle day are appended: one between, one tying, the oldest of the day
        let added = ["19:00", "10:00", "01:00"].enumerated().map { index, time in
            Photo(id: "new\(index)", seconds: Self.seconds("2017-11-21T\(time):00Z"))
        }
        let document = try FeedDecoder().decode(Array(Self.feedJSON(added).utf8), format: .json, source: "t.json")
        let read = try await catalog.service.database.read { tx in
            let feed = try tx.feed(named: "f")!
            let dates = try #require(
                try WaterfallService.dateSections(options: .init(mode: .append), document: document, feed: feed))
            return try CatalogSnapshot.touchedByAppend(
                to: feed, of: document, derived: dates.derive(document.images), tx
            ).images.map(\.externalID)
        }
        let summary = try await catalog.service.importFeed(document, named: "f", options: .init(mode: .append))
        // Then the append read the other days' first and last images only, and of its day the
        // images beside which the new ones land
        #expect(
            read == [
                "2017-11-22-22", "2017-11-22-5",
                "2017-11-21-22", "2017-11-21-20", "2017-11-21-18", "2017-11-21-10", "2017-11-21-7", "2017-11-21-5",
                "2017-11-20-22", "2017-11-20-5",
            ])
        // And every image kept its key, and the order is the one a full import of all makes
        #expect(summary.inserted == 3 && summary.moved == 0)
        let after = try await keys(catalog)
        #expect(before.allSatisfy { after[$0.key] == $0.value })
        let full = try TestCatalog(engine)
        try await full.importJSON(Self.feedJSON(Self.threeDays + added, sectionBy: "day"))
        #expect(try await catalog.order() == full.order())
    }

    /// The append of the whole feed's plan (what the service did before it read only what an
    /// append touches), to compare with.
    static func appendPlanningTheWholeFeed(_ catalog: TestCatalog, _ document: FeedDocument) async throws
        -> ChangeSummary
    {
        try await catalog.service.database.write(.feed("f")) { tx in
            let feed = try tx.feed(named: "f")!
            let dates = try #require(
                try WaterfallService.dateSections(options: .init(mode: .append), document: document, feed: feed))
            let whole = try CatalogSnapshot.whole(feed, tx)
            let derived = dates.derive(document.images)
            let plan = ImportPlanner.plan(
                catalog: whole, document: document, mode: .append, resetOrder: false, dates: (dates, derived))
            var applier = ImportApplier(
                tx: tx, feed: feed, catalog: whole, document: document, plan: plan, progress: nil)
            var summary = try applier.apply(feedCreated: false)
            summary.sectionFieldsIgnored = derived.sectionFieldsIgnored
            return summary
        }
    }

    /// Everything an append may change, with sections by name: sections, images, the change
    /// log, the count, the layout cache's coverage.
    static func contents(_ catalog: TestCatalog) async throws -> [String] {
        try await catalog.service.database.read { tx in
            let feed = try tx.feed(named: "f")!
            let sections = try tx.sections(feedID: feed.id)
            let names = Dictionary(uniqueKeysWithValues: sections.map { ($0.id, $0.name ?? "-") })
            return ["\(feed.revision) \(feed.imageCount)"]
                + sections.map { "\($0.name ?? "-") \($0.title ?? "-") \($0.position) \($0.isDeclared)" }
                + (try tx.allImages(feedID: feed.id)).map {
                    "\($0.key) \($0.externalID) \(names[$0.sectionID]!) \($0.width) \($0.takenAt.map(String.init) ?? "-")"
                }
                + (try tx.changes(feedID: feed.id, since: 0)).map { "\($0)" }
                + (try tx.cacheCoverage()).map { "\($0.checkpoints) \($0.isComplete)" }
        }
    }

    /// A random append to `library`: new images (undated, tying a date of the library, a
    /// minute from one, anywhere), and images of the library again, unchanged, resized, taken
    /// a little earlier or later, or at another time altogether (or undated).
    static func randomAppend(to library: [Photo], _ random: inout SeededGenerator) -> [Photo] {
        var photos: [Photo] = []
        for index in 0..<30 {
            var photo = Photo(id: "n\(index)")
            let near = library.randomElement(using: &random)!.seconds
            switch Int.random(in: 0..<6, using: &random) {
            case 0: photo.seconds = nil
            case 1: photo.seconds = near
            case 2: photo.seconds = near.map { $0 + Int64.random(in: -60...60, using: &random) }
            default:
                photo.seconds = seconds("2016-01-01T00:00:00Z") + Int64.random(in: 0..<3 * 365 * 86_400, using: &random)
            }
            photo.offsetMinutes = Int.random(in: -12...14, using: &random) * 60
            photos.append(photo)
        }
        for photo in library.shuffled(using: &random).prefix(15) {
            var again = photo
            switch Int.random(in: 0..<5, using: &random) {
            case 0: break
            case 1: again.width = 500
            case 2: again.seconds = photo.seconds.map { $0 + Int64.random(in: -3600...3600, using: &random) }
            case 3: again.seconds = nil
            default:
                again.seconds = seconds("2016-01-01T00:00:00Z") + Int64.random(in: 0..<3 * 365 * 86_400, using: &random)
            }
            photos.append(again)
        }
        return photos.shuffled(using: &random)
    }

    /// The append plans against the images it touches (``CatalogSnapshot/touchedByAppend(to:of:derived:_:)``)
    /// and writes exactly what the plan of the whole feed writes: over random libraries by
    /// day, month and year, after user moves within sections, with images that change date or
    /// section, and with every gap closed (a renumbering, planned over the whole feed).
    @Test(arguments: TestEngine.all)
    func anAppendPlannedOnWhatItTouchesWritesWhatAPlanOfTheWholeFeedWrites(engine: TestEngine) async throws {
        let layout = LayoutSource.inline(.waterfall(LayoutConfiguration(columns: 2, width: 375)))
        for seed in UInt64(1)...(engine == .sqlite ? 16 : 6) {
            var random = SeededGenerator(seed: seed)
            let sectionBy = ["day", "month", "year"][Int(seed % 3)]
            let zone = Self.zones[Int(seed % 4)]
            let library = Self.randomLibrary(seed: seed, count: 120)
            // Given the same library in two catalogs, with the same moves within sections
            let (touched, whole) = (try TestCatalog(engine), try TestCatalog(engine))
            for catalog in [touched, whole] {
                try await catalog.importJSON(Self.feedJSON(library, sectionBy: sectionBy, timeZone: zone))
            }
            let order = try await touched.order().map { $0.split(separator: "/").map(String.init) }
            for _ in 0..<12 {
                let (a, b) = (order.randomElement(using: &random)!, order.randomElement(using: &random)!)
                guard a[0] == b[0], a[1] != b[1] else { continue }
                for catalog in [touched, whole] {
                    _ = try await catalog.service.move(feed: "f", id: a[1], to: .before(b[1]))
                }
            }
            if seed % 4 == 0 {
                // Every gap closed: the images keyed 1, 2, 3, …
                for catalog in [touched, whole] {
                    try await catalog.service.database.write { tx in
                        let feed = try tx.feed(named: "f")!
                        let images = try tx.allImages(feedID: feed.id)
                        try tx.rekeyImages(
                            feedID: feed.id, images.enumerated().map { ($0.element.key, Int64($0.offset + 1), nil) })
                    }
                }
            }
            for catalog in [touched, whole] {
                _ = try await catalog.service.page(feed: "f", layout: layout, offset: 0, limit: 200)
            }
            // When the same random append is made, planned on what it touches, and over the whole feed
            let added = Self.randomAppend(to: library, &random)
            let document = try FeedDecoder().decode(Array(Self.feedJSON(added).utf8), format: .json, source: "t.json")
            let summary = try await touched.service.importFeed(document, named: "f", options: .init(mode: .append))
            let expected = try await Self.appendPlanningTheWholeFeed(whole, document)
            // Then both wrote the same
            #expect(summary == expected, "seed \(seed)")
            #expect(try await Self.contents(touched) == Self.contents(whole), "seed \(seed)")
            if seed % 4 == 0 {
                await #expect(try keys(touched).values.min() == OrderKeys.spacing, "renumbered, seed \(seed)")
            }
        }
    }

    // MARK: The section index

    @Test(arguments: TestEngine.all)
    func theSectionIndexGivesEachSectionsFirstAndLastDate(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(Self.feedJSON(Self.library, sectionBy: "month", timeZone: "Europe/Paris"))
        let index = try await catalog.service.sectionIndex(
            feed: "f", layout: .inline(.waterfall(LayoutConfiguration(columns: 2, width: 375))))
        #expect(index.sections.map(\.section) == ["2017-11", "2017-09", "undated"])
        #expect(index.sections.map(\.firstTakenAt) == ["2017-11-10T12:00:00Z", "2017-09-05T12:00:00Z", nil])
        #expect(index.sections.map(\.lastTakenAt) == ["2017-11-20T12:00:00Z", "2017-09-30T12:00:00Z", nil])
        #expect(index.sections.map(\.title) == ["November 2017", "September 2017", "Undated"])
    }

    @Test(arguments: TestEngine.all)
    func imagesAndPagesGiveTakenAtInUTCOnlyWhenKnown(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        try await catalog.importJSON(
            Self.feedJSON([
                Photo(id: "a", seconds: Self.seconds("2017-11-14T15:28:13Z"), offsetMinutes: 60),
                Photo(id: "b", seconds: nil),
            ]))
        let images = try await catalog.service.images(feed: "f", offset: 0, limit: 10).images
        #expect(images.map(\.takenAt) == ["2017-11-14T15:28:13Z", nil])
        let page = try await catalog.service.page(
            feed: "f", layout: .inline(.waterfall(LayoutConfiguration(columns: 2, width: 375))), offset: 0, limit: 10)
        #expect(page.items.map(\.takenAt) == ["2017-11-14T15:28:13Z", nil])
    }

    @Test(arguments: TestEngine.all)
    func anOptionOverridesTheFileAndAZoneWithoutDateSectionsIsRefused(engine: TestEngine) async throws {
        let catalog = try TestCatalog(engine)
        let document = try FeedDecoder().decode(
            Array(Self.feedJSON(Self.library, sectionBy: "month").utf8), format: .json, source: "t.json")
        _ = try await catalog.service.importFeed(
            document, named: "f", options: .init(sectionBy: .year, timeZone: "Asia/Tokyo"))
        #expect(try await catalog.sections() == ["2017", "undated"])
        await #expect(
            throws: WaterfallError.invalidValue(
                .timeZone, "must be an IANA time zone name such as Europe/Paris or UTC, got \"Mars\".")
        ) {
            try await catalog.service.importFeed(document, named: "f", options: .init(timeZone: "Mars"))
        }
        await #expect(throws: WaterfallError.self) {
            try await catalog.service.importFeed(
                document, named: "f", options: .init(sectionBy: .feedSections, timeZone: "UTC"))
        }
        #expect(try await catalog.revision() == 1)
    }
}
