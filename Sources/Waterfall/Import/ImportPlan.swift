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

    /// One image of the final order, packed into 16 bytes: a million-image import holds a
    /// million of them beside the decoded file. Indices must be below 2^31 (a conversion traps
    /// otherwise); a feed that large would not fit in memory long before.
    struct Entry {
        /// `existing(i)` as `i`, `new(i)` as `~i`.
        private var packedSource: Int64
        /// The feed's image index, or -1.
        private var packedDocument: Int32
        /// The section index in the low 31 bits, ``keepsKey`` in the top bit.
        private var packedSection: UInt32

        init(source: Source, section: Int, document: Int?, keepsKey: Bool) {
            switch source {
            case .existing(let index): packedSource = Int64(index)
            case .new(let index): packedSource = ~Int64(index)
            }
            packedDocument = document.map { Int32($0) } ?? -1
            packedSection = 0
            self.section = section
            self.keepsKey = keepsKey
        }

        var source: Source {
            packedSource >= 0 ? .existing(Int(packedSource)) : .new(Int(~packedSource))
        }

        /// The feed's image (`nil` for an existing image the file does not mention: append).
        var document: Int? { packedDocument >= 0 ? Int(packedDocument) : nil }

        /// Index into ``sections``.
        var section: Int {
            get { Int(packedSection & 0x7FFF_FFFF) }
            set { packedSection = packedSection & 0x8000_0000 | UInt32(Int32(newValue)) }
        }

        /// Keeps its current order key (a kept image); otherwise it gets a new key.
        var keepsKey: Bool {
            get { packedSection & 0x8000_0000 != 0 }
            set { packedSection = packedSection & 0x7FFF_FFFF | (newValue ? 0x8000_0000 : 0) }
        }
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
