import Foundation
import Testing
import WaterfallTestSupport

@Suite struct EngineCoverageTests {
    /// CI must not pass with the PostgreSQL suites skipped: `.ci/run` starts a server and names
    /// it in `$WATERFALL_TEST_POSTGRES`.
    @Test func continuousIntegrationRunsThePostgreSQLSuites() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(TestEngine.all.contains(.postgres), "CI=true, but WATERFALL_TEST_POSTGRES names no PostgreSQL server")
    }
}
