import Foundation
import Testing

@testable import WaterfallSync

/// `takenAt`, `sectionBy` and `timeZone` in feed files (DESIGN section 17): what is accepted, and
/// that anything else is refused with the JSON path in one sentence.
@Suite struct TakenAtTests {
    /// The instant of an RFC 3339 text, as Foundation's ISO 8601 reader sees it.
    private static func foundationMilliseconds(_ text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return Int64(formatter.date(from: text)!.timeIntervalSince1970) * 1000
    }

    @Test(arguments: [
        "2017-11-14T16:28:13+01:00", "2017-11-14T15:28:13Z", "2016-02-29T23:59:59-12:00",
        "2017-03-12T02:30:00-05:00", "2017-12-31T23:30:00+14:00", "1583-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    ])
    func anOffsetDateTimeIsItsInstant(text: String) throws {
        let document = try decodeFeed(#"{"images": [{"id": "a", "width": 1, "height": 1, "takenAt": "\#(text)"}]}"#)
        #expect(document.images[0].takenAt == Self.foundationMilliseconds(text))
    }

    @Test func lowercaseLettersAndFractionsAreAcceptedToTheMillisecond() throws {
        let document = try decodeFeed(
            #"""
            {"images": [{"id": "a", "width": 1, "height": 1, "takenAt": "2017-11-14t15:28:13.25z"},
                        {"id": "b", "width": 1, "height": 1, "takenAt": "2017-11-14T15:28:13.123456+00:00"},
                        {"id": "c", "width": 1, "height": 1, "takenAt": null},
                        {"id": "d", "width": 1, "height": 1}]}
            """#)
        let base = Self.foundationMilliseconds("2017-11-14T15:28:13Z")
        #expect(document.images.map(\.takenAt) == [base + 250, base + 123, nil, nil])
    }

    @Test func answersWriteTheInstantInUTC() {
        #expect(
            TakenAt.string(milliseconds: Self.foundationMilliseconds("2017-11-14T16:28:13+01:00"))
                == "2017-11-14T15:28:13Z")
        #expect(
            TakenAt.string(milliseconds: Self.foundationMilliseconds("1969-12-31T23:59:59Z") + 50)
                == "1969-12-31T23:59:59.050Z")
        #expect(TakenAt.string(milliseconds: 0) == "1970-01-01T00:00:00Z")
    }

    @Test(arguments: [
        ("2017-11-14T16:28:13", "no offset"), ("2017-11-14 16:28:13Z", "a space"),
        ("2017-02-29T10:00:00Z", "no such day"),
        ("2017-04-31T10:00:00Z", "no such day"), ("2017-13-01T10:00:00Z", "no such month"),
        ("2017-11-14T24:00:00Z", "no such hour"),
        ("2016-12-31T23:59:60Z", "a leap second"), ("2017-11-14T16:28:13+24:00", "an offset out of range"),
        ("1582-10-15T00:00:00Z", "before 1583"), ("2017-11-14T16:28:13.Z", "an empty fraction"),
        ("2017-11-14", "a date alone"), ("", "empty"),
    ])
    func aBadDateTimeIsRefusedWithItsPath(text: String, why: String) {
        let message = imageError(#"{"id": "a", "width": 1, "height": 1, "takenAt": "\#(text)"}"#)
        let found = text.isEmpty ? "an empty string" : "\"\(text)\""
        #expect(
            message
                == "feed.json: images[0].takenAt: expected an RFC 3339 date-time with an offset such as \"2017-11-14T16:28:13+01:00\", or null, found \(found).",
            "\(why)")
    }

    @Test func aDateTimeThatIsNotAStringIsRefusedWithItsLine() {
        let message = feedError(#"{"id": "a", "width": 1, "height": 1, "takenAt": 1510673293}"# + "\n", format: .ndjson)
        #expect(
            message
                == "feed.ndjson: line 1: takenAt: expected an RFC 3339 date-time with an offset such as \"2017-11-14T16:28:13+01:00\", or null, found 1510673293."
        )
    }

    @Test func sectionByAndTimeZoneAreRead() throws {
        let document = try decodeFeed(#"{"sectionBy": "month", "timeZone": "America/New_York", "images": []}"#)
        #expect(document.sectionBy == .month && document.timeZone == "America/New_York")
        let none = try decodeFeed(#"{"sectionBy": "none", "timeZone": null, "images": []}"#)
        #expect(none.sectionBy == .feedSections && none.timeZone == nil)
    }

    @Test func aBadSectionByOrTimeZoneIsRefusedWithItsName() {
        #expect(
            feedError(#"{"sectionBy": "week", "images": []}"#)
                == "feed.json: sectionBy: expected \"day\", \"month\", \"year\", \"none\" or null, found \"week\".")
        #expect(
            feedError(#"{"sectionBy": 1, "images": []}"#)
                == "feed.json: sectionBy: expected \"day\", \"month\", \"year\", \"none\" or null, found 1.")
        #expect(
            feedError(#"{"timeZone": "Mars/Olympus_Mons", "images": []}"#)
                == "feed.json: timeZone: expected an IANA time zone name such as \"Europe/Paris\" or \"UTC\", or null, found \"Mars/Olympus_Mons\"."
        )
        #expect(
            feedError(#"{"timeZone": "CET+1", "images": []}"#)
                == "feed.json: timeZone: expected an IANA time zone name such as \"Europe/Paris\" or \"UTC\", or null, found \"CET+1\"."
        )
        #expect(
            feedError(#"{"sectionBy": "day", "sectionBy": "day", "images": []}"#)
                == "feed.json: expected one \"sectionBy\" field in the top-level object, found two.")
    }
}
