import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// A failure of a service operation, as facts: what was not found, which request value was out
/// of range, what data was bad and where.
///
/// The service never phrases a failure for one front end: a request value is named by its
/// ``Parameter`` and each front end says it its own way (the command line as `--pin-offset` with
/// an exit status, the HTTP API as `pinOffset` with a status code). ``sentence(naming:)`` writes
/// the one sentence both share, given how the front end names parameters.
public enum WaterfallError: Error, Hashable, Sendable {
    /// No feed has this name.
    case unknownFeed(String)
    /// The database holds no feed, and the request named none.
    case noFeeds
    /// The database holds several feeds (these, by name), and the request named none.
    case feedNotChosen([String])
    /// The feed has no saved layout of this name.
    case unknownLayout(feed: String, layout: String)
    /// No view of that name in the feed (DESIGN section 20).
    case unknownView(feed: String, view: String)
    /// The feed has no image of this id; `place` prefixes the sentence when the id comes from a
    /// file (`"order.json: moves[3]: "`), else it is empty.
    case unknownImage(feed: String, id: String, place: String)
    /// No image of the feed was taken at or before the date `locate` asked for (as the request
    /// wrote it): the date is older than every dated image, or the feed has none.
    case nothingTakenBy(feed: String, date: String)
    /// A move of an image before or after itself; the sentence names the image and, for a file,
    /// the place (`"order.json: moves[3]: cannot move \"a\" before itself."`).
    case moveOntoItself(String)
    /// A move to `index`, outside its section (by name; `nil` for the unnamed one) of `count` images.
    case indexOutsideSection(index: Int, section: String?, count: Int, place: String)
    /// A move or order list that would put image `id` into another section of a feed whose
    /// sections are made by date (`sectionBy`, DESIGN section 17): the date decides the section.
    /// Nothing changed.
    case moveAcrossDateSections(feed: String, id: String, from: String?, to: String?, sectionBy: String, place: String)
    /// A request value outside what the operation accepts: the parameter, and the rest of the
    /// sentence after its name (`"must be 0 or more, got -1."`).
    case invalidValue(Parameter, String)
    /// Two request values that cannot be given together.
    case conflictingValues(Parameter, Parameter)
    /// A write that expected the feed at one revision found it at another: someone else
    /// changed it since the client read it (HTTP 412); nothing changed.
    case revisionMismatch(feed: String, expected: Int64, actual: Int64)
    /// The changes since `since` were asked for, but the feed's change log is kept only from
    /// revision `from` on (`serve --keep-changes` pruned older rows): the client lists the feed
    /// again and follows its changes from `from` or later (HTTP 410).
    case changesPruned(feed: String, since: Int64, from: Int64)
    /// A listing's cursor names revision `revision`, but the feed is at `current`: the listing
    /// cannot be given as of that revision any more; the client lists again, or follows the
    /// changes since the revision it has (HTTP 410).
    case cursorExpired(feed: String, revision: Int64, current: Int64)
    /// A listing's cursor was given for an earlier feed of this name, since removed (the feed
    /// now at revision `current` was made anew: another incarnation, DESIGN section 19): the
    /// client lists again (HTTP 410).
    case cursorOfRemovedFeed(feed: String, current: Int64)
    /// A write expected the feed a client read, but that feed was removed since, and maybe
    /// another of the same name made (another incarnation, DESIGN section 19): nothing changed
    /// (HTTP 412).
    case feedRemadeSinceRead(feed: String)
    /// No API key has this name.
    case unknownKey(String)
    /// No share link of that id (DESIGN section 20).
    case unknownShare(Int64)
    /// An API key of this name exists already.
    case keyExists(String)
    /// A feed read from a nameless stream (standard input, a request body without a name)
    /// whose content names no feed either.
    case feedNameMissing
    /// A layout configuration outside its bounds; the layout engine's error names the
    /// configuration field by its JSON key, which the front ends share.
    case invalidConfiguration(LayoutConfigurationError)
    /// Bad input data: a malformed feed or reorder document. The sentence names the source and
    /// the place (`"feed.json: images[3].width: expected …"`).
    case invalidData(String)
    /// An input file that is missing or unreadable.
    case fileUnreadable(String)
    /// The database cannot be created.
    case cannotCreate(String)
    /// The database cannot be opened, read or written.
    case database(String)
    /// Another writer held the database's lock for longer than the busy timeout; nothing changed.
    case busy(String)
    /// The database server cannot be reached now (down or restarting); a write under way when
    /// its connection was lost may or may not have been made.
    case unavailable(String)
    /// A write needed more room than the database's disk has left; nothing changed, and the
    /// catalog still answers reads.
    case diskFull(String)
    /// A backup's target (by path) exists already, and the request did not ask to replace it;
    /// nothing was written.
    case backupTargetExists(String)
    /// A backup of a catalog the service cannot copy to a file: a PostgreSQL catalog (its
    /// location, without password, and the schema its tables live in), which `pg_dump` copies.
    case backupNeedsPgDump(location: String, schema: String)
    /// A write to a mirror (DESIGN section 21): its feeds change only by following the server
    /// at `source` (`waterfall mirror`); nothing was written.
    case mirrorIsReadOnly(source: String)
    /// A mirror asked what changed in `feed` since `since`, but more than `limit` changes did:
    /// cheaper to list the feed again (HTTP 410).
    case tooManyChangesToFollow(feed: String, since: Int64, limit: Int)
    /// Anything else.
    case other(String)

