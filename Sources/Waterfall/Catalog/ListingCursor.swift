import Crypto
import Foundation

/// Where a paged listing of a feed's images goes on (DESIGN section 16): the feed's incarnation
/// (its id, never used twice) and the revision it lists, the index and the order key of the next
/// image.
///
/// Given to clients as an opaque token (`nextCursor`, DESIGN section 19): base64url, without
/// padding, of a version byte, the four numbers (8 bytes each, big-endian) and an HMAC-SHA256 of
/// them and of the feed's name under the catalog's token secret (``CatalogIdentityRows``), which
/// every instance of the catalog shares. A token is read in two steps: its shape
/// (``Sealed/init(token:)``, before anything is read: length, alphabet, version) and its MAC
/// (``Sealed/open(feed:secret:)``, with the secret and the feed's name): a token cut short, made
/// up, changed by one bit or given for another feed is refused, so no number in it reaches the
/// listing unless this catalog's servers wrote it.
struct ListingCursor: Hashable {
    /// The feed's id when the cursor was given: a cursor of a feed removed and made anew
    /// names another incarnation.
    var incarnation: Int64
    var revision: Int64
    var index: Int
    var key: Int64

    /// The format's version: the first byte of every token.
    private static let version: UInt8 = 1
    /// The version byte and the four numbers.
    private static let payloadBytes = 1 + 4 * 8
    /// An HMAC-SHA256.
    private static let macBytes = 32
    /// The length of every token: base64url of the payload and the MAC, without padding.
    static let tokenLength = ((payloadBytes + macBytes) * 4 + 2) / 3

    /// The token of the cursor for the feed named `feed`, signed with the catalog's `secret`.
    func token(feed: String, secret: [UInt8]) -> String {
        var bytes: [UInt8] = [Self.version]
        for number in [incarnation, revision, Int64(index), key] {
            withUnsafeBytes(of: number.bigEndian) { bytes += $0 }
        }
        bytes += Self.mac(of: bytes, feed: feed, secret: secret)
        return Self.base64url(Data(bytes))
    }

    /// base64url of `data`, without padding.
    private static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The MAC of a token's payload: over a label naming what the token is, the payload, and
    /// the feed's name, so a cursor of one feed is no cursor of another.
    private static func mac(of payload: [UInt8], feed: String, secret: [UInt8]) -> [UInt8] {
        var message = Array("waterfall listing cursor\u{0}".utf8)
        message += payload
        message += Array(feed.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
    }

    /// A token whose shape is a cursor's, not yet verified.
    struct Sealed {
        private let bytes: [UInt8]

        /// The token's bytes, or `nil` when it cannot be a cursor this catalog wrote (wrong
        /// length, alphabet or version): refused before anything is read.
        init?(token: String) {
            guard token.utf8.count == ListingCursor.tokenLength,
                token.utf8.allSatisfy({ $0.isBase64URLDigit })
            else { return nil }
            var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            guard let data = Data(base64Encoded: base64), data.count == payloadBytes + macBytes,
                data.first == ListingCursor.version,
                // One spelling per cursor: the last digit's two unused bits must be zero, as written.
                ListingCursor.base64url(data) == token
            else { return nil }
            bytes = Array(data)
        }

        /// The cursor, when the token's MAC verifies for the feed named `feed` under `secret`
        /// (compared in constant time), else `nil`.
        func open(feed: String, secret: [UInt8]) -> ListingCursor? {
            let payload = Array(bytes[..<payloadBytes])
            let expected = ListingCursor.mac(of: payload, feed: feed, secret: secret)
            var difference: UInt8 = 0
            for (given, wanted) in zip(bytes[payloadBytes...], expected) { difference |= given ^ wanted }
            guard difference == 0 else { return nil }
            func number(_ field: Int) -> Int64 {
                payload[(1 + field * 8)..<(1 + field * 8 + 8)].reduce(0) { $0 << 8 | Int64($1) }
            }
            // Every number was written from a listing; these bounds hold for any this catalog signed.
            let (index, revision) = (number(2), number(1))
            guard (1...Int64(WaterfallService.maximumOffset)).contains(index), revision >= 0 else { return nil }
            return ListingCursor(incarnation: number(0), revision: revision, index: Int(index), key: number(3))
        }
    }
}

extension UInt8 {
    /// Whether the byte is a digit of base64url (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`).
    fileprivate var isBase64URLDigit: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) || (0x30...0x39).contains(self) || self == 0x2D
            || self == 0x5F
    }
}
