/// The file formats a page or a viewport can be drawn in.
public enum RenderFormat: String, Hashable, Sendable, CaseIterable {
    /// One self-contained HTML file: inline stylesheet, no external resource but the images' urls.
    case html
    /// One standalone SVG document (XML 1.0).
    case svg

    /// The format a file name asks for by its extension: `.html` or `.htm` for HTML, `.svg` for
    /// SVG, in any letter case; `nil` for any other name.
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "html", "htm": self = .html
        case "svg": self = .svg
        default: return nil
        }
    }
}