    /// A value a request gives, named as the service's API and the JSON formats name it; each
    /// front end says it its own way (`--pin-offset`, `pinOffset`).
    public enum Parameter: String, Hashable, Sendable, CaseIterable {
        case feedName, layoutName, keyName, page, pageSize, offset, limit, since, y, height, pinOffset, x, viewportWidth
        case date, anchorY, cursor, dpr, tag, viewName, viewRule
        case resetOrder, appendMode, expires, sectionBy, timeZone, keepChanges
        case backupTarget, mirrorSource
    }

    /// The one sentence saying what failed, where, and what was expected, with each request
    /// value named by `name` (the command line passes its flag names, the HTTP API its query
    /// parameter names).
    public func sentence(naming name: (Parameter) -> String) -> String {
        switch self {
        case .unknownFeed(let feed):
            return "unknown feed \(feed.quoted)."
        case .noFeeds:
            return "the database holds no feed yet."
        case .feedNotChosen(let feeds):
            let names = feeds.prefix(5).map(\.quoted).joined(separator: ", ") + (feeds.count > 5 ? ", …" : "")
            return "the database holds \(feeds.count) feeds (\(names)) and the request names none."
        case .unknownView(let feed, let view):
            return "unknown view \(view.quoted) of feed \(feed.quoted)."
        case .unknownLayout(let feed, let layout):
            return "unknown layout \(layout.quoted) for feed \(feed.quoted)."
        case .unknownImage(let feed, let id, let place):
            return "\(place)unknown image id \(id.quoted) in feed \(feed.quoted)."
        case .nothingTakenBy(let feed, let date):
            return "no image of feed \(feed.quoted) was taken at or before \(date) (in the feed's time zone)."
        case .indexOutsideSection(let index, let section, let count, let place):
            return
                "\(place)index \(index) is outside \(section.sectionDescription), which holds \(count) image\(count == 1 ? "" : "s") (indexes 0…\(count - 1))."
        case .moveAcrossDateSections(let feed, let id, let from, let to, let sectionBy, let place):
            return
                "\(place)cannot move \(id.quoted) from \(from.sectionDescription) into \(to.sectionDescription): feed \(feed.quoted) has sections by \(sectionBy), so an image's date decides its section."
        case .cursorExpired(let feed, let revision, let current):
            return
                "feed \(feed.quoted) changed since this listing began at revision \(revision) (it is at revision \(current) now); list it again, or follow its changes since the revision you have."
        case .cursorOfRemovedFeed(let feed, _):
            return
                "feed \(feed.quoted) was removed and made anew since this listing began; list it again, or follow its changes."
        case .feedRemadeSinceRead(let feed):
            return
                "feed \(feed.quoted) is not the feed that was read: it was removed, or removed and made anew, since; read it again; nothing was written."
        case .unknownShare(let id):
            return "no share link has id \(id); `share list` lists them."
        case .unknownKey(let name):
            return "unknown API key \(name.quoted)."
        case .keyExists(let name):
            return "an API key named \(name.quoted) exists already; remove it first to replace it."
        case .revisionMismatch(let feed, let expected, let actual):
            return
                "feed \(feed.quoted) is at revision \(actual), not \(expected): it changed since it was read; nothing was written."
        case .changesPruned(let feed, let since, let from):
            return
                "the change log of feed \(feed.quoted) is kept from revision \(from) on, so the changes since revision \(since) are gone; list the feed again and follow its changes since revision \(from) or later."
        case .mirrorIsReadOnly(let source):
            return
                "this catalog is a mirror of \(source): it changes only by following it (waterfall mirror); write to the source instead; nothing was written."
        case .tooManyChangesToFollow(let feed, let since, let limit):
            return
                "feed \(feed.quoted) changed in more than \(limit) ways since revision \(since); list it again rather than follow its changes."
        case .invalidValue(let parameter, let rest):
            return "\(name(parameter)) \(rest)"
        case .conflictingValues(let first, let second):
            return "\(name(first)) cannot be combined with \(name(second))."
        case .backupTargetExists(let path):
            return "\(path) exists already; nothing was written."
        case .backupNeedsPgDump(let location, let schema):
            // An empty database has a schema `public` already: restoring only its objects
            // avoids pg_restore's error on creating it again.
            let restore = schema == "public" ? "pg_restore --schema=public --dbname=URL" : "pg_restore --dbname=URL"
            return "waterfall backup copies SQLite catalogs only; back up this PostgreSQL one with "
                + "pg_dump --format=custom --schema=\(schema) --file=waterfall.dump '\(location)' "
                + "and restore it into an empty database with \(restore) waterfall.dump."
        case .feedNameMissing:
            return "the feed has no name: the request gives none and its content has no \"feed\" field."
        case .invalidConfiguration(let error):
            return error.message
        case .moveOntoItself(let message), .invalidData(let message), .fileUnreadable(let message),
            .cannotCreate(let message),
            .database(let message), .busy(let message), .unavailable(let message), .diskFull(let message),
            .other(let message):
            return message
        }
    }

    /// Classifies any error thrown below the service.
    public init(_ error: any Error) {
        switch error {
        case let error as WaterfallError:
            self = error
        case let error as SyncError:
            switch error.kind {
            case .invalidData: self = .invalidData(error.message)
            case .moveOntoItself: self = .moveOntoItself(error.message)
            case .fileUnreadable: self = .fileUnreadable(error.message)
            }
        case let error as StoreError:
            switch error.kind {
            case .cannotCreate: self = .cannotCreate(error.message)
            case .cannotOpen, .cannotWrite: self = .database(error.message)
            case .busy: self = .busy(error.message)
            case .unavailable: self = .unavailable(error.message)
            case .diskFull: self = .diskFull(error.message)
            case .notFound, .invalidRequest: self = .invalidData(error.message)
            }
        case let error as LayoutConfigurationError:
            self = .invalidConfiguration(error)
        default:
            self = .other("unexpected failure: \(error).")
        }
    }
}

extension WaterfallError: CustomStringConvertible {
    /// The sentence with each parameter named as the service's API names it.
    public var description: String {
        sentence(naming: \.rawValue)
    }
}
