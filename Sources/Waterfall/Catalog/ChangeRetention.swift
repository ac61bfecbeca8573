import Foundation

/// How long a server keeps each feed's change log (`serve --keep-changes`): a count of
/// revisions, or a duration. Older rows are pruned; a client asking the changes since a
/// revision before what is kept is told to list the feed again (HTTP 410, exit 65).
///
/// Whatever it says, the last ``minimumRevisions`` revisions of a feed are always kept: a
/// server's copy of a feed in memory follows the log over at most that many revisions (further
/// behind, it loads the feed anew), so pruning never takes rows a copy still needs.
public enum ChangeRetention: Sendable, Hashable {
    /// The last `count` revisions of each feed.
    case revisions(Int64)
    /// The revisions committed in the last `seconds` (and at least the last ``minimumRevisions``).
    case duration(seconds: Int64)

    /// 100,000 revisions a feed: a server that runs for years keeps a bounded log whatever its
    /// clock says, and a client offline for months still resumes (a feed curated by hand makes
    /// a few hundred revisions a day; a move logs one row, an import a row per changed image).
    public static let `default` = ChangeRetention.revisions(100_000)

    /// The fewest revisions kept: a server's copy of a feed follows at most 256 revisions of
    /// the log (``KeptGeometry/followLimit``).
    public static let minimumRevisions = Int64(KeptGeometry.followLimit)

    /// The longest duration accepted: 100 years, as for a key's expiry.
    static let longest: Int64 = 36_500 * 86_400

    /// `100000` (revisions, at least 256) or `45s`, `30m`, `12h`, `30d`.
    /// - Throws: ``WaterfallError/invalidValue(_:_:)`` of ``WaterfallError/Parameter/keepChanges``.
    public init(parsing text: String) throws(WaterfallError) {
        let digits = text.allSatisfy { ("0"..."9").contains($0) }
        if digits, !text.isEmpty {
            guard let count = Int64(text), count >= Self.minimumRevisions else {
                throw WaterfallError.invalidValue(
                    .keepChanges,
                    "takes a count of revisions of at least \(Self.minimumRevisions) (what a server's copy of a feed follows), or a duration such as 30d, got \(text.quoted)."
                )
            }
            self = .revisions(count)
            return
        }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), text.count > 1,
            text.dropLast().allSatisfy({ ("0"..."9").contains($0) }),
            let count = Int64(text.dropLast()), count > 0, count <= Self.longest / unit
        else {
            throw WaterfallError.invalidValue(
                .keepChanges,
                "takes a count of revisions such as 100000 or a duration from 1s to 36500d such as 30d, got \(text.quoted)."
            )
        }
        self = .duration(seconds: count * unit)
    }

    /// The revision up to which a feed at `revision` may be pruned, given when its revisions
    /// were committed (`lastCommittedBefore` answers the greatest revision committed before a
    /// time); `nil` when nothing may be.
    func prunableThrough(revision: Int64, now: Date, lastCommittedBefore: (Int64) throws -> Int64?) rethrows -> Int64? {
        var through = revision - Self.minimumRevisions
        switch self {
        case .revisions(let count):
            through = min(through, revision - count)
        case .duration(let seconds):
            guard let old = try lastCommittedBefore(Int64(now.timeIntervalSince1970) - seconds) else { return nil }
            through = min(through, old)
        }
        return through > 0 ? through : nil
    }
}
