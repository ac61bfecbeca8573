import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import Waterfall

/// Decides who may do what: API keys (`Authorization: Bearer SECRET`) against the keys of the
/// database, which it reloads after any commit (a `waterfall key add` or `key remove` in
/// another process counts from the next request on).
///
/// A database without keys asks for none on loopback: a server on 127.0.0.1 for one developer.
/// Off loopback it asks for one all the same (`serve` refuses to start there without a write
/// key, and a key removed later does not open the server), unless `--allow-anonymous`. Once a key
/// exists, every request but `/healthz` and `/openapi.json` needs one, reads excepted when the
/// server runs with `--public-read`. A key that does not cover a feed finds no such feed
/// (404), a read-only key may not write (403), no key, an unknown one or an expired one is 401.
/// Each key's last use is written at most once a minute (``KeyUsage``).
final class Gatekeeper: Sendable {
    private let runner: ServiceRunner
    private let watcher: (any ChangeWatcher)?
    private let publicRead: Bool
    private let answersAnonymousCallers: Bool
    private let cached = NIOLockedValueBox<(version: Int64, keyring: Keyring)?>(nil)
    private let usage: KeyUsage

    init(runner: ServiceRunner, publicRead: Bool, answersAnonymousCallers: Bool = true) {
        self.runner = runner
        self.publicRead = publicRead
        self.answersAnonymousCallers = answersAnonymousCallers
        usage = KeyUsage(runner: runner)
        watcher = try? runner.service.makeChangeWatcher()
    }

    /// The feeds the request may see, or a problem (401, 403, 404) refusing it. The name of
    /// the key it came with goes into `notes`, for the access log.
    func admit(_ request: Request, access: Route.Access, feed: String?, notes: RequestNotes? = nil) async throws -> FeedScope {
        guard access != .open else { return .all }
        let keyring = try await currentKeyring()
        if keyring.isEmpty {
            if answersAnonymousCallers || (access == .read && publicRead) { return .all }
            throw Problem(
                .unauthorized,
                "this server is reachable from other machines and its database has no API key; make one with `waterfall key add NAME --write`.",
                headers: [.wwwAuthenticate: "Bearer"])
        }
        guard let secret = Self.bearer(request.headers[.authorization]) else {
            if access == .read && publicRead { return .all }
            throw Problem(
                .unauthorized, "this server needs an API key: send Authorization: Bearer SECRET.",
                headers: [.wwwAuthenticate: "Bearer"])
        }
        guard let grant = keyring.grant(forSecret: secret) else {
            throw Problem(.unauthorized, "the API key is not one of this server's.", headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        notes?.key = grant.name
        let now = Date()
        if let expires = grant.expires, expires <= now {
            throw Problem(
                .unauthorized, "the API key \(grant.name.quoted) expired at \(KeyExpiry.format(expires)); ask for a new one (`waterfall key add`).",
                headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\", error_description=\"the key expired\""])
        }
        usage.note(grant.name, at: now)
        if let feed, !grant.covers(feed) { throw WaterfallError.unknownFeed(feed) }
        if access == .write && !grant.canWrite {
            throw Problem(.forbidden, "the API key \(grant.name.quoted) may read but not write; writes need a key made with write access.")
        }
        if access == .readAll && grant.feeds != nil {
            throw Problem(.forbidden, "the API key \(grant.name.quoted) covers some feeds only; this route answers about the whole database.")
        }
        return grant.feeds.map(FeedScope.only) ?? .all
    }

    /// The secret of `Authorization: Bearer SECRET`, or nil.
    private static func bearer(_ value: String?) -> String? {
        guard let value, value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        let secret = value.dropFirst(7).trimmingSpaces
        return secret.isEmpty ? nil : String(secret)
    }

    private func currentKeyring() async throws -> Keyring {
        guard let watcher, let version = try? watcher.version() else {
            return try await runner.run { try $0.keyring() }
        }
        if let cached = cached.withLockedValue({ $0 }), cached.version == version { return cached.keyring }
        let keyring = try await runner.run { try $0.keyring() }
        cached.withLockedValue { $0 = (version, keyring) }
        return keyring
    }
}

/// The feeds a request may see.
enum FeedScope: Sendable, Hashable {
    case all
    case only(Set<String>)

    func covers(_ feed: String) -> Bool {
        switch self {
        case .all: true
        case .only(let feeds): feeds.contains(feed)
        }
    }
}
