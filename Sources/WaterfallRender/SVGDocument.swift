import Waterfall

/// The SVG rendering of a ``Scene``: a standalone XML 1.0 document.
///
/// The `viewBox` starts at the scene's top, so every element keeps its layout coordinates.
/// Each image, header and footer is a nested `<svg>` at its frame, which clips what it holds.
struct SVGDocument {
    let scene: Scene

    var text: String {
        let box = "0 \(Number.text(scene.top)) \(Number.text(scene.width)) \(Number.text(scene.height))"
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" \
            width="\(Number.text(scene.width))" height="\(Number.text(scene.height))" viewBox="\(box)" \
            data-waterfall="\(Markup.xml(scene.legend.feed))" \
            font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica Neue, Arial, sans-serif" font-size="12">
            <title>\(Markup.xml("Waterfall · " + scene.legendText))</title>
            <rect x="0" y="\(Number.text(scene.top))" width="\(Number.text(scene.width))" height="\(Number.text(scene.height))" fill="#ffffff"/>

            """
        for item in scene.items { out += image(item) }
        for footer in scene.footers { out += supplement(footer, kind: "footer") }
        for header in scene.headers where header.pinned != true { out += supplement(header, kind: "header") }
        for header in scene.headers where header.pinned == true { out += supplement(header, kind: "header") }
        return out + "</svg>\n"
    }

    private func place(_ frame: Frame) -> String {
        "x=\"\(Number.text(frame.x))\" y=\"\(Number.text(frame.y))\" width=\"\(Number.text(frame.width))\" height=\"\(Number.text(frame.height))\""
    }

    private func image(_ item: PlacedImage) -> String {
        let frame = item.frame
        let caption = scene.captionHeight > 0 ? min(scene.captionHeight, frame.height) : 0
        let mediaHeight = Number.text(frame.height - caption)
        let width = Number.text(frame.width)
        let placeholder = Placeholder(id: item.id, pixelWidth: item.pixelWidth, pixelHeight: item.pixelHeight)
        var tooltip = item.id
        if let title = item.title, !title.isEmpty { tooltip += " — " + title }
        var out =
            "<svg class=\"image\" data-id=\"\(Markup.xml(item.id))\" data-index=\"\(item.index)\" \(place(frame))>"
        out += "<title>\(Markup.xml(tooltip))</title>"
        out += "<rect width=\"\(width)\" height=\"\(mediaHeight)\" rx=\"6\" fill=\"\(placeholder.background)\"/>"
        if let url = Markup.imageURL(item.url) {
            let href = Markup.xml(url)
            out +=
                "<image href=\"\(href)\" xlink:href=\"\(href)\" width=\"\(width)\" height=\"\(mediaHeight)\" preserveAspectRatio=\"xMidYMid slice\"/>"
        } else {
            let middle = (frame.height - caption) / 2
            out +=
                "<text x=\"\(Number.text(frame.width / 2))\" y=\"\(Number.text(middle - 8))\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"14\" font-weight=\"600\" fill=\"\(placeholder.foreground)\">\(Markup.xml(item.id))</text>"
            out +=
                "<text x=\"\(Number.text(frame.width / 2))\" y=\"\(Number.text(middle + 10))\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"11\" fill=\"\(placeholder.foreground)\">\(placeholder.ratio) · \(item.pixelWidth)×\(item.pixelHeight)</text>"
        }
        if caption > 0 {
            out += "<rect y=\"\(mediaHeight)\" width=\"\(width)\" height=\"\(Number.text(caption))\" fill=\"#ffffff\"/>"
            out +=
                "<text x=\"8\" y=\"\(Number.text(frame.height - caption / 2))\" dominant-baseline=\"central\" fill=\"#2b3140\">\(Markup.xml(item.title ?? ""))</text>"
        }
        return out + "</svg>\n"
    }

    private func supplement(_ supplement: PlacedSupplement, kind: String) -> String {
        let pinned = supplement.pinned == true
        let frame = supplement.frame
        let name = supplement.label ?? "unnamed section"
        let label = kind == "footer" ? "end of " + name : name
        let fill = pinned ? "#1f2430" : (kind == "header" ? "#f8f9fb" : "#f6f7f9")
        let ink = pinned ? "#ffffff" : (kind == "header" ? "#1f2430" : "#6b7385")
        let middle = Number.text(frame.height / 2)
        var out =
            "<svg class=\"\(kind)\(pinned ? " pinned" : "")\" data-\(kind)=\"\(Markup.xml(supplement.section ?? ""))\" \(place(frame))>"
        out += "<rect width=\"\(Number.text(frame.width))\" height=\"\(Number.text(frame.height))\" fill=\"\(fill)\"/>"
        out +=
            "<text x=\"12\" y=\"\(middle)\" dominant-baseline=\"central\" font-size=\"\(kind == "header" ? 14 : 12)\"\(kind == "header" ? " font-weight=\"600\"" : "") fill=\"\(ink)\">\(Markup.xml(label))</text>"
        if pinned {
            let x = Number.text(max(0, frame.width - 70))
            out +=
                "<rect x=\"\(x)\" y=\"\(Number.text(frame.height / 2 - 8))\" width=\"60\" height=\"16\" rx=\"8\" fill=\"#f5b301\"/>"
            out +=
                "<text x=\"\(Number.text(max(0, frame.width - 40)))\" y=\"\(middle)\" text-anchor=\"middle\" dominant-baseline=\"central\" font-size=\"10\" font-weight=\"700\" fill=\"#1f2430\">PINNED</text>"
        }
        return out + "</svg>\n"
    }
}
