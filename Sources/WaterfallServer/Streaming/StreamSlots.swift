import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// The streams a server runs now, NDJSON listings and event streams alike (DESIGN section 19):
/// at most ``StreamLimits/total`` in all and ``StreamLimits/perKey`` per API key (callers
/// without a key are bounded by the total alone); beyond either, 503 with `Retry-After`. A
/// listing also holds a read transaction (and, on PostgreSQL, a connection) for as long as it
/// runs, so at most ``StreamLimits/listings`` of those run at once, and
/// ``StreamLimits/listingsPerKey`` for one key.
///
/// A stream is accounted from the moment its route admits it (before its first byte) to its
/// last: the ``StreamSlot`` it holds is given back when the last of its holders lets it go,
/// whether the body ran to its end, the client left, the body was never run (a `HEAD`, whose
/// body the server drops) or the stream was cut.
final class StreamSlots: Sendable {
    let limits: StreamLimits
    private let state = NIOLockedValueBox(Counts())

    private struct Counts {
        var total = 0
        var listings = 0
        var byKey: [StreamOwner: Int] = [:]
        var listingsByKey: [StreamOwner: Int] = [:]
    }

    /// What a slot is taken for.
    enum Kind: Sendable {
        case listing, events
    }

    init(limits: StreamLimits) {
        self.limits = limits
    }

    /// How many streams run now, for tests and metrics.
    var running: Int { state.withLockedValue { $0.total } }

    /// Takes a slot for a stream of `kind` for the caller holding the key or link `key` (`nil`: none).
    /// - Throws: ``Problem`` 503 with `Retry-After` when a cap is reached.
    func take(_ kind: Kind, key: StreamOwner?) throws(Problem) -> StreamSlot {
        let refusal: String? = state.withLockedValue { counts in
            if counts.total >= limits.total {
                return "\(limits.total) streams are open on this server already (--max-streams)"
            }
            if kind == .listing && counts.listings >= limits.listings {
                return "\(limits.listings) listings are streaming already"
            }
            if let key, counts.byKey[key, default: 0] >= limits.perKey {
                return "\(key) holds \(limits.perKey) streams already (--max-streams-per-key)"
            }
            if let key, kind == .listing, counts.listingsByKey[key, default: 0] >= limits.listingsPerKey {
                return "\(key) is streaming a listing already"
            }
            counts.total += 1
            if kind == .listing { counts.listings += 1 }
            if let key {
                counts.byKey[key, default: 0] += 1
                if kind == .listing { counts.listingsByKey[key, default: 0] += 1 }
            }
            return nil
        }
        if let refusal {
            throw Problem(.serviceUnavailable, "\(refusal); try again shortly.", headers: [.retryAfter: "5"])
        }
        return StreamSlot(slots: self, kind: kind, key: key)
    }

    fileprivate func giveBack(_ kind: Kind, key: StreamOwner?) {
        state.withLockedValue { counts in
            counts.total -= 1
            if kind == .listing { counts.listings -= 1 }
            if let key {
                counts.byKey[key, default: 1] -= 1
                if counts.byKey[key] == 0 { counts.byKey[key] = nil }
                if kind == .listing {
                    counts.listingsByKey[key, default: 1] -= 1
                    if counts.listingsByKey[key] == 0 { counts.listingsByKey[key] = nil }
                }
            }
        }
    }
}

/// Whose streams a slot counts against (``StreamSlots``): an API key's, by name, or a share
/// link's, by id. The two never share a count, whatever a key is named.
enum StreamOwner: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    case key(String)
    case link(Int64)

    init(stringLiteral name: String) {
        self = .key(name)
    }

    var description: String {
        switch self {
        case .key(let name): "key \(name.quoted)"
        case .link(let id): "share link \(id)"
        }
    }
}

/// The bounds of ``StreamSlots`` and of each stream's client.
public struct StreamLimits: Sendable {
    /// Streams open at once on a server (`--max-streams`).
    public var total = 256
    /// Streams one API key may hold open at once (`--max-streams-per-key`).
    public var perKey = 16
    /// NDJSON listings at once: each holds a read transaction while it runs.
    public var listings = 2
    /// NDJSON listings one API key may run at once, so that one key cannot take them all.
    public var listingsPerKey = 1
    /// How long a stream waits for a client that reads nothing before it closes the connection
    /// (DESIGN section 19: a reader that makes no progress).
    public var patience: Duration = .seconds(30)

    public init() {}
}

/// One stream's place among a server's (``StreamSlots``): given back when the last holder lets
/// it go, and also when ``release()`` is called, whichever comes first.
final class StreamSlot: Sendable {
    private let slots: StreamSlots
    private let kind: StreamSlots.Kind
    private let key: StreamOwner?
    private let held = NIOLockedValueBox(true)
    /// Run once when the slot is given back (closes what the stream holds).
    private let onRelease = NIOLockedValueBox<[@Sendable () -> Void]>([])

    fileprivate init(slots: StreamSlots, kind: StreamSlots.Kind, key: StreamOwner?) {
        self.slots = slots
        self.kind = kind
        self.key = key
    }

    /// Runs `action` when the slot is given back (at once if it has been).
    func whenReleased(_ action: @escaping @Sendable () -> Void) {
        let now = held.withLockedValue { held in
            if held { onRelease.withLockedValue { $0.append(action) } }
            return !held
        }
        if now { action() }
    }

    /// Gives the slot back (once; later calls do nothing).
    func release() {
        let first = held.withLockedValue { held in
            defer { held = false }
            return held
        }
        guard first else { return }
        slots.giveBack(kind, key: key)
        for action in onRelease.withLockedValue({ $0 }) { action() }
    }

    deinit { release() }
}

/// Watches a stream's writes: one that waits longer than the patience for the client to take
/// its bytes (a reader that makes no progress), or still waits when a shutdown's grace ends,
/// closes the connection, which ends the write with an error and so the stream.
struct StallWatch: Sendable {
    let connection: (any Channel)?
    let patience: Duration
    let shutdown: ShutdownClock

    /// Writes `buffer`, closing the connection if the client has not taken it within the
    /// patience, or by the end of a shutdown's grace.
    func write(_ buffer: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        let watchdog = Task { [connection, patience, shutdown] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await Task.sleep(for: patience) }
                group.addTask { try? await shutdown.graceEnded() }
                await group.next()
                group.cancelAll()
            }
            // Cancelled: the write was taken in time.
            guard !Task.isCancelled else { return }
            connection?.close(promise: nil)
        }
        defer { watchdog.cancel() }
        try await writer.write(buffer)
    }
}
