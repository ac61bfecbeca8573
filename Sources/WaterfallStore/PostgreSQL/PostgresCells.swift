import PostgresNIO

/// A row's cells read in order, each decoded as the type its reader asks for: for the rows
/// read by the hundred (a page's images) and the million (a feed's geometry). postgres-nio's
/// tuple `decode` walks a parameter pack, and the runtime looks its types up again for every
/// row: on PostgreSQL a random page of 100 images spent about a quarter of the server's time
/// decoding its rows (perf, 30 November), most of it in that lookup. A cell's `decode` is
/// specialized for each type here.
struct PostgresCells {
    private let row: PostgresRow
    private var cells: PostgresRow.Iterator
    private var read = 0

    init(_ row: PostgresRow) {
        self.row = row
        cells = row.makeIterator()
    }

    /// The next cell as `T`; `file` and `line` are the reader's, for the error.
    /// - Throws: `PostgresDecodingError` for a cell that is not a `T` (or `NULL` for a
    ///   type that is not optional); ``StoreError`` `cannotOpen` past the row's last cell (a
    ///   table not of this version's catalog).
    mutating func next<T: PostgresDecodable>(_: T.Type = T.self, file: String = #fileID, line: Int = #line) throws -> T
    {
        guard let cell = cells.next() else {
            throw StoreError(
                .cannotOpen,
                "PostgreSQL answered a row of \(row.count) columns where Waterfall reads more than \(read): "
                    + "the database is not this version's catalog.")
        }
        read += 1
        return try cell.decode(T.self, file: file, line: line)
    }
}
