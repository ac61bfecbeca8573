import Foundation

/// IANA time zone names, as a feed's `"timeZone"` and `import --time-zone` give them.
public enum TimeZoneName {
    /// The zone named `name` when it is an IANA name Foundation knows (`Europe/Paris`,
    /// `America/New_York`, `UTC`), else `nil`. Abbreviations (`CET`, `EST`) and fixed offsets
    /// (`GMT+1`) that are not IANA names are refused: their meaning varies.
    public static func zone(named name: String) -> TimeZone? {
        guard name == "UTC" || known.contains(name) else { return nil }
        return TimeZone(identifier: name)
    }

    private static let known = Set(TimeZone.knownTimeZoneIdentifiers)
}
