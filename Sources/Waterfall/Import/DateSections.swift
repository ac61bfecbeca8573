import Foundation
import WaterfallSync

/// A feed's sections by date (DESIGN section 17): each image's section is the day, month or
/// year of its `takenAt` in one time zone; newest section first, and an "Undated" section at
/// the end for images without a date.
///
/// The zone arithmetic (its offset at each instant, daylight saving time included) is
/// Foundation's `TimeZone`; the calendar is the Gregorian one. Ids are fixed-width
/// (`2017-11-14`, `2017-11`, `2017`), so newest first is descending code-point order; titles
/// are English and do not depend on the locale ("14 November 2017", "November 2017", "2017").
struct DateSections: Sendable {
    /// The section of the images without `takenAt`.
    static let undatedID = "undated"
    static let undatedTitle = "Undated"
    private static let months = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// `day`, `month` or `year` (never `feedSections`).
    let sectionBy: SectionBy
    /// The IANA name of the zone.
    let zoneName: String
    private let zone: TimeZone

    /// The sections by `sectionBy` in the zone `zoneName`; `nil` when `sectionBy` is
    /// `feedSections` or the zone is not an IANA name Foundation knows.
    init?(sectionBy: SectionBy, zoneName: String) {
        guard sectionBy != .feedSections, let zone = TimeZoneName.zone(named: zoneName) else { return nil }
        self.sectionBy = sectionBy
        self.zoneName = zoneName
        self.zone = zone
    }

    /// The local date of an instant in the zone.
    func localDate(of milliseconds: Int64) -> (year: Int, month: Int, day: Int) {
        TakenAt.civilDate(daysSinceEpoch: localDay(of: Self.seconds(milliseconds), offset: offset(at: Self.seconds(milliseconds))))
    }

    /// The id of the section of an image taken at `milliseconds` (`nil`: undated).
    func sectionID(of milliseconds: Int64?) -> String {
        var cache = Cache()
        return sectionID(of: milliseconds, &cache)
    }

    /// ``sectionID(of:)`` for many images: the zone's offset is asked once a UTC day (twice,
    /// and its next transition) rather than once an image, and each local day's id is written
    /// once. Foundation's `secondsFromGMT(for:)` an image was most of a dated import's cost.
    func sectionID(of milliseconds: Int64?, _ cache: inout Cache) -> String {
        guard let milliseconds else { return Self.undatedID }
        let seconds = Self.seconds(milliseconds)
        let utcDay = Self.floorDivide(seconds, 86_400)
        let offset: Int64
        if let known = cache.offsets[utcDay] {
            offset = known ?? self.offset(at: seconds)
        } else {
            // One offset for the whole UTC day when it starts and ends with the same one and
            // no transition falls inside it; else the offset of each instant.
            let start = utcDay * 86_400, end = start + 86_399
            let first = self.offset(at: start)
            let transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(start)))
            let constant = first == self.offset(at: end) && (transition.map { $0.timeIntervalSince1970 > TimeInterval(end) } ?? true)
            cache.offsets[utcDay] = constant ? first : .some(nil)
            offset = constant ? first : self.offset(at: seconds)
        }
        let day = localDay(of: seconds, offset: offset)
        if let id = cache.ids[day] { return id }
        let date = TakenAt.civilDate(daysSinceEpoch: day)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(date.year)
        let id = switch sectionBy {
        case .year: year
        case .month: "\(year)-\(two(date.month))"
        case .day, .feedSections: "\(year)-\(two(date.month))-\(two(date.day))"
        }
        cache.ids[day] = id
        return id
    }

    /// What ``sectionID(of:_:)`` remembers: the zone's offset of each UTC day it saw (`nil`
    /// inside: the offset changes that day), and the id of each local day.
    struct Cache {
        var offsets: [Int64: Int64?] = [:]
        var ids: [Int64: String] = [:]
    }

    private func offset(at seconds: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    private func localDay(of seconds: Int64, offset: Int64) -> Int64 {
        Self.floorDivide(seconds + offset, 86_400)
    }

    private static func seconds(_ milliseconds: Int64) -> Int64 { floorDivide(milliseconds, 1000) }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// The title of the section `id` (one this type made).
    func title(of id: String) -> String {
        if id == Self.undatedID { return Self.undatedTitle }
        let parts = id.split(separator: "-").map { Int($0) ?? 0 }
        switch parts.count {
        case 3: return "\(parts[2]) \(Self.months[parts[1] - 1]) \(parts[0])"
        case 2: return "\(Self.months[parts[1] - 1]) \(parts[0])"
        default: return id
        }
    }

    /// Whether `name` is the id of a date section of this kind (`2017-11` for months), as
    /// opposed to a section the feed named itself before it had date sections.
    func isDateSection(_ name: String?) -> Bool {
        guard let name else { return false }
        let bytes = Array(name.utf8)
        let shape: [Bool]  // true: a digit, false: a dash
        switch sectionBy {
        case .year: shape = [true, true, true, true]
        case .month: shape = [true, true, true, true, false, true, true]
        case .day, .feedSections: shape = [true, true, true, true, false, true, true, false, true, true]
        }
        guard bytes.count == shape.count else { return false }
        return zip(bytes, shape).allSatisfy { byte, isDigit in
            isDigit ? (byte >= 48 && byte <= 57) : byte == UInt8(ascii: "-")
        }
    }

    /// What a feed document becomes with date sections: its own `section` fields and
    /// `sections` dropped, every image in the section of its date, sections newest first then
    /// `undated`, and images ordered by section, then newest first, ties in document order
    /// (what a first import, or `--reset-order`, adopts).
    struct Derived {
        var document: FeedDocument
        /// The title of each of `document.sectionNames`.
        var titles: [String]
        /// How many images had a `section` field, ignored.
        var sectionFieldsIgnored: Int
    }

    func derive(_ document: FeedDocument) -> Derived {
        var cache = Cache()
        let ids = document.images.map { sectionID(of: $0.takenAt, &cache) }
        var names = Array(Set(ids).subtracting([Self.undatedID])).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        names.reverse()
        if ids.contains(Self.undatedID) { names.append(Self.undatedID) }
        var slot: [String: Int32] = [:]
        for (index, name) in names.enumerated() { slot[name] = Int32(index) }
        var ignored = 0
        var images = document.images
        // The sort compares two plain arrays: comparing the images themselves copied two
        // records of strings per comparison, most of a dated import's extra time.
        var sections = [Int32](repeating: 0, count: images.count)
        var taken = [Int64](repeating: .min, count: images.count)
        for index in images.indices {
            if images[index].section != nil { ignored += 1 }
            let section = slot[ids[index]]!
            images[index].section = section
            sections[index] = section
            taken[index] = images[index].takenAt ?? .min
        }
        let order = Array(images.indices).sorted { a, b in
            if sections[a] != sections[b] { return sections[a] < sections[b] }
            if taken[a] != taken[b] { return taken[a] > taken[b] }
            return a < b
        }
        var derived = document
        derived.declaredSections = []
        derived.sectionNames = names
        derived.images = order.map { images[$0] }
        return Derived(document: derived, titles: names.map(title(of:)), sectionFieldsIgnored: ignored)
    }
}
