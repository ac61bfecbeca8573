import Foundation
import Testing
import WaterfallTestSupport

extension ReliabilityTests {
    /// DESIGN section 7 on PostgreSQL: `kill -9` of an import of 150,000 images while its
    /// transaction runs leaves the catalog exactly as before the import (the server rolls back a
    /// transaction whose connection dies), and one killed after it leaves the state after.
    @Suite struct PostgresCrashSafetyTests {
        /// The whole catalog in one hash, computed by the server: feeds, sections, every image
        /// in order, the change log.
        static func digest(_ schema: PostgresScratchSchema) throws -> String {
            try PostgresScratchSchema.psql(
                schema.url,
                """
                SELECT md5(concat_ws('|',
                  (SELECT string_agg(concat_ws(',', name, revision, image_count), ';' ORDER BY name) FROM feed),
                  (SELECT string_agg(concat_ws(',', name, title, position, declared), ';' ORDER BY position) FROM section),
                  (SELECT string_agg(concat_ws(',', i.external_id, i.sort_key, s.name, i.width, i.height, i.full_span, i.url, i.title),
                                     ';' ORDER BY i.sort_key) FROM image i JOIN section s ON s.id = i.section_id),
                  (SELECT string_agg(concat_ws(',', revision, seq, kind, external_id, section), ';' ORDER BY revision, seq) FROM change)))
                """)
        }

        /// Whether a `waterfall` connection of the schema's database is inside a transaction that
        /// has written (its backend holds a transaction id).
        static func isWriting(_ schema: PostgresScratchSchema) throws -> Bool {
            try PostgresScratchSchema.psql(
                schema.url,
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE application_name = 'waterfall' AND datname = current_database() AND backend_xid IS NOT NULL
                """) != "0"
        }

        @Test(
            .enabled(if: PostgresScratchSchema.serverURL != nil, "WATERFALL_TEST_POSTGRES names no PostgreSQL server"))
        func killNineDuringA150000ImageImportLeavesTheOldOrTheNewState() throws {
            // Given two versions of a 150,000-image feed and an empty catalog
            let folder = try TemporaryDirectory(prefix: "waterfall-pg-crash")
            defer { folder.remove() }
            let files = try Reliability.Files(in: folder, count: 150_000, sectionSize: 5_000, seeds: (1, 2), orders: [])
            let schema = try PostgresScratchSchema()
            var random = SeededGenerator(seed: 0x7067_6B69)
            // the schema, no feed
            try #require(try Reliability.waterfall(["--db", schema.url, "feeds"], in: folder).status == 0)
            var oldState = try Self.digest(schema)

            // A first import (killed once), then a re-import that adds, removes, resizes (twice)
            for (version, kills) in [(files.versionA, 1), (files.versionB, 2)] {
                let importing = ["--db", schema.url, "import", version, "--feed", "big", "--json"]
                var crashedStates: [String] = []
                // When the import is killed at a random moment while its transaction writes
                for _ in 0..<kills {
                    let child = try Reliability.Child(importing, in: folder.url)
                    let deadline = Date().addingTimeInterval(300)
                    while child.isRunning, Date() < deadline, try !Self.isWriting(schema) { usleep(20_000) }
                    usleep(UInt32.random(in: 0...500_000, using: &random))
                    let wasRunning = child.isRunning
                    child.kill()
                    let ending = child.wait()
                    try #require(wasRunning && ending.killed, "the import ended before it could be killed: \(ending)")
                    // Then nothing of it is left: the catalog is as before the import
                    let state = try Self.digest(schema)
                    #expect(
                        state == oldState,
                        "a kill inside the transaction of \(URL(fileURLWithPath: version).lastPathComponent) left a changed catalog"
                    )
                    crashedStates.append(state)
                }
                // And the import run again to completion brings the new state, which a kill after
                // its commit (the command's last moment) keeps.
                let finished = try Reliability.waterfall(importing, in: folder, timeout: 600)
                try #require(finished.status == 0, "\(finished.errors)")
                let newState = try Self.digest(schema)
                #expect(newState != oldState)
                let again = try Reliability.Child(importing, in: folder.url)
                again.kill()
                _ = again.wait()
                #expect(try Self.digest(schema) == newState)
                oldState = newState
            }
        }
    }
}
