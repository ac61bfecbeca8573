import Foundation
import Testing
import WaterfallTestSupport

extension ReliabilityTests {
    /// DESIGN section 18: a PostgreSQL catalog is backed up with `pg_dump` of its schema and
    /// restored with `pg_restore`, as docs/reliability.md says, and the restored catalog serves
    /// every answer byte for byte as the original did.
    @Suite struct PostgresRestoreTests {
        @Test(
            .enabled(if: PostgresScratchSchema.serverURL != nil, "WATERFALL_TEST_POSTGRES names no PostgreSQL server"))
        func aCatalogDumpedAndRestoredAnswersAsTheOriginal() throws {
            let folder = try TemporaryDirectory(prefix: "waterfall-pg-restore")
            defer { folder.remove() }
            let schema = try PostgresScratchSchema()
            func waterfall(_ arguments: String...) throws -> String { try run(arguments) }
            func run(_ arguments: [String]) throws -> String {
                let result = try WaterfallProcess.run(["--db", schema.url] + arguments, in: folder.url)
                try #require(result.status == 0, "\(arguments): \(result.standardError)")
                return result.standardOutput
            }
            // Given a catalog with two feeds, a named layout, moves and a warm layout cache
            let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            _ = try waterfall("import", repository.appending(path: "SampleData/travel.json").path)
            _ = try waterfall("import", repository.appending(path: "SampleData/coco-val2017.json").path)
            _ = try waterfall(
                "layout", "add", "phone", "--feed", "travel", "--columns", "2", "--width", "375", "--header-height",
                "44")
            _ = try waterfall("move", "belem", "--to", "0", "--feed", "travel")
            _ = try waterfall("move", "139", "--to", "3", "--feed", "coco-val2017")
            let questions: [[String]] = [
                ["feeds", "--json"],
                ["page", "--feed", "travel", "--layout", "phone", "--offset", "0", "--limit", "20", "--json"],
                [
                    "viewport", "--feed", "travel", "--layout", "phone", "--y", "400", "--height", "600",
                    "--pin-headers", "--json",
                ],
                ["sections", "--feed", "travel", "--layout", "phone", "--json"],
                [
                    "page", "--feed", "coco-val2017", "--columns", "3", "--width", "900", "--offset", "4900", "--limit",
                    "100", "--json",
                ],
                ["locate", "--feed", "coco-val2017", "--columns", "3", "--width", "900", "139", "--json"],
                ["images", "--feed", "coco-val2017", "--offset", "2500", "--limit", "30", "--json"],
                ["changes", "--feed", "travel", "--since", "0", "--json"],
            ]
            let before = try questions.map { try run($0) }

            // When the schema is dumped, dropped, and restored from the dump
            let dump = folder.path("waterfall.dump")
            try tool(
                "pg_dump",
                ["--format=custom", "--schema=\(schema.name)", "--file=\(dump)", PostgresScratchSchema.serverURL!])
            try PostgresScratchSchema.psql(PostgresScratchSchema.serverURL!, "DROP SCHEMA \(schema.name) CASCADE")
            try tool("pg_restore", ["--dbname=\(PostgresScratchSchema.serverURL!)", dump])

            // Then every answer is the original's, byte for byte, and the catalog takes writes
            let after = try questions.map { try run($0) }
            for (question, (old, new)) in zip(questions, zip(before, after)) {
                #expect(old == new, "\(question.joined(separator: " "))")
            }
            _ = try waterfall("move", "tram-28", "--to", "0", "--feed", "travel")
            #expect(
                try waterfall("feeds", "--json").contains(#""name":"travel","images":13,"sections":4,"revision":3"#))
        }

        /// Runs one of PostgreSQL's client programs; fails with what it printed.
        private func tool(_ name: String, _ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [name] + arguments
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let printed = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "\(name): \(String(decoding: printed, as: UTF8.self))")
        }
    }
}
