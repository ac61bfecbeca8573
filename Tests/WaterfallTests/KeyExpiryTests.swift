import Foundation
import Testing
import WaterfallTestSupport

@testable import Waterfall

/// `key add --expires WHEN`, and keys that expire and remember their last use on every engine.
@Suite(.onOwnThreads(lane: .database)) struct KeyExpiryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    @Test(arguments: [("45s", 45.0), ("30m", 1_800), ("12h", 43_200), ("90d", 7_776_000), ("36500d", 3_153_600_000)])
    func durationsCountFromNow(_ text: String, _ seconds: TimeInterval) throws {
        #expect(try KeyExpiry.date(from: text, now: now) == now.addingTimeInterval(seconds))
    }

    @Test func timesAreISO8601WithAZoneOrADateAndRoundedUpToTheSecond() throws {
        #expect(
            try KeyExpiry.date(from: "2027-01-31T18:00:00Z", now: now) == Date(timeIntervalSince1970: 1_801_418_400))
        #expect(
            try KeyExpiry.date(from: "2027-01-31T19:00:00+01:00", now: now)
                == Date(timeIntervalSince1970: 1_801_418_400))
        #expect(
            try KeyExpiry.date(from: "2027-01-31T18:00:00.250Z", now: now) == Date(timeIntervalSince1970: 1_801_418_401)
        )
        #expect(try KeyExpiry.date(from: "2027-02-01", now: now) == Date(timeIntervalSince1970: 1_801_440_000))
        #expect(try KeyExpiry.date(from: "1s", now: now.addingTimeInterval(0.5)) == now.addingTimeInterval(2))
        #expect(KeyExpiry.format(Date(timeIntervalSince1970: 1_801_418_400)) == "2027-01-31T18:00:00Z")
    }

    @Test(arguments: [
        ("", "takes a duration such as 45s"), ("soon", "takes a duration such as 45s"),
        ("10", "takes a duration such as 45s"),
        ("-5m", "takes a duration such as 45s"), ("5w", "takes a duration such as 45s"),
        ("2027-01-31T18:00:00", "takes a duration such as 45s"),
        ("0s", "from 1s to 36500d"), ("36501d", "from 1s to 36500d"),
        ("2027-01-15T07:59:59Z", "must be a time in the future"), ("2200-01-01", "at most 100 years"),
    ])
    func badValuesAreOneSentenceNamingTheFlag(_ text: String, _ fragment: String) {
        #expect {
            try KeyExpiry.date(from: text, now: now)
        } throws: { error in
            guard case .invalidValue(.expires, let rest) = error as? WaterfallError else { return false }
            return rest.contains(fragment) && rest.contains(text.quoted) && rest.hasSuffix(".")
        }
    }

    @Test(arguments: TestEngine.all) func keysKeepTheirExpiryAndTheirLatestUse(engine: TestEngine) async throws {
        // Given a key that expires and one that does not
        let catalog = try TestCatalog(engine)
        let service = catalog.service
        let expires = Date(timeIntervalSince1970: 1_900_000_000)
        let secret = try await service.addKey(name: "app", feeds: ["travel"], canWrite: true, expires: expires)
        _ = try await service.addKey(name: "dashboard", feeds: [], canWrite: false)
        await #expect(try service.keyring().grant(forSecret: secret)?.expires == expires)

        // When the first is used twice, the later use recorded first
        await #expect(try service.recordKeyUse(named: "app", at: Date(timeIntervalSince1970: 1_800_000_060)))
        await #expect(try service.recordKeyUse(named: "app", at: Date(timeIntervalSince1970: 1_800_000_000)))
        try await service.recordKeyUse(named: "nobody", at: Date(timeIntervalSince1970: 1_800_000_000))

        // Then the list shows each key's scope, expiry and latest use
        let keys = try await service.keys().keys
        #expect(
            keys == [
                APIKey(
                    name: "app", feeds: ["travel"], write: true, expires: expires,
                    lastUsed: Date(timeIntervalSince1970: 1_800_000_060)),
                APIKey(name: "dashboard", feeds: [], write: false, expires: nil, lastUsed: nil),
            ])
        #expect(keys[0].isExpired(at: expires) && !keys[0].isExpired(at: expires.addingTimeInterval(-1)))
        await #expect(try service.keyring().hasWriteKey(at: expires.addingTimeInterval(-1)))
        await #expect(try !service.keyring().hasWriteKey(at: expires))
    }
}
