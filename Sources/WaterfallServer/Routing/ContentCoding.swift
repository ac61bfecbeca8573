import Hummingbird

/// The content coding of a JSON answer (RFC 9110 section 8.4): its plain bytes, or gzip when
/// the request's `Accept-Encoding` prefers it.
enum ContentCoding: Sendable, Hashable {
    case identity
    case gzip

    /// The coding `request` accepts, read from `Accept-Encoding` as RFC 9110 section 12.5.3
    /// says: gzip when `gzip` (or `x-gzip`, or `*` without `gzip`) has a q-value above 0 that is
    /// no lower than identity's; identity otherwise. A request without the header gets the
    /// plain bytes (the RFC lets a server pick any coding then; clients that can read gzip
    /// ask for it), and so does `identity`, `gzip;q=0` or an empty value.
    init(accepting request: Request) {
        guard let value = request.headers[.acceptEncoding] else {
            self = .identity
            return
        }
        self = Self.preferred(in: value)
    }

    /// The coding an `Accept-Encoding` value prefers.
    static func preferred(in value: String) -> ContentCoding {
        var gzip: Double?
        var identity: Double?
        var any: Double?
        for member in value.split(separator: ",") {
            let parts = member.split(separator: ";")
            guard let name = parts.first?.trimmingSpaces.lowercased(), !name.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" else { continue }
                // A malformed q-value is taken as 0: that member is not accepted.
                quality = Double(pair[1].trimmingSpaces).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
            }
            switch name {
            case "gzip", "x-gzip": gzip = max(gzip ?? 0, quality)
            case "identity": identity = quality
            case "*": any = quality
            default: continue
            }
        }
        let gzipQuality = gzip ?? any ?? 0
        // Identity is acceptable unless excluded, by itself or by `*;q=0` (RFC 9110 12.5.3).
        let identityQuality = identity ?? (any == 0 ? 0 : 1)
        return gzipQuality > 0 && gzipQuality >= identityQuality ? .gzip : .identity
    }
}
