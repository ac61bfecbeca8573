import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import Waterfall

/// What each share link hands out, by token, read from the catalog at most every half second
/// (DESIGN section 20): a link removed or expired, on this instance or another, stops answering
/// within a second, and a link's requests cost one lookup a half second, not one each.
///
/// One request reads a link again at a time: while it reads, the others of that link are
/// answered from what was read less than a second ago (``staleness``), so that the half-second
/// read of a busy link is one read, not one per connection waiting at once (on PostgreSQL such
/// a herd queued for the pool and made the tail). A link not read for a second is read by each
/// request that asks for it until one has.
///
/// Unknown tokens are remembered as such too, so a client sending made-up ones costs one indexed
/// read each; the book holds at most ``capacity`` tokens and starts over when full.
final class ShareBook: Sendable {
    private struct Entry {
        var scope: SharedScope?
        var read: NIODeadline
        /// Whether a request is reading the link again now.
        var refreshing = false
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    static let freshness = TimeAmount.milliseconds(500)
    /// The oldest reading of a link answered while another request reads it again.
    static let staleness = TimeAmount.milliseconds(1000)
    static let capacity = 10_000

    /// The scope of the link `token`, or `nil` when no link answers with it now.
    func scope(token: String, runner: ServiceRunner) async throws -> SharedScope? {
        // Only a token of a token's shape is looked up or remembered: a path of any length
        // would otherwise be a key of the book.
        guard WaterfallService.isShareTokenShaped(token) else { return nil }
        let now = NIODeadline.now()
        let kept: SharedScope?? = entries.withLockedValue { entries in
            guard var entry = entries[token] else { return .none }
            let age = now - entry.read
            if age < Self.freshness || (age < Self.staleness && entry.refreshing) { return .some(entry.scope) }
            if age < Self.staleness {
                entry.refreshing = true
                entries[token] = entry
            }
            return .none
        }
        if let kept { return kept }
        let scope: SharedScope?
        do {
            scope = try await runner.run { try await $0.sharedScope(token: token) }
        } catch {
            entries.withLockedValue { $0[token]?.refreshing = false }
            throw error
        }
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(scope: scope, read: now)
        }
        return scope
    }

    /// The link of `token`, or `nil` when no link answers with it now.
    func link(token: String, runner: ServiceRunner) async throws -> ShareLink? {
        try await scope(token: token, runner: runner).map {
            ShareLink(token: token, scope: $0, book: self, runner: runner)
        }
    }
}

/// A share link a request came through: what it hands out, and how to ask whether it still
/// answers (a stream through it ends within a second of its removal or expiry).
struct ShareLink: Sendable {
    let token: String
    let scope: SharedScope
    let book: ShareBook
    let runner: ServiceRunner

    /// How often a stream through a link asks whether the link still answers: the book reads
    /// the catalog at most every ``ShareBook/freshness``, so a link removed ends its streams
    /// within a second.
    static let checkInterval: Duration = .milliseconds(250)

    /// How long a stream through a link goes on while the link cannot be read (the database out
    /// of reach): then it ends, without a `reset` (the client connects again, and is answered
    /// as the link is then).
    static let unreadablePatience: Duration = .seconds(5)

    /// Asks the link every ``checkInterval`` until it no longer answers (`false`), or it could
    /// not be read for ``unreadablePatience`` (`nil`), or the task is cancelled (`nil`).
    func watch() async -> Bool? {
        var unreadable: Duration = .zero
        while !Task.isCancelled {
            do {
                guard try await book.scope(token: token, runner: runner) != nil else { return false }
                unreadable = .zero
            } catch {
                unreadable += Self.checkInterval
                if unreadable >= Self.unreadablePatience { return nil }
            }
            do { try await Task.sleep(for: Self.checkInterval) } catch { return nil }
        }
        return nil
    }
}

/// `?revision=R` on a read (DESIGN section 20): an answer pinned to the revision it shows never
/// changes, so it may be cached for good (`public` through a share link, `private` with a key);
/// an unpinned one is `no-cache`, to be asked again with its entity tag. The catalog keeps no
/// past states: a revision that is not the feed's current one answers 410, with the one it is at.
enum RevisionPin {
    /// The request without its `revision` parameter, which the route never sees, and the revision.
    static func strip(_ request: Request) throws(Problem) -> (Request, Int64?) {
        guard let query = request.uri.query, query.contains("revision=") else { return (request, nil) }
        var pinned: Int64?
        var kept: [Substring] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard pair.hasPrefix("revision=") else {
                kept.append(pair)
                continue
            }
            let text = pair.dropFirst("revision=".count)
            guard pinned == nil else {
                throw Problem.badRequest("the query parameter \"revision\" is given more than once.")
            }
            guard let revision = Int64(text), revision >= 0, text.count <= 19 else {
                throw Problem.badRequest(
                    "revision must be a feed's revision, an integer of 0 or more, got \(String(text.prefix(40)).quoted)."
                )
            }
            pinned = revision
        }
        var head = request.head
        head.path = request.uri.path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        return (Request(head: head, body: request.body), pinned)
    }

    /// The route's answer, with its `Cache-Control`: immutable when pinned to the revision it
    /// shows (else a 410), `no-cache` when it has an entity tag and is not pinned.
    /// Through a link that expires (`expires`, seconds since the epoch), a pinned answer is kept
    /// no longer than the link lasts. (A cache keeps what it has until then: removing a link
    /// cannot call back copies already taken.)
    static func finish(_ response: Response, pinned: Int64?, isPublic: Bool, expires: Int64? = nil) throws -> Response {
        var response = response
        let tag = response.headers[.eTag]
        if let pinned {
            guard let tag, let shown = revision(ofTag: tag) else { return response }
            guard shown == pinned else {
                var problem = Problem(
                    .gone,
                    "revision \(pinned) is not the feed's current one (it is at \(shown)): ask again with revision=\(shown), or follow changes since \(pinned)."
                )
                problem.revision = shown
                throw problem
            }
            let year: Int64 = 31_536_000
            let left = expires.map { max(0, min(year, $0 - Int64(Date().timeIntervalSince1970))) } ?? year
            response.headers[.cacheControl] = "\(isPublic ? "public" : "private"), max-age=\(left), immutable"
        } else if tag != nil, response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-cache"
        }
        return response
    }

    /// The revision an entity tag `"R-I-H"` (or `W/"R-I-H"`) names.
    static func revision(ofTag tag: String) -> Int64? {
        var text = Substring(tag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        guard text.hasPrefix("\"") else { return nil }
        return Int64(text.dropFirst().prefix { $0 != "-" && $0 != "\"" })
    }
}
