import Foundation
import OpenAPIRuntime

/// A feed's live changes (`GET /v1/feeds/{feed}/events`): one ``Components/Schemas/ChangeEvent``
/// per revision after the one asked for, then more as the feed moves on, whoever writes it.
///
/// The stream's other lines (`retry:`, `: heartbeat` comments) are skipped. It ends when the
/// feed is removed or the server stops; stop iterating (or cancel the task) to close it.
/// After a dropped connection, ask again with `since:` the last event's revision.
public struct ChangeEvents: AsyncSequence, Sendable {
    public typealias Element = Components.Schemas.ChangeEvent
    typealias Events = ServerSentEventsDeserializationSequence<ServerSentEventsLineDeserializationSequence<HTTPBody>>

    let events: Events

    init(body: HTTPBody) {
        events = body.asDecodedServerSentEvents()
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var upstream: Events.AsyncIterator
        let decoder = JSONDecoder()

        /// The next `change` event's data.
        /// - Throws: a transport error, or `DecodingError` for data that is not a change event.
        public mutating func next() async throws -> Element? {
            while let event = try await upstream.next() {
                guard event.event == "change", let data = event.data else { continue }
                return try decoder.decode(Element.self, from: Data(data.utf8))
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(upstream: events.makeAsyncIterator())
    }
}
