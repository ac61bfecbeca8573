import WaterfallStore
import WaterfallSync

/// The outcome of planning an import: the catalog's final sections and image order, and which
/// rows change. Built by ``ImportPlanner``; applied by the service in one transaction.
struct ImportPlan {
    /// A section of the final catalog, in final order.
    struct Section {
        /// The catalog's row, when the section exists already.
        var existing: SectionRecord?
        var name: String?
        var title: String?
        var isDeclared: Bool
    }

    /// Where an image of the final order comes from.
    enum Source {
        /// Index into the current catalog's images.
        case existing(Int)
        /// Index into the document's images.
        case new(Int)
    }

    /// One image of the final order.
    struct Entry {
        var source: Source
        /// Index into ``sections``.
        var section: Int
        /// The feed's image (`nil` for an existing image the file does not mention: append).
        var document: Int?
        /// Keeps its current order key (a kept image); otherwise it gets a new key.
        var keepsKey: Bool
    }

    var sections: [Section] = []
    var entries: [Entry] = []
    /// Indices into the current catalog's images that the import removes.
    var removed: [Int] = []
    /// Whether the sections differ from the catalog's: created, dropped, reordered, retitled or
    /// (un)declared.
    var sectionsChanged = false
}

/// What the catalog holds before an import, in order.
struct CatalogSnapshot {
    var sections: [SectionRecord]
    var images: [ImageRecord]
}
