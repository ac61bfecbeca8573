import WaterfallStore

extension CatalogStore {
    /// Closes the catalog without waiting for it to finish: for a test's `defer`, which cannot
    /// await. The test is over by then, and nothing reads the catalog again.
    public func closeWhenDone() {
        Task { await close() }
    }
}
