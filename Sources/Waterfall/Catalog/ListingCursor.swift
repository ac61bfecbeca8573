import Foundation

/// Where a paged listing of a feed's images goes on (DESIGN section 16): the revision it lists,
/// the index and the order key of the next image. Given to clients as an opaque token
/// (`nextCursor`): base64url of `R:I:K`; a token this server did not write is refused.
struct ListingCursor: Hashable {
    var revision: Int64
    var index: Int
    var key: Int64

    /// The token of the cursor.
    var token: String {
        Data("\(revision):\(index):\(key)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The cursor a token names, or `nil` when it is not one this server writes.
    init?(token: String) {
        guard token.count <= 96,
            token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else { return nil }
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let revision = Int64(parts[0]), let index = Int(parts[1]), let key = Int64(parts[2]),
            revision >= 0, index > 0, Self(revision: revision, index: index, key: key).token == token
        else { return nil }
        self.init(revision: revision, index: index, key: key)
    }

    init(revision: Int64, index: Int, key: Int64) {
        self.revision = revision
        self.index = index
        self.key = key
    }
}
