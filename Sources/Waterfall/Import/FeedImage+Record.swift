import WaterfallStore
import WaterfallSync

extension FeedImage {
    /// The catalog's row for this image at `key` in section `sectionID`: what an import and a
    /// mirror write of an image a feed file gives.
    @inline(__always)
    func record(key: Int64, sectionID: Int64) -> ImageRecord {
        ImageRecord(
            key: key, externalID: id, sectionID: sectionID, width: width, height: height, isFullSpan: span == .full,
            url: url, title: title, takenAt: takenAt, placeholder: placeholder, color: color,
            renditions: renditions?.storedText, tags: ImageTags.storedText(tags))
    }
}
