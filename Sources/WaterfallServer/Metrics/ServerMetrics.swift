import CoreMetrics
import NIOConcurrencyHelpers
import Prometheus
import Waterfall

/// What `GET /metrics` reports, in Prometheus' text format: swift-metrics instruments on a
/// registry of this server's own (never the process-wide bootstrap, so servers in one process
/// keep apart). Instruments of one set of labels are made once and kept.
///
/// - `waterfall_http_requests_total{route, method, status}`: requests by route template
///   (`-` for none), method and status.
/// - `waterfall_http_request_duration_seconds{route, method}`: their latency, a histogram from
///   0.1 ms to 10 s (to the answer's head; an event stream's life is not in it).
/// - `waterfall_kept_answers_total{result="hit"|"miss"}`: reads answered from a kept answer, and
///   reads whose answer was computed.
/// - `waterfall_event_streams_open`: event streams open now.
/// - `waterfall_writes_total{kind}`: writes that succeeded, by the operation (`importFeed`,
///   `reorderFeed`, `deleteImage`, `deleteFeed`, `putLayout`, `deleteLayout`).
/// - `waterfall_hot_geometry_bytes` and `waterfall_hot_feeds`: the bytes of feeds' geometry the
///   server keeps in memory (DESIGN section 12, bounded by `--hot-memory`) and how many feeds.
final class ServerMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let requests = NIOLockedValueBox<[RequestLabels: CoreMetrics.Counter]>([:])
    private let durations = NIOLockedValueBox<[DurationLabels: CoreMetrics.Timer]>([:])
    private let writes = NIOLockedValueBox<[String: CoreMetrics.Counter]>([:])
    private let keptHits: CoreMetrics.Counter
    private let keptMisses: CoreMetrics.Counter
    private let openStreams: Meter
    private let hotBytes: Meter
    private let hotFeeds: Meter

    private struct RequestLabels: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct DurationLabels: Hashable {
        let route: String
        let method: String
    }

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2_500),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        keptHits = CoreMetrics.Counter(
            label: "waterfall_kept_answers_total", dimensions: [("result", "hit")], factory: factory)
        keptMisses = CoreMetrics.Counter(
            label: "waterfall_kept_answers_total", dimensions: [("result", "miss")], factory: factory)
        openStreams = Meter(label: "waterfall_event_streams_open", dimensions: [], factory: factory)
        openStreams.set(0)
        hotBytes = Meter(label: "waterfall_hot_geometry_bytes", dimensions: [], factory: factory)
        hotBytes.set(0)
        hotFeeds = Meter(label: "waterfall_hot_feeds", dimensions: [], factory: factory)
        hotFeeds.set(0)
    }

    /// Counts a request that ended with `status` after `duration` (to its answer's head).
    func request(route: String, method: String, status: Int, duration: Duration) {
        let counter = requests.withLockedValue { counters in
            let labels = RequestLabels(route: route, method: method, status: status)
            if let counter = counters[labels] { return counter }
            let counter = CoreMetrics.Counter(
                label: "waterfall_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory)
            counters[labels] = counter
            return counter
        }
        counter.increment()
        let timer = durations.withLockedValue { timers in
            let labels = DurationLabels(route: route, method: method)
            if let timer = timers[labels] { return timer }
            let timer = CoreMetrics.Timer(
                label: "waterfall_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
                factory: factory)
            timers[labels] = timer
            return timer
        }
        let (seconds, attoseconds) = duration.components
        timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Counts a read answered from a kept answer (`hit`) or computed (`miss`).
    func keptAnswer(hit: Bool) {
        (hit ? keptHits : keptMisses).increment()
    }

    /// Counts an event stream that opens (+1) or closes (-1).
    func eventStream(opened: Bool) {
        if opened { openStreams.increment() } else { openStreams.decrement() }
    }

    /// Counts a write that succeeded, by its operation.
    func write(kind: String) {
        let counter = writes.withLockedValue { counters in
            if let counter = counters[kind] { return counter }
            let counter = CoreMetrics.Counter(
                label: "waterfall_writes_total", dimensions: [("kind", kind)], factory: factory)
            counters[kind] = counter
            return counter
        }
        counter.increment()
    }

    /// Every metric in Prometheus' text format (version 0.0.4), with the kept feeds as they are now.
    func exposition(hot: [KeptFeedReport]) -> [UInt8] {
        hotBytes.set(hot.reduce(0) { $0 + $1.bytes })
        hotFeeds.set(hot.count)
        return registry.emitToBuffer()
    }
}
