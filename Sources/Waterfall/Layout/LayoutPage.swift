import WaterfallLayout
import WaterfallSync

/// An image with its frame, as `page` and `viewport` return it.
public struct PlacedImage: Hashable, Sendable {
    public var index: Int
    public var id: String
    public var section: String?
    public var frame: Frame
    public var url: String?
    /// When the image was taken, RFC 3339 in UTC (DESIGN section 17); absent from the JSON when
    /// unknown.
    public var takenAt: String?
    /// The image's title (not part of the JSON; renderers draw it in the caption strip).
    public var title: String?
    /// Pixel size (not part of the JSON).
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// The image's ThumbHash or BlurHash and its colour `#rrggbb` (DESIGN section 16), to paint
    /// before the image loads; each absent from the JSON when the feed gives none.
    public var placeholder: String? = nil
    public var color: String? = nil
    /// The sizes the image is served at (not part of the JSON: `url` is the one chosen).
    public var renditions: Renditions? = nil

    /// Makes `url` the rendition for a screen of `dpr` device pixels a point: the smallest
    /// rendition at least `frame.width × dpr` pixels wide, else the largest; the image's own
    /// URL when it has no renditions (DESIGN section 16).
    public mutating func chooseRendition(dpr: Double) {
        guard let renditions else { return }
        url = renditions.url(forPixels: frame.width * dpr, imageWidth: Int32(clamping: pixelWidth))
    }
}

/// A device pixel ratio for choosing renditions: `dpr` of a request, checked.
public enum DevicePixelRatio {
    /// The largest `dpr` accepted.
    public static let maximum = 8.0

    /// Checks a request's `dpr`: a number above 0 and at most ``maximum``.
    /// - Throws: ``WaterfallError`` `usage` naming `dpr`.
    public static func validate(_ dpr: Double) throws(WaterfallError) {
        guard dpr.isFinite, dpr > 0, dpr <= maximum else {
            throw WaterfallError.invalidValue(
                .dpr, "must be a number of device pixels a point above 0 and at most 8, got \(dpr).")
        }
    }
}

extension LayoutPage {
    /// The page with each image's `url` chosen for `dpr` (``PlacedImage/chooseRendition(dpr:)``);
    /// the service's answer chose them for the layout's `scale`.
    public func choosingRenditions(dpr: Double) -> LayoutPage {
        var page = self
        for index in page.items.indices { page.items[index].chooseRendition(dpr: dpr) }
        return page
    }
}

extension ViewportPage {
    /// The viewport with each image's `url` chosen for `dpr` (``PlacedImage/chooseRendition(dpr:)``);
    /// the service's answer chose them for the layout's `scale`.
    public func choosingRenditions(dpr: Double) -> ViewportPage {
        var viewport = self
        for index in viewport.items.indices { viewport.items[index].chooseRendition(dpr: dpr) }
        return viewport
    }
}

/// A section header or footer with its frame.
public struct PlacedSupplement: Hashable, Sendable {
    public var section: String?
    public var frame: Frame
    /// Headers only: moved from its natural place by pinning.
    public var pinned: Bool?
    /// The section's title from the feed, if it has one (not part of the JSON: tables and
    /// renderers show it in the header instead of the id).
    public var title: String?

    public init(section: String?, frame: Frame, pinned: Bool?, title: String? = nil) {
        self.section = section
        self.frame = frame
        self.pinned = pinned
        self.title = title
    }

    /// What a person reads in the header or footer: the title, else the section's id.
    public var label: String? { title ?? section }

}

/// A page of a laid-out feed: the JSON of `page --json` (DESIGN section 6).
public struct LayoutPage: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    /// The named layout, `nil` for an inline configuration.
    public var layout: String?
    public var contentHeight: Double
    public var totalItems: Int
    public var nextOffset: Int?
    public var items: [PlacedImage]
    public var headers: [PlacedSupplement]
    public var footers: [PlacedSupplement]
    /// The configuration used (not part of the JSON).
    public var configuration: AnyLayoutConfiguration

}

/// What meets a horizontal band of a laid-out feed: the JSON of `viewport --json`.
public struct ViewportPage: Hashable, Sendable {
    public var feed: String
    public var revision: Int64
    /// The feed's incarnation (its id, never used twice, DESIGN section 19): not part of the
    /// JSON; the answer's entity tag carries it.
    public var incarnation: Int64
    public var layout: String?
    public var contentHeight: Double
    public var totalItems: Int
    public var y: Double
    public var height: Double
    public var items: [PlacedImage]
    public var headers: [PlacedSupplement]
    public var footers: [PlacedSupplement]
    public var configuration: AnyLayoutConfiguration

}
