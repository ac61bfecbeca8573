import GRDB

@testable import WaterfallStore

extension CatalogTransaction {
    /// The SQLite connection under a transaction of an ``SQLiteCatalog``, for tests that look at
    /// the file's tables and pragmas directly.
    var db: Database { (self as! SQLiteTransaction).db }
}
