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
///
/// It works in two steps, so that a kept answer can be found by the caller's scope before any
/// route is chosen: ``caller(of:)`` tells who sends the request (refusing nothing yet, since
/// some routes are open to anyone), ``admit(_:access:feed:)`` lets them in to a route or not.
final class Gatekeeper: Sendable {
    private let runner: ServiceRunner
    private let watcher: (any ChangeWatcher)?
    private let publicRead: Bool
    private let answersAnonymousCallers: Bool
    private let keyrings = NIOLockedValueBox(Keyrings())
    /// Reads the database's keys.
    private let readKeys: @Sendable () async throws -> Keyring
    /// Whether the requests that come while the keys are read wait for that read rather than
    /// each reading them (``CatalogStore/readsAreRemote``).
    private let sharesReads: Bool
    private let usage: KeyUsage

    /// - Parameters:
    ///   - watcher: the server's watcher of the database, which tells when the keys must be
    ///     read again (nil: at every request).
    ///   - readKeys: how the keys are read (the runner's service; a test counts the reads).
    ///   - sharesReads: whether requests share one read of the keys per version (by default
    ///     where the store's reads are remote).
    init(
        runner: ServiceRunner, watcher: (any ChangeWatcher)?, publicRead: Bool, answersAnonymousCallers: Bool = true,
        readKeys: (@Sendable () async throws -> Keyring)? = nil, sharesReads: Bool? = nil
    ) {
        self.runner = runner
        self.watcher = watcher
        self.publicRead = publicRead
        self.answersAnonymousCallers = answersAnonymousCallers
        self.readKeys = readKeys ?? { try await runner.run { try await $0.keyring() } }
        self.sharesReads = sharesReads ?? runner.service.database.readsAreRemote
        usage = KeyUsage(runner: runner)
    }

    /// Who sends `request`, by its `Authorization` header and the database's keys.
    func caller(of request: Request) async throws -> Caller {
        try await caller(authorization: request.headers[.authorization])
    }

