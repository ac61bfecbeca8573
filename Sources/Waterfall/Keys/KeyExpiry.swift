import Foundation

/// When a key stops working, as `key add --expires WHEN` says it: a duration from now (`45s`,
/// `30m`, `12h`, `90d`) or an ISO 8601 time (`2027-01-31T18:00:00Z`, `2027-01-31T19:00:00+01:00`,
/// or a date, `2027-01-31`, meaning its midnight UTC).
public enum KeyExpiry {
    /// The longest duration accepted: 100 years.
    static let longest: TimeInterval = 36_500 * 86_400

    /// The moment `text` names, from `now` for a duration. Times are kept to the second,
    /// rounded up, so a key never stops working before it was asked to.
    /// - Throws: ``WaterfallError/invalidValue(_:_:)`` of ``WaterfallError/Parameter/expires``
    ///   for text that is neither, a duration of 0 or past 100 years, or a time not in the future.
    public static func date(from text: String, now: Date) throws(WaterfallError) -> Date {
        let date: Date
        if let seconds = duration(text) {
            guard seconds > 0, seconds <= longest else {
                throw WaterfallError.invalidValue(.expires, "takes a duration from 1s to 36500d, got \(text.quoted).")
            }
            date = now.addingTimeInterval(seconds)
        } else if let time = time(text) {
            guard time > now else {
                throw WaterfallError.invalidValue(
                    .expires, "must be a time in the future, got \(text.quoted) (it is \(format(now)) now).")
            }
            guard time.timeIntervalSince(now) <= longest else {
                throw WaterfallError.invalidValue(.expires, "must be at most 100 years from now, got \(text.quoted).")
            }
            date = time
        } else {
            throw WaterfallError.invalidValue(
                .expires,
                "takes a duration such as 45s, 30m, 12h or 90d, or an ISO 8601 time such as 2027-01-31T18:00:00Z, got \(text.quoted)."
            )
        }
        return Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.up))
    }

    /// `N` followed by `s`, `m`, `h` or `d`, in seconds; nil for anything else.
    private static func duration(_ text: String) -> TimeInterval? {
        guard let unit = text.last, let count = Int(text.dropLast()), text.dropLast().allSatisfy(\.isASCIIDigit) else {
            return nil
        }
        let seconds: Int =
            switch unit {
            case "s": 1
            case "m": 60
            case "h": 3_600
            case "d": 86_400
            default: 0
            }
        guard seconds > 0, count <= Int(longest) else { return seconds > 0 ? longest + 1 : nil }
        return TimeInterval(count * seconds)
    }

    /// An ISO 8601 time with a zone (fractional seconds allowed), or a full date; nil otherwise.
    private static func time(_ text: String) -> Date? {
        // A date alone is exactly `YYYY-MM-DD` (the date formatter would take a time without a
        // zone after it, and read it as midnight).
        let formats: [ISO8601DateFormatter.Options] =
            text.utf8.count == 10
            ? [[.withFullDate]] : [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]]
        for options in formats {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// `date` as ISO 8601 in UTC, to the second: `2027-01-31T18:00:00Z`.
    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
