/// Why a feed or reorder file was rejected: one sentence naming the file, the place, what was
/// expected and what was found.
///
/// The message is meant to be printed as is, for example
/// `feed.json: images[1234].width: expected an integer from 1 to 1000000, found -5.`
public struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds of failure, which the front ends map to different statuses.
    public enum Kind: Hashable, Sendable {
        /// The content is malformed or breaks a rule (exit status 65).
        case invalidData
        /// A reorder moves an image before or after itself: bad data too (exit status 65), which
        /// the HTTP API answers as a conflict (409).
        case moveOntoItself
        /// The file is missing, unreadable or a directory (exit status 66).
        case fileUnreadable
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The one-sentence explanation, ending with a period.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