    /// Who sends a request with this `Authorization` header, by the database's keys.
    func caller(authorization: String?) async throws -> Caller {
        let keyring = try await currentKeyring()
        if keyring.isEmpty { return .keyless }
        guard let secret = Self.bearer(authorization) else { return .anonymous }
        guard let grant = keyring.grant(forSecret: secret) else {
            return .refused(
                Problem(
                    .unauthorized, "the API key is not one of this server's.",
                    headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""]),
                key: nil)
        }
        let now = Date()
        if let expires = grant.expires, expires <= now {
            return .refused(
                Problem(
                    .unauthorized,
                    "the API key \(grant.name.quoted) expired at \(KeyExpiry.format(expires)); ask for a new one (`waterfall key add`).",
                    headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\", error_description=\"the key expired\""]
                ),
                key: grant.name)
        }
        usage.note(grant.name, at: now)
        return .key(grant)
    }

    /// The feeds `caller` may see on a route of `access` about `feed`, or a problem (401, 403,
    /// 404) refusing it.
    func admit(_ caller: Caller, access: Route.Access, feed: String?) throws -> FeedScope {
        guard access != .open else { return .all }
        switch caller {
        case .keyless:
            if answersAnonymousCallers || (access == .read && publicRead) { return .all }
            throw Problem(
                .unauthorized,
                "this server is reachable from other machines and its database has no API key; make one with `waterfall key add NAME --write`.",
                headers: [.wwwAuthenticate: "Bearer"])
        case .anonymous:
            if access == .read && publicRead { return .all }
            throw Problem(
                .unauthorized, "this server needs an API key: send Authorization: Bearer SECRET.",
                headers: [.wwwAuthenticate: "Bearer"])
        case .refused(let problem, _):
            throw problem
        case .key(let grant):
            if let feed, !grant.covers(feed) { throw WaterfallError.unknownFeed(feed) }
            if access == .write && !grant.canWrite {
                throw Problem(
                    .forbidden,
                    "the API key \(grant.name.quoted) may read but not write; writes need a key made with write access."
                )
            }
            if access == .readAll && grant.feeds != nil {
                throw Problem(
                    .forbidden,
                    "the API key \(grant.name.quoted) covers some feeds only; this route answers about the whole database."
                )
            }
            return caller.scope
        }
    }

    /// What `caller` may do on this server (`GET /v1/access`), or the problem (401) that
    /// refuses it everywhere a key is needed: an expired key's says when it expired.
    func access(of caller: Caller) throws -> CallerAccess {
        switch caller {
        case .keyless:
            if answersAnonymousCallers { return CallerAccess(key: nil, feeds: nil, write: true, expires: nil) }
            _ = try admit(caller, access: .read, feed: nil)
            return CallerAccess(key: nil, feeds: nil, write: false, expires: nil)
        case .anonymous, .refused:
            _ = try admit(caller, access: .read, feed: nil)
            return CallerAccess(key: nil, feeds: nil, write: false, expires: nil)
        case .key(let grant):
            return CallerAccess(
                key: grant.name, feeds: grant.feeds.map { $0.sorted() }, write: grant.canWrite, expires: grant.expires)
        }
    }

    /// The secret of `Authorization: Bearer SECRET`, or nil.
    private static func bearer(_ value: String?) -> String? {
        guard let value, value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        let secret = value.dropFirst(7).trimmingSpaces
        return secret.isEmpty ? nil : String(secret)
    }

    /// The keys as the database holds them at its current version.
    ///
    /// On PostgreSQL they are read once per version however many requests come meanwhile:
    /// under a writer the version moves 20 times a second, and 64 readers each reading the keys
    /// again made 700 key reads a second, most of the server's statements and of its readers'
    /// connections (deep page under the writer 0.54 of `/healthz`, p99 25 ms; 0.77 and 7.6 ms
    /// shared). On SQLite each request that finds them older than the version reads them:
    /// a local read of a small table, where making every request wait for one read (which
    /// resumes them all at once) cost a fifth of the throughput under the writer (0.69 of
    /// `/healthz` instead of 0.86), for a p99 of 4.3 ms instead of 5.5.
    private func currentKeyring() async throws -> Keyring {
        guard let watcher, let version = try? watcher.version() else { return try await readKeys() }
        guard sharesReads else {
            if let kept = keyrings.withLockedValue({ $0.kept }), kept.version == version { return kept.keyring }
            let keyring = try await readKeys()
            keyrings.withLockedValue { $0.kept = (version, keyring) }
            return keyring
        }
        // The first request of a version reads the keys in its own task (no hop to another), the
        // others that come meanwhile await its result.
        while true {
            let result = await keyring(at: version)
            // The reader's request was cancelled: not a failure of the others'.
            if case .failure(let error) = result, error is CancellationError, !Task.isCancelled { continue }
            return try result.get()
        }
    }

    /// The keys kept at `version`, or the result of a read of them at `version`: this
    /// request's own, if none is under way, else the one under way's.
    private func keyring(at version: Int64) async -> Result<Keyring, any Error> {
        let turn: KeyringTurn = await withCheckedContinuation { (waiter: CheckedContinuation<KeyringTurn, Never>) in
            let now = keyrings.withLockedValue { keyrings -> KeyringTurn? in
                if let kept = keyrings.kept, kept.version == version { return .kept(kept.keyring) }
                if keyrings.reading[version] != nil {
                    keyrings.reading[version]!.append(waiter)
                    return nil
                }
                // Begun after `version` was seen, so its snapshot holds every commit it counts.
                keyrings.reading[version] = []
                return .read
            }
            if let now { waiter.resume(returning: now) }
        }
        switch turn {
        case .kept(let keyring):
            return .success(keyring)
        case .readBy(let result):
            return result
        case .read:
            let result: Result<Keyring, any Error>
            do {
                result = .success(try await readKeys())
            } catch {
                result = .failure(error)
            }
            let waiters = keyrings.withLockedValue { keyrings -> [CheckedContinuation<KeyringTurn, Never>] in
                // A failed read is tried again by the next request.
                if case .success(let keyring) = result { keyrings.kept = (version, keyring) }
                return keyrings.reading.removeValue(forKey: version) ?? []
            }
            for waiter in waiters { waiter.resume(returning: .readBy(result)) }
            return result
        }
    }

    /// The keys kept, by the version they were read at, and the requests awaiting each read
    /// under way, by its version.
    private struct Keyrings {
        var kept: (version: Int64, keyring: Keyring)?
        var reading: [Int64: [CheckedContinuation<KeyringTurn, Never>]] = [:]
    }
}

/// What a request finds of the keys at its version: kept, its turn to read them, or another
/// request's read (`readBy`).
private enum KeyringTurn: Sendable {
    case kept(Keyring)
    case read
    case readBy(Result<Keyring, any Error>)
}

/// Who sends a request, as its `Authorization` header says.
enum Caller: Sendable {
    /// Anyone: the database has no key at all.
    case keyless
    /// Someone without a key, to a database with keys.
    case anonymous
    /// Someone with a key that is not one of the server's, or has expired: refused wherever a
    /// key is needed, with this problem. `key` names an expired key.
    case refused(Problem, key: String?)
    /// The holder of a key.
    case key(KeyGrant)

    /// The feeds the caller's answers may show: its key's, or every feed.
    var scope: FeedScope {
        if case .key(let grant) = self, let feeds = grant.feeds { return .only(feeds) }
        return .all
    }

    /// The name of the key it came with, for the access log.
    var keyName: String? {
        switch self {
        case .key(let grant): grant.name
        case .refused(_, let key): key
        case .keyless, .anonymous: nil
        }
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
