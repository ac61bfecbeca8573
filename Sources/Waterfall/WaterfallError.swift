import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// A failure of a service operation: one sentence for the user, and the class that decides the
/// command line's exit status.
public struct WaterfallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The class of failure; each maps to one documented exit status.
    public enum Kind: Hashable, Sendable {
        /// A bad request: flags that contradict each other or a value out of range (exit 64).
        case usage
        /// Bad input data: a malformed feed or reorder file, an unknown id, feed or layout (exit 65).
        case invalidData
        /// An input file that is missing or unreadable (exit 66).
        case fileUnreadable
        /// The database cannot be created (exit 73).
        case cannotCreate
        /// The database cannot be opened, read or written (exit 74).
        case database
        /// Anything else (exit 1).
        case other
    }

    /// The class of failure.
    public let kind: Kind
    /// One sentence saying what failed, where, and what was expected.
    public let message: String

    /// Creates an error of `kind` with a one-sentence `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// Classifies any error thrown below the service.
    public init(_ error: any Error) {
        switch error {
        case let error as WaterfallError:
            self = error
        case let error as SyncError:
            self.init(error.kind == .fileUnreadable ? .fileUnreadable : .invalidData, error.message)
        case let error as StoreError:
            switch error.kind {
            case .cannotCreate: self.init(.cannotCreate, error.message)
            case .cannotOpen, .cannotWrite, .busy: self.init(.database, error.message)
            case .notFound, .invalidRequest: self.init(.invalidData, error.message)
            }
        case let error as LayoutConfigurationError:
            self.init(.usage, error.message)
        default:
            self.init(.other, "unexpected failure: \(error).")
        }
    }
}
