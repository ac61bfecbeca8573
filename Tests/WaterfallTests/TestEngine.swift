import Foundation
import Testing
import WaterfallTestSupport

/// The storage engines the service suites run on: SQLite always, PostgreSQL when
/// `$WATERFALL_TEST_POSTGRES` names a server (a `postgres://` URL of a user who may create
/// schemas; `.ci/run` starts one and sets it, and fails when these suites were skipped).
enum TestEngine: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The engines to test here.
    static let all: [TestEngine] = PostgresScratchSchema.serverURL == nil ? [.sqlite] : [.sqlite, .postgres]
}

@Suite struct EngineCoverageTests {
    /// CI must not pass with the PostgreSQL suites skipped: `.ci/run` starts a server and names
    /// it in `$WATERFALL_TEST_POSTGRES`.
    @Test func continuousIntegrationRunsThePostgreSQLSuites() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(TestEngine.all.contains(.postgres), "CI=true, but WATERFALL_TEST_POSTGRES names no PostgreSQL server")
    }
}
