import Waterfall

/// The HTML rendering of a ``Scene``: one file with an inline stylesheet.
///
/// The markup is also well-formed XML (void elements self-closed, every value escaped), so
/// tests and tools can read it with an XML parser.
struct HTMLDocument {
    let scene: Scene
    let options: RenderOptions

    var text: String {
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta name="generator" content="waterfall render"/>
            <title>\(Markup.html("Waterfall · " + scene.legendText))</title>
            <style>\(Self.stylesheet)</style>
            </head>
            <body>
            <p class="legend"><strong>\(Markup.html(scene.legend.feed))</strong> · revision \(scene.legend.revision) · \(Markup.html(scene.legend.layout)) · \(Markup.html(scene.legend.shown)) · \(Number.text(scene.width)) × \(Number.text(scene.height)) pt</p>

            """
        out +=
            "<div data-waterfall=\"\(Markup.html(scene.legend.feed))\" style=\"width:\(px(scene.width));height:\(px(scene.height));--caption:\(px(scene.captionHeight))\">\n"
        for item in scene.items { out += image(item) }
        for footer in scene.footers { out += supplement(footer, kind: "footer") }
        for header in scene.headers { out += supplement(header, kind: "header") }
        out += "</div>\n"
        if options.includeMeasurementScript { out += Self.measurementScript }
        out += "</body>\n</html>\n"
        return out
    }

    /// `left`, `top`, `width`, `height` of a frame, relative to the container.
    private func box(_ frame: Frame) -> String {
        "left:\(px(frame.x));top:\(px(frame.y - scene.top));width:\(px(frame.width));height:\(px(frame.height))"
    }

    private func px(_ value: Double) -> String {
        Number.text(value) + "px"
    }

    private func image(_ item: PlacedImage) -> String {
        let id = Markup.html(item.id)
        let placeholder = Placeholder(id: item.id, pixelWidth: item.pixelWidth, pixelHeight: item.pixelHeight)
        var tooltip = item.id
        if let title = item.title, !title.isEmpty { tooltip += " — " + title }
        tooltip += " (\(item.pixelWidth) × \(item.pixelHeight))"
        var out = "<div class=\"image\" data-id=\"\(id)\" data-index=\"\(item.index)\""
        if let section = item.section { out += " data-section=\"\(Markup.html(section))\"" }
        out += " title=\"\(Markup.html(tooltip))\" style=\"\(box(item.frame))\">"
        if let url = Markup.imageURL(item.url) {
            out +=
                "<img src=\"\(Markup.html(url))\" alt=\"\(Markup.html(item.title ?? item.id))\" loading=\"lazy\" decoding=\"async\" referrerpolicy=\"no-referrer\" style=\"background:\(placeholder.background)\"/>"
        } else {
            out +=
                "<div class=\"placeholder\" style=\"background:\(placeholder.background);color:\(placeholder.foreground)\"><span class=\"id\">\(id)</span><span class=\"ratio\">\(placeholder.ratio) · \(item.pixelWidth)×\(item.pixelHeight)</span></div>"
        }
        if scene.captionHeight > 0 {
            out += "<div class=\"caption\">\(Markup.html(item.title ?? ""))</div>"
        }
        return out + "</div>\n"
    }

    private func supplement(_ supplement: PlacedSupplement, kind: String) -> String {
        let pinned = supplement.pinned == true
        let name =
            supplement.label.map { "<span class=\"name\">\(Markup.html($0))</span>" }
            ?? "<span class=\"name unnamed\">unnamed section</span>"
        let label = kind == "footer" ? "end of " + name : name
        let marker = pinned ? "<span class=\"pin\">pinned</span>" : ""
        return
            "<div class=\"\(kind)\(pinned ? " pinned" : "")\" data-\(kind)=\"\(Markup.html(supplement.section ?? ""))\" style=\"\(box(supplement.frame))\">\(label)\(marker)</div>\n"
    }

    /// Images under footers under headers under pinned headers; no margin, padding or border
    /// changes any positioned box (decorations are shadows and radii).
    static let stylesheet = """

        :root { color-scheme: light; }
        html, body { margin: 0; }
        body { padding: 24px; background: #eceff3; color: #1f2430;
          font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        .legend { margin: 0 0 14px; color: #4a5263; }
        .legend strong { color: #1f2430; font-weight: 600; }
        [data-waterfall] { position: relative; box-sizing: border-box; margin: 0; padding: 0; border: 0;
          overflow: hidden; background: #ffffff; border-radius: 4px;
          box-shadow: 0 1px 3px rgba(16, 24, 40, .12), 0 12px 32px rgba(16, 24, 40, .08); }
        .image, .header, .footer { position: absolute; box-sizing: border-box; margin: 0; padding: 0; border: 0;
          overflow: hidden; }
        .image { z-index: 1; border-radius: 6px; background: #e3e6eb;
          box-shadow: inset 0 0 0 1px rgba(16, 24, 40, .06); }
        .image > img, .image > .placeholder { position: absolute; left: 0; top: 0; width: 100%;
          height: calc(100% - var(--caption)); margin: 0; border: 0; box-sizing: border-box; }
        .image > img { display: block; object-fit: cover; color: #4a5263; font-size: 11px; }
        .image > .placeholder { padding: 6px; display: flex; flex-direction: column;
          align-items: center; justify-content: center; gap: 3px; text-align: center; }
        .placeholder .id { max-width: 100%; font-weight: 650; font-size: 14px; overflow-wrap: anywhere; }
        .placeholder .ratio { font-size: 11px; opacity: .75; font-variant-numeric: tabular-nums; }
        .caption { position: absolute; left: 0; right: 0; bottom: 0; height: var(--caption);
          line-height: var(--caption); padding: 0 8px; box-sizing: border-box; font-size: 12px; color: #2b3140;
          background: #f9fafb; box-shadow: inset 0 1px 0 rgba(16, 24, 40, .06); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .header, .footer { display: flex; align-items: center; gap: 8px; padding: 0 12px; white-space: nowrap; }
        .header { z-index: 3; font-weight: 650; font-size: 14px; background: rgba(248, 249, 251, .94);
          box-shadow: inset 0 -1px 0 #d9dde4; }
        .footer { z-index: 2; font-size: 12px; color: #6b7385; background: #f6f7f9;
          box-shadow: inset 0 1px 0 #e3e6eb; }
        .unnamed { font-style: italic; font-weight: 400; }
        .header.pinned { z-index: 4; background: #1f2430; color: #ffffff;
          box-shadow: 0 3px 10px rgba(16, 24, 40, .35); }
        .pin { margin-left: auto; padding: 1px 7px; border-radius: 999px; background: #f5b301; color: #1f2430;
          font-size: 10px; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; }

        """

    /// Measures every drawn box relative to the container, after layout, into
    /// `<pre id="measure">` as base64 JSON (plain characters survive any DOM serializer).
    static let measurementScript = """
        <pre id="measure"></pre>
        <script>
        (function () {
          var container = document.querySelector('[data-waterfall]');
          var origin = container.getBoundingClientRect();
          function box(element, key) {
            var r = element.getBoundingClientRect();
            return { key: element.getAttribute(key), x: r.left - origin.left, y: r.top - origin.top,
                     width: r.width, height: r.height };
          }
          function all(key) {
            return Array.prototype.map.call(container.querySelectorAll('[' + key + ']'),
                                            function (e) { return box(e, key); });
          }
          var result = { container: { width: origin.width, height: origin.height },
                         items: all('data-id'), headers: all('data-header'), footers: all('data-footer') };
          var json = JSON.stringify(result);
          document.getElementById('measure').textContent = btoa(unescape(encodeURIComponent(json)));
        })();
        </script>

        """
}
