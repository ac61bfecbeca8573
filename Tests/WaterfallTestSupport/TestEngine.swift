/// The storage engines the engine-parameterised suites run on (the service suites and the
/// store's conformance suite): SQLite always, PostgreSQL when `$WATERFALL_TEST_POSTGRES` names
/// a server (a `postgres://` URL of a user who may create schemas; `.ci/run` starts one and sets
/// it, and fails when these suites were skipped).
///
/// Only names: each suite opens its own catalog of the engine (this module knows no store).
/// A test shows the case as its argument, `sqlite` or `postgres`.
public enum TestEngine: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The engines to test here.
    public static let all: [TestEngine] = PostgresScratchSchema.serverURL == nil ? [.sqlite] : [.sqlite, .postgres]
}
