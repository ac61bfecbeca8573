import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaterfallServer

/// Request ids: a client's `X-Request-ID` (1 to 128 visible ASCII characters) or a new one,
/// echoed in the answer and in a problem's `instance`.
@Suite struct RequestIDTests {
    static let requestID = HTTPField.Name("X-Request-ID")!

    @Test func aClientsIdIsEchoedOnAnswersKeptAnswersAndProblems() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            // Given a client that names its requests
            for attempt in ["first", "second"] {
                let id = "proxy-7f3a/\(attempt)~!"
                // When it reads (the second time from the kept answer)
                try await client.execute(uri: "/v1/feeds/travel/images", method: .get, headers: [Self.requestID: id]) {
                    response in
                    // Then the answer carries its id
                    #expect(response.status == .ok)
                    #expect(response.headers[Self.requestID] == id)
                }
            }
            let longest = String(repeating: "x", count: 128)
            try await client.execute(uri: "/v1/feeds/nope", method: .get, headers: [Self.requestID: longest]) {
                response in
                response.expectProblem(.notFound)
                #expect(response.headers[Self.requestID] == longest)
                #expect(response.object["instance"] as? String == longest)
                #expect(response.text.hasSuffix(",\"instance\":\"\(longest)\"}\n"))
            }
        }
    }

    @Test func withoutAnIdOrWithABadOneTheServerMakesOne() async throws {
        let fixture = try await TestServer()
        try await fixture.test { client in
            var seen: Set<String> = []
            let bad = [nil, "", String(repeating: "x", count: 129), "two words", "tab\there", "caf\u{E9}"]
            for sent in bad {
                let headers: HTTPFields = sent.map { [Self.requestID: $0] } ?? [:]
                let id = try await client.execute(uri: "/v1/feeds/nope", method: .get, headers: headers) { response in
                    let id = response.headers[Self.requestID] ?? ""
                    #expect(id.count == 25 && id.utf8.allSatisfy { (0x21...0x7E).contains($0) } && id != sent, "\(id)")
                    #expect(response.object["instance"] as? String == id)
                    return id
                }
                seen.insert(id)
            }
            seen.insert(try await client.execute(uri: "/healthz", method: .get) { $0.headers[Self.requestID] ?? "" })
            // Each one new.
            #expect(seen.count == bad.count + 1)
        }
    }
}
