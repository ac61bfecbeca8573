import Testing

@testable import WaterfallSync

/// `placeholder`, `color`, `renditions` and `urlTemplate` in feed files (DESIGN section 16):
/// what is accepted, what the catalog keeps, and that anything else is refused with its JSON
/// path in one sentence.
@Suite struct RenditionTests {
    @Test func placeholderColourAndRenditionsAreRead() throws {
        // Given a feed with a list, a template, and an image with neither
        let document = try decodeFeed(
            #"""
            {"images": [
              {"id": "a", "width": 1600, "height": 900, "placeholder": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "color": "#A0B1c2",
               "renditions": [{"width": 320, "url": "https://x/a-320.jpg"}, {"url": "https://x/a-640.jpg", "width": 640, "note": [1]}]},
              {"id": "b", "width": 800, "height": 600, "placeholder": "LEHV6nWB2yk8pyo0adR*.7kCMdnj", "urlTemplate": "https://x/b/{width}.jpg"},
              {"id": "c", "width": 1, "height": 1, "placeholder": null, "color": null, "renditions": null, "urlTemplate": null},
              {"id": "d", "width": 1, "height": 1, "renditions": []}]}
            """#)
        // Then each image has what it gave, the colour in lower case
        let images = document.images
        #expect(images[0].placeholder == "1QcSHQRnh493V4dIh4eXh1h4kJUI")
        #expect(images[0].color == "#a0b1c2")
        #expect(
            images[0].renditions
                == .list([
                    Rendition(width: 320, url: "https://x/a-320.jpg"),
                    Rendition(width: 640, url: "https://x/a-640.jpg"),
                ]))
        #expect(images[1].placeholder == "LEHV6nWB2yk8pyo0adR*.7kCMdnj")
        #expect(images[1].renditions == .template("https://x/b/{width}.jpg"))
        #expect(images[2].placeholder == nil && images[2].color == nil && images[2].renditions == nil)
        #expect(images[3].renditions == nil)
    }

    @Test func ndjsonLinesCarryThemToo() throws {
        let document = try decodeFeed(
            ##"{"id": "a", "width": 10, "height": 10, "color": "#000000", "urlTemplate": "https://x/{width}/{width}.jpg"}"##
                + "\n",
            format: .ndjson)
        #expect(document.images[0].color == "#000000")
        #expect(document.images[0].renditions == .template("https://x/{width}/{width}.jpg"))
    }

    @Test(arguments: [
        (##""red""##, ##"found "red""##), (##""#fff""##, ##"found "#fff""##), (##""a0b1c2f""##, ##"found "a0b1c2f""##),
        (##""#a0b1cg""##, ##"found "#a0b1cg""##), (##""#a0b1c2 ""##, ##"found "#a0b1c2 ""##),
        ("16777215", "found 16777215"),
    ])
    func aBadColourIsRefusedWithItsPath(value: String, found: String) {
        let message = feedError(
            #"{"images": [{"id": "a", "width": 1, "height": 1}, {"id": "b", "width": 1, "height": 1, "color": \#(value)}]}"#
        )
        #expect(
            message
                == ##"feed.json: images[1].color: expected a colour "#rrggbb" such as "#a0b1c2", or null, \##(found)."##
        )
    }

    @Test(arguments: [
        (String(repeating: "A", count: 65), "\"" + String(repeating: "A", count: 40) + "…\""),
        ("has space", #""has space""#),
        ("", "an empty string"), ("é", #""é""#),
    ])
    func aBadPlaceholderIsRefusedWithItsPath(value: String, found: String) {
        let message = imageError(#"{"id": "a", "width": 1, "height": 1, "placeholder": "\#(value)"}"#)
        #expect(
            message
                == "feed.json: images[0].placeholder: expected a ThumbHash or BlurHash of 1 to 64 printable ASCII characters without spaces, or null, found \(found)."
        )
    }

    @Test func aPlaceholderOf64CharactersIsAccepted() throws {
        let hash = String(repeating: "~", count: 64)
        #expect(
            try decodeFeed(feed(image: #"{"id": "a", "width": 1, "height": 1, "placeholder": "\#(hash)"}"#)).images[0]
                .placeholder == hash)
    }

    @Test(arguments: [
        (
            #"[{"width": 640, "url": "u"}, {"width": 320, "url": "v"}]"#,
            "images[0].renditions[1].width: expected a width above 640 (widths strictly ascending), found 320."
        ),
        (
            #"[{"width": 640, "url": "u"}, {"width": 640, "url": "v"}]"#,
            "images[0].renditions[1].width: expected a width above 640 (widths strictly ascending), found 640."
        ),
        (
            #"[{"width": 0, "url": "u"}]"#,
            "images[0].renditions[0].width: expected an integer from 1 to 1000000, found 0."
        ),
        (
            #"[{"width": 320.5, "url": "u"}]"#,
            "images[0].renditions[0].width: expected an integer from 1 to 1000000, found 320.5."
        ),
        (#"[{"width": 320}]"#, #"images[0].renditions[0]: expected an "url" field, found none."#),
        (#"[{"url": "u"}]"#, #"images[0].renditions[0]: expected a "width" field, found none."#),
        (
            #"[{"width": 320, "url": ""}]"#,
            "images[0].renditions[0].url: expected a non-empty URL, found an empty string."
        ),
        (
            #"[{"width": 320, "url": "a\nb"}]"#,
            #"images[0].renditions[0].url: expected a string without control characters, found "a\u000Ab"."#
        ),
        (#"[{"width": 320, "url": 7}]"#, "images[0].renditions[0].url: expected a non-empty URL, found 7."),
        (
            #"[{"width": 1, "url": "u", "width": 2}]"#,
            #"images[0].renditions[0]: expected one "width" field, found two."#
        ),
        (#"["u"]"#, #"images[0].renditions[0]: expected a rendition object {"width", "url"}, found "u"."#),
        (
            #"{"width": 1}"#,
            #"images[0].renditions: expected an array of rendition objects {"width", "url"}, or null, found an object."#
        ),
    ])
    func badRenditionsAreRefusedWithTheirPath(value: String, message: String) {
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "renditions": \#(value)}"#) == "feed.json: " + message)
    }

    @Test func moreThanThirtyTwoRenditionsAreRefused() {
        let list = (1...33).map { #"{"width": \#($0), "url": "u\#($0)"}"# }.joined(separator: ",")
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, "renditions": [\#(list)]}"#)
                == "feed.json: images[0].renditions: expected at most 32 renditions, found more.")
    }

    @Test func aRenditionsErrorOnALineNamesTheLine() {
        let message = feedError(
            #"{"id": "a", "width": 1, "height": 1, "renditions": [{"width": 2, "url": "u"}, {"width": 1, "url": "v"}]}"#
                + "\n", format: .ndjson)
        #expect(
            message
                == "feed.ndjson: line 1: renditions[1].width: expected a width above 2 (widths strictly ascending), found 1."
        )
    }

    @Test(arguments: [#""https://x/a.jpg""#, #""https://x/{w}.jpg""#, #""https://x/{width}\u0007.jpg""#, "42"])
    func aTemplateWithoutItsWidthIsRefused(value: String) {
        let message = imageError(#"{"id": "a", "width": 1, "height": 1, "urlTemplate": \#(value)}"#)
        #expect(message?.hasPrefix(#"feed.json: images[0].urlTemplate: expected "#) == true, "\(message ?? "accepted")")
        if value != "42" {
            #expect(message?.contains(#"expected a URL containing "{width}", or null, found"#) == true)
        }
    }

    @Test(arguments: [
        #""renditions": [{"width": 1, "url": "u"}], "urlTemplate": "t/{width}""#,
        #""urlTemplate": "t/{width}", "renditions": [{"width": 1, "url": "u"}]"#,
    ])
    func renditionsAndATemplateTogetherAreRefused(fields: String) {
        #expect(
            imageError(#"{"id": "a", "width": 1, "height": 1, \#(fields)}"#)
                == "feed.json: images[0]: expected renditions or urlTemplate, found both.")
    }

    @Test func theSmallestCoveringRenditionIsChosenElseTheLargest() {
        let renditions = Renditions.list([
            Rendition(width: 320, url: "s"), Rendition(width: 640, url: "m"), Rendition(width: 1280, url: "l"),
        ])
        #expect(renditions.url(forPixels: 1, imageWidth: 4000) == "s")
        #expect(renditions.url(forPixels: 320, imageWidth: 4000) == "s")
        #expect(renditions.url(forPixels: 320.5, imageWidth: 4000) == "m")
        #expect(renditions.url(forPixels: 1280, imageWidth: 4000) == "l")
        #expect(renditions.url(forPixels: 5000, imageWidth: 4000) == "l")
    }

    @Test func aTemplateIsFilledWithThePixelsRoundedUpWithinTheImage() {
        let template = Renditions.template("https://x/{width}/a-{width}.jpg")
        #expect(template.url(forPixels: 344.2, imageWidth: 1600) == "https://x/345/a-345.jpg")
        #expect(template.url(forPixels: 0.2, imageWidth: 1600) == "https://x/1/a-1.jpg")
        #expect(template.url(forPixels: 3000, imageWidth: 1600) == "https://x/1600/a-1600.jpg")
    }

    @Test(arguments: [
        Renditions.list([Rendition(width: 320, url: "https://x/a b.jpg"), Rendition(width: 640, url: "* odd")]),
        Renditions.template("https://x/{width}.jpg"), Renditions.template("* {width}"),
    ])
    func theStoredTextReadsBack(renditions: Renditions) {
        #expect(Renditions(storedText: renditions.storedText) == renditions)
    }

    @Test func aStoredTextThatIsNotOneIsNil() {
        #expect(Renditions(storedText: "") == nil)
        #expect(Renditions(storedText: "wide https://x") == nil)
        #expect(Renditions(storedText: "320") == nil)
    }
}
