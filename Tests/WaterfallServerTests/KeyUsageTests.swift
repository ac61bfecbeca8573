import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Waterfall
import WaterfallTestSupport

@testable import WaterfallServer

/// A key's last use is written without retiring what the server keeps.
@Suite(.onOwnThreads(lane: .database)) struct KeyUsageTests {
    /// Issue 50, fault 6: the write of a key's last use went through the runner's counted
    /// writes, which retire every kept answer: on PostgreSQL, whose watcher hears only other
    /// instances' commits, every answer was computed again each minute per key in use. It is a
    /// best-effort write that changes no answer, and retires nothing.
    @Test func recordingAKeysUseRetiresNoKeptAnswer() async throws {
        let schema = try PostgresScratchSchema()
        let fixture = try await TestServer(database: schema.url)
        let secret = try await fixture.service.addKey(name: "reader", feeds: [], canWrite: false)
        let runner = fixture.server.runner
        let target = "/v1/feeds/travel/layouts/phone/page?offset=0&limit=4"
        try await fixture.test { client in
            try await client.execute(uri: target, method: .get, headers: [.authorization: "Bearer \(secret)"]) {
                #expect($0.status == .ok)
            }
            let key = KeptAnswerKey(target: target, scope: .all)
            try #require(runner.keptAnswer(for: key) != nil, "the page was not kept")
            // The request above noted the key's first use; once its write is in, the answer is
            // still kept.
            var used = false
            for _ in 0..<100 where !used {
                try await Task.sleep(for: .milliseconds(50))
                used = try await fixture.service.keys().keys.first?.lastUsed != nil
            }
            #expect(used, "the key's use was never written")
            #expect(runner.keptAnswer(for: key) != nil, "writing the key's last use retired the kept answer")
        }
        withExtendedLifetime(schema) {}
    }
}
