/// How an import treats the images already in the catalog (DESIGN section 4).
public enum ImportMode: String, Hashable, Sendable {
    /// The file is the whole truth for membership: absent images are removed; new images go
    /// right after their nearest earlier image of the same section; existing images keep their
    /// place (so user reorders survive), unless `resetOrder` adopts the file's order.
    case snapshot
    /// New images go to the end of their sections in file order; existing images are updated
    /// in place; nothing is removed. New sections go to the end of the feed, in file order.
    case append
}
