import WaterfallStore

extension [SectionRecord] {
    /// Section names by section id (`nil` names: the unnamed section).
    var namesByID: [Int64: String?] {
        Dictionary(uniqueKeysWithValues: map { ($0.id, $0.name) })
    }
}
