import Testing
import WaterfallTestSupport

@testable import WaterfallStore

/// The rows of images and geometry are read a cell at a time (``PostgresCells``): each cell as
/// its reader's type, in order, and a row shorter than its reader fails in one sentence rather
/// than reading past its end.
@Suite struct PostgresCellsTests {
    @Test(.enabled(if: PostgresScratchSchema.serverURL != nil, "needs WATERFALL_TEST_POSTGRES"))
    func aRowIsReadACellAtATimeAndOneShorterThanItsReaderIsRefused() async throws {
        let schema = try PostgresScratchSchema()
        let catalog = try PostgresCatalog.open(url: schema.url, connections: 2)
        defer { catalog.closeWhenDone() }
        let (geometry, id, short) = try await catalog.pool.withSession { session in
            let row = try session.rows("SELECT 7::bigint, 3::bigint, 640, 480, true, 'é 🌊'")[0]
            var cells = PostgresCells(row)
            let geometry = try ImageGeometry(postgres: &cells)
            let id = try cells.next(String.self)
            var short: StoreError?
            do {
                _ = try ImageGeometry(postgres: try session.rows("SELECT 7::bigint, 3::bigint")[0])
            } catch let error as StoreError {
                short = error
            }
            return (geometry, id, short)
        }
        #expect(geometry == ImageGeometry(key: 7, sectionID: 3, width: 640, height: 480, isFullSpan: true))
        #expect(id == "é 🌊")
        #expect(short?.kind == .cannotOpen)
        #expect(
            short?.message
                == "PostgreSQL answered a row of 2 columns where Waterfall reads more than 2: "
                + "the database is not this version's catalog.")
    }
}
