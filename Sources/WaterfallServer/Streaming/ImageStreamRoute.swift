import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Waterfall
import WaterfallJSON

/// `GET /v1/feeds/{feed}/images` with `Accept: application/x-ndjson` (DESIGN section 16): the
/// whole catalog at one revision, from one read transaction, written as it is read: a first line
/// `{"feed", "revision", "totalItems"}`, then an image a line as `images` lists it. The read
/// runs on a thread of the service runner and hands its batches on through a ``BatchChannel``
/// of a few batches, so the server holds a few thousand images whatever the feed's size and
/// the client's speed. Never kept (``KeptAnswerGate`` lets it through) and never compressed.
///
/// A stream is accounted (``StreamSlots``) from its admission to its last byte, and freed when
/// the client leaves, when it reads nothing for the patience (30 s: the connection is closed),
/// and when its body is never run: a `HEAD` is answered with the head alone, reading nothing but
/// the feed's row, and a body dropped unrun closes its channel, which stops the reader.
///
/// At shutdown a stream is a request in flight: it goes on for the grace (`--shutdown-grace`),
/// and one still running when the grace ends is cut there: the reader stops, and the
/// connection is closed without the chunked body's last chunk, so a client sees a broken
/// answer (and fewer lines than `totalItems`), never a short listing that looks whole.
enum ImageStreamRoute {
    /// Batches in flight between the reading thread and the client.
    static let capacity = 4

    /// Whether the request asks for lines: `Accept` prefers `application/x-ndjson` to every
    /// other type it names (the greatest `q`, the first of equals: a generated client that
    /// names both, JSON first, gets JSON).
    static func asksForLines(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept], accept.lowercased().contains("ndjson") else { return false }
        var best: (type: Substring, q: Double)?
        for range in accept.lowercased().split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let type = parts.first, !type.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            if q > 0, q > (best?.q ?? 0) { best = (Substring(type), q) }
        }
        return best?.type == "application/x-ndjson"
    }

    static func stream(_ request: Request, _ path: PathParameters, _ services: RouteServices) async throws -> Response {
        var query = try RequestQuery(request)
        let tag = query.string(.tag)
        try query.finish()
        let feed = path["feed"]
        return try await lines(request, path, services, feed: feed) { service, send in
            try await service.streamImages(
                feed: feed, tag: tag,
                head: { head in try send(try StableJSON.document(of: head)) },
                images: { images in
                    var lines: [UInt8] = []
                    lines.reserveCapacity(images.count * 160)
                    for image in images { lines += try StableJSON.document(of: image) }
                    try send(lines)
                })
        }
    }

    /// Streams the lines `read` sends of `feed` (the first before the answer's status: what it
    /// throws first is the answer), accounted as a listing, as the type's comment says. A
    /// `HEAD` reads the feed's row alone.
    static func lines(
        _ request: Request, _ path: PathParameters, _ services: RouteServices, feed: String,
        read:
            @escaping @Sendable (WaterfallService, _ send: @escaping @Sendable ([UInt8]) throws -> Void) async throws
            -> Void
    ) async throws -> Response {
        let runner = services.runner
        let shutdown = services.shutdown
        let headers: HTTPFields = [.contentType: "application/x-ndjson", .cacheControl: "no-cache"]
        if request.method == .head {
            _ = try await runner.run { try await $0.feed(named: feed) }
            return Response(status: .ok, headers: headers)
        }
        let slot = try services.streams.take(.listing, key: path.streamOwner)
        let patience = services.streams.limits.patience
        let channel = BatchChannel(
            capacity: capacity, patience: .seconds(Int(patience.components.seconds)))
        // However the stream ends, even with its body never run, the reader stops.
        slot.whenReleased { channel.close() }
        let reader = Task {
            do {
                try await runner.run { service in
                    try await read(service) { bytes in try channel.send(ByteBuffer(bytes: bytes)) }
                }
                channel.finish(nil)
            } catch {
                channel.finish(error)
            }
        }
        // The first line, or the reason there is none (an unknown feed: 404), before the
        // answer's status is sent.
        let head: ByteBuffer
        do {
            guard let first = try await channel.next() else {
                throw Problem(.internalServerError, "the listing ended before its first line.")
            }
            head = first
        } catch {
            slot.release()
            throw error
        }
        let watch = StallWatch(connection: path.connection, patience: patience, shutdown: shutdown)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // The body holds the slot: given back when it ends, or when it is dropped unrun.
                defer { slot.release() }
                // The grace's end stops the reader, whose next send fails, so `next()` below throws.
                let graceWatch = Task {
                    do {
                        try await shutdown.graceEnded()
                        channel.close()
                    } catch {}
                }
                defer { graceWatch.cancel() }
                do {
                    try await watch.write(head, to: &writer)
                    while let batch = try await channel.next() {
                        if shutdown.graceHasEnded { throw BatchChannel.Stop.closed }
                        try await watch.write(batch, to: &writer)
                    }
                } catch {
                    channel.close()
                    _ = await reader.result
                    throw error
                }
                channel.close()
                try await writer.finish(nil)
            })
    }
}
