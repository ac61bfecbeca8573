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
        TakenAt.civilDate(
            daysSinceEpoch: localDay(of: Self.seconds(milliseconds), offset: offset(at: Self.seconds(milliseconds))))
    }

    /// The id of the section of an image taken at `milliseconds` (`nil`: undated).
    func sectionID(of milliseconds: Int64?) -> String {
        var cache = Cache()
        return sectionID(of: milliseconds, &cache)
    }

    /// ``sectionID(of:)`` with the zone's offsets remembered in `cache` (see ``sectionNumber(of:_:)``).
    func sectionID(of milliseconds: Int64?, _ cache: inout Cache) -> String {
        guard let milliseconds else { return Self.undatedID }
        return sectionID(ofNumber: sectionNumber(of: milliseconds, &cache))
    }

    /// The section of an instant as a number, which grows with the section's date: the local
    /// day (days since 1970-01-01 in the zone) by day, `year * 12 + month - 1` by month, the
    /// year by year. A number for each image and an id for each section
    /// (``sectionID(ofNumber:)``) is what a million-image import can afford: no string an image.
    ///
    /// The zone's offset is asked once a UTC day (twice, and its next transition) rather than
    /// once an image: Foundation's `secondsFromGMT(for:)` an image was most of a dated import's
    /// cost.
    func sectionNumber(of milliseconds: Int64, _ cache: inout Cache) -> Int64 {
        let seconds = Self.seconds(milliseconds)
        let day = localDay(of: seconds, offset: offset(at: seconds, &cache))
        switch sectionBy {
        case .day, .feedSections:
            return day
        case .month:
            let date = TakenAt.civilDate(daysSinceEpoch: day)
            return Int64(date.year) * 12 + Int64(date.month - 1)
        case .year:
            return Int64(TakenAt.civilDate(daysSinceEpoch: day).year)
        }
    }

    /// The id of the section ``sectionNumber(of:_:)`` numbered `number`: `2017-11-14`,
    /// `2017-11` or `2017`.
    func sectionID(ofNumber number: Int64) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch sectionBy {
        case .day, .feedSections:
            let date = TakenAt.civilDate(daysSinceEpoch: number)
            return "\(date.year)-\(two(date.month))-\(two(date.day))"
        case .month:
            let year = Self.floorDivide(number, 12)
            return "\(year)-\(two(Int(number - year * 12) + 1))"
        case .year:
            return String(number)
        }
    }

    /// What ``sectionNumber(of:_:)`` remembers: the zone's offset of each UTC day it saw (`nil`
    /// inside: the offset changes that day), and the last day asked, which the next image
    /// usually shares.
    struct Cache {
        var offsets: [Int64: Int64?] = [:]
        fileprivate var lastUTCDay: Int64?
        fileprivate var lastOffset: Int64?
    }

    /// The zone's offset at `seconds`: one for the whole UTC day when it starts and ends with
    /// the same one and no transition falls inside it; else the offset of the instant.
    private func offset(at seconds: Int64, _ cache: inout Cache) -> Int64 {
        let utcDay = Self.floorDivide(seconds, 86_400)
        if utcDay != cache.lastUTCDay {
            if let known = cache.offsets[utcDay] {
                cache.lastOffset = known
            } else {
                let start = utcDay * 86_400
                let end = start + 86_399
                let first = offset(at: start)
                let transition = zone.nextDaylightSavingTimeTransition(
                    after: Date(timeIntervalSince1970: TimeInterval(start)))
                let constant =
                    first == offset(at: end)
                    && (transition.map { $0.timeIntervalSince1970 > TimeInterval(end) } ?? true)
                cache.offsets[utcDay] = constant ? first : .some(nil)
                cache.lastOffset = constant ? first : nil
            }
            cache.lastUTCDay = utcDay
        }
        return cache.lastOffset ?? offset(at: seconds)
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

    /// What a feed document's images become with date sections, by index (the document itself
    /// is not copied: a million image records of strings copied twice were most of a dated
    /// import's extra time): every image in the section of its date, its own `section` field
    /// ignored; sections newest first then `undated`; the images ordered by section, then
    /// newest first, ties in document order (what a first import, or `--reset-order`, adopts).
    struct Derived {
        /// The sections, newest first, then `undated` when an image has no date.
        var sectionNames: [String]
        /// The title of each of ``sectionNames``.
        var titles: [String]
        /// The section of each of the document's images (an index into ``sectionNames``), by
        /// the image's index in the document.
        var sectionOfImage: [Int32]
        /// The document's image indices in date order.
        var order: [Int32]
        /// How many images had a `section` field, ignored.
        var sectionFieldsIgnored: Int
    }

    /// The date sections of `images` and their date order. O(n) but for the sort within each
    /// section; it compares plain arrays of numbers, never image records. Its rules, one
    /// function each: every image's section by its date (``discover(_:)``), the sections newest
    /// first and `undated` last (``rank(_:)``), the images grouped by section in document order
    /// (``group(_:sections:)``), then newest first within each (``sortNewestFirst(_:starts:taken:)``).
    func derive(_ images: [FeedImage]) -> Derived {
        let found = discover(images)
        let (names, slotOfDiscovered) = rank(found.numbers)
        let undatedSlot = Int32(names.count)
        let allNames = found.undated > 0 ? names + [Self.undatedID] : names
        let sectionOfImage = found.discovered.map { $0 >= 0 ? slotOfDiscovered[Int($0)] : undatedSlot }
        var (order, starts) = Self.group(sectionOfImage, sections: allNames.count)
        Self.sortNewestFirst(&order, starts: starts, taken: found.taken)
        return Derived(
            sectionNames: allNames, titles: allNames.map(title(of:)), sectionOfImage: sectionOfImage, order: order,
            sectionFieldsIgnored: found.ignored)
    }

    /// Each image's date section, numbered in order of discovery.
    private struct Discovered {
        /// The sections' numbers (``sectionNumber(of:_:)``), in order of discovery.
        var numbers: [Int64] = []
        /// Each image's section, an index into ``numbers``; -1: undated.
        var discovered: [Int32]
        /// Each image's `takenAt` in milliseconds; `.min`: undated.
        var taken: [Int64]
        /// How many images had a `section` field, ignored.
        var ignored = 0
        /// How many images have no date.
        var undated = 0
    }

    /// Every image's section by its date, numbered in order of discovery. A run of images of
    /// one section (the usual case) costs no lookup.
    private func discover(_ images: [FeedImage]) -> Discovered {
        var cache = Cache()
        var found = Discovered(
            discovered: [Int32](repeating: -1, count: images.count),
            taken: [Int64](repeating: .min, count: images.count))
        var indexOfNumber: [Int64: Int32] = [:]
        var last: (number: Int64, index: Int32)?
        for image in images.indices {
            if images[image].section != nil { found.ignored += 1 }
            guard let milliseconds = images[image].takenAt else {
                found.undated += 1
                continue
            }
            found.taken[image] = milliseconds
            let number = sectionNumber(of: milliseconds, &cache)
            let index: Int32
            if let last, last.number == number {
                index = last.index
            } else if let known = indexOfNumber[number] {
                index = known
            } else {
                index = Int32(found.numbers.count)
                found.numbers.append(number)
                indexOfNumber[number] = index
            }
            last = (number, index)
            found.discovered[image] = index
        }
        return found
    }

    /// The sections' ids newest first (descending code points of the ids, as the catalog's
    /// order compares them), and each discovered section's place among them.
    private func rank(_ numbers: [Int64]) -> (names: [String], slotOfDiscovered: [Int32]) {
        let ids = numbers.map(sectionID(ofNumber:))
        let ranked = ids.indices.sorted { ids[$1].utf8.lexicographicallyPrecedes(ids[$0].utf8) }
        var slotOfDiscovered = [Int32](repeating: 0, count: ids.count)
        for (slot, index) in ranked.enumerated() { slotOfDiscovered[index] = Int32(slot) }
        return (ranked.map { ids[$0] }, slotOfDiscovered)
    }

    /// The images by section, document order kept within each (a counting sort), and where
    /// each section starts in that order (with the end as a last start).
    private static func group(_ sectionOfImage: [Int32], sections: Int) -> (order: [Int32], starts: [Int]) {
        var starts = [Int](repeating: 0, count: sections + 1)
        for slot in sectionOfImage { starts[Int(slot) + 1] += 1 }
        for slot in 0..<sections { starts[slot + 1] += starts[slot] }
        var next = starts
        var order = [Int32](repeating: 0, count: sectionOfImage.count)
        for (image, slot) in sectionOfImage.enumerated() {
            order[next[Int(slot)]] = Int32(image)
            next[Int(slot)] += 1
        }
        return (order, starts)
    }

    /// Newest first in each section, ties in document order: a sort of plain numbers, the
    /// time before the section's newest image above the image's index. A section spans a year
    /// at most, so both fit in 64 bits; if they did not, a sort by comparisons.
    private static func sortNewestFirst(_ order: inout [Int32], starts: [Int], taken: [Int64]) {
        let count = order.count
        let indexBits = max(1, Int32.bitWidth - Int32(truncatingIfNeeded: count).leadingZeroBitCount)
        var packed: [UInt64] = []
        for slot in 0..<(starts.count - 1) where starts[slot + 1] - starts[slot] > 1 {
            let section = starts[slot]..<starts[slot + 1]
            var (newest, oldest) = (Int64.min, Int64.max)
            for position in section {
                newest = max(newest, taken[Int(order[position])])
                oldest = min(oldest, taken[Int(order[position])])
            }
            guard UInt64(bitPattern: newest &- oldest) >> (64 - indexBits) == 0 else {
                order[section].sort { a, b in
                    let (x, y) = (taken[Int(a)], taken[Int(b)])
                    return x != y ? x > y : a < b
                }
                continue
            }
            packed.removeAll(keepingCapacity: true)
            for position in section {
                let image = order[position]
                packed.append(UInt64(bitPattern: newest &- taken[Int(image)]) << indexBits | UInt64(image))
            }
            packed.sort()
            for (position, value) in zip(section, packed) {
                order[position] = Int32(truncatingIfNeeded: value & (1 << indexBits - 1))
            }
        }
    }
}
