/// How a feed's sections are made (DESIGN section 17): from each image's `takenAt` by day,
/// month or year, or from the feed's own `section` fields (`"none"`, what a feed does unless
/// told otherwise).
public enum SectionBy: String, Hashable, Sendable, CaseIterable {
    case day, month, year
    /// The feed's own `section` fields decide (JSON and flag value `none`).
    case feedSections = "none"
}
