import Foundation

/// When an image was taken (DESIGN section 17): an instant, kept as milliseconds since
/// 1970-01-01T00:00:00Z, read from and written as RFC 3339.
///
/// A feed writes it with an offset (`2017-11-14T16:28:13+01:00`, or `Z`); the catalog keeps the
/// instant only, and answers give it back in UTC (`2017-11-14T15:28:13Z`), with milliseconds
/// when they are not zero. Dates are of the Gregorian calendar, years 1583 to 9999 (from 1583 on,
/// the proleptic Gregorian calendar of RFC 3339 and Foundation's Gregorian calendar, which
/// turns Julian before 15 October 1582, agree).
public enum TakenAt {
    /// The earliest year accepted.
    public static let firstYear = 1583
    /// The latest year accepted.
    public static let lastYear = 9999

    /// The instant `text` names, in milliseconds since the epoch, or `nil` when it is not an
    /// RFC 3339 date-time with an offset (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, `T` and `Z`
    /// in either case), names a day or time that does not exist (`2017-02-29`, `24:00:00`, a
    /// leap second), or lies outside years 1583 to 9999. Fraction digits beyond milliseconds
    /// are dropped.
    public static func milliseconds(parsing text: some Collection<UInt8>) -> Int64? {
        let bytes = Array(text)
        guard bytes.count >= 20 else { return nil }
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + digits] {
                let digit = Int(byte) - 48
                guard digit >= 0 && digit <= 9 else { return nil }
                value = value * 10 + digit
            }
            position += digits
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard position < bytes.count, characters.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")),
            let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        var millisecond = 0
        if expect(UInt8(ascii: ".")) {
            var digits = 0
            while position < bytes.count, bytes[position] >= 48 && bytes[position] <= 57 {
                if digits < 3 { millisecond = millisecond * 10 + Int(bytes[position]) - 48 }
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { millisecond *= 10 }
        }
        var offsetMinutes = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetMinutes = 0
        } else {
            let sign: Int
            if expect(UInt8(ascii: "+")) {
                sign = 1
            } else if expect(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHour = number(2), expect(UInt8(ascii: ":")), let offsetMinute = number(2),
                offsetHour <= 23, offsetMinute <= 59
            else { return nil }
            offsetMinutes = sign * (offsetHour * 60 + offsetMinute)
        }
        guard position == bytes.count,
            (firstYear...lastYear).contains(year), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day),
            hour <= 23, minute <= 59, second <= 59
        else { return nil }
        let days = Int64(daysSinceEpoch(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millisecond)
    }

    /// `milliseconds` in RFC 3339, in UTC: `2017-11-14T15:28:13Z`, or `2017-11-14T15:28:13.250Z`
    /// when the milliseconds are not zero.
    public static func string(milliseconds: Int64) -> String {
        let (seconds, millisecond) = floorDivision(milliseconds, 1000)
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(Int64(month)))-\(two(Int64(day)))T"
        text += "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        if millisecond != 0 {
            text += "." + String(String(millisecond + 1000).dropFirst())
        }
        return text + "Z"
    }

    /// The instant a local date or date and time names in `zone`, in milliseconds since the
    /// epoch, or `nil` when `text` is neither `YYYY-MM-DD` nor `YYYY-MM-DDTHH:MM` (a day or time
    /// that does not exist, or a year outside 1583 to 9999): what `locate?date=` asks for (DESIGN
    /// section 17). A date alone is its midnight. A wall time a daylight-saving change skips is
    /// read as the instant after the gap; one it repeats is its first occurrence.
    public static func milliseconds(localMoment text: String, in zone: TimeZone) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10 || bytes.count == 16 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte) - 48
            }
            return value
        }
        guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7),
            bytes[7] == UInt8(ascii: "-"), let day = number(8..<10),
            (firstYear...lastYear).contains(year), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var hour = 0
        var minute = 0
        if bytes.count == 16 {
            guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), let h = number(11..<13),
                bytes[13] == UInt8(ascii: ":"), let m = number(14..<16), h <= 23, m <= 59
            else { return nil }
            (hour, minute) = (h, m)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)
        guard let date = calendar.date(from: components) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The number of days of `month` (1…12) in `year`, in the Gregorian calendar.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; H. Hinnant's `days_from_civil`).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (proleptic Gregorian; H. Hinnant's `civil_from_days`).
    public static func civilDate(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }
}
