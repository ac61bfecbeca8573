import Foundation
import NIOSSL
import PostgresNIO

/// Where and how to connect to PostgreSQL, read from a URL in libpq's form:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require][&options=…]`.
///
/// `sslmode` is `disable` (the default: Waterfall's servers and PostgreSQL usually share a
/// machine or a private network) or `require` (TLS, with the server's certificate verified
/// against the system's roots). `options` is passed to the server at connection start as
/// libpq passes it (`options=-c%20search_path%3Dalbums` keeps the catalog in schema `albums`).
/// The user, password and database are percent-decoded.
struct PostgresSettings: Sendable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?
    var requiresTLS: Bool
    var options: String?
    /// How long a statement's answer is waited for (not part of the URL: tests shorten it).
    var deadlines = StatementDeadlines()

    /// The URL without its password: what messages and `stats` show.
    var displayName: String {
        var text = "postgres://\(username)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database ?? username)"
        var query: [String] = []
        if requiresTLS { query.append("sslmode=require") }
        if let options {
            query.append("options=\(options.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    /// Reads `url`.
    /// - Throws: ``StoreError`` `cannotOpen` naming what is wrong with the URL.
    init(url: String) throws(StoreError) {
        func invalid(_ what: String) -> StoreError {
            StoreError(
                .cannotOpen,
                "\(Self.redacted(url)) is not a usable PostgreSQL URL: \(what); expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE."
            )
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            scheme == "postgres" || scheme == "postgresql"
        else { throw invalid("it cannot be read as a URL") }
        guard let host = components.host, !host.isEmpty else { throw invalid("it names no host") }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw invalid("it names no user")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw invalid("port \(port) is outside 1…65535") }
        username = user
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        requiresTLS = false
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"): requiresTLS = false
            case ("sslmode", "require"), ("sslmode", "verify-full"): requiresTLS = true
            case ("sslmode", let value):
                throw invalid(
                    "sslmode \(value.map { "'\($0)'" } ?? "without a value") is not supported (use disable or require)")
            case ("options", let value): options = value
            case ("application_name", _), ("connect_timeout", _): break
            default: throw invalid("the parameter '\(item.name)' is not supported (sslmode and options are)")
            }
        }
    }

    /// How long opening a connection may take, in seconds, before it fails as `cannotOpen`.
    private static let connectTimeout: Int64 = 10

    /// What every connection sends the server at its start, a command's or a pool's: the URL's
    /// `options` and Waterfall's name (in `pg_stat_activity`).
    private var startupParameters: [(String, String)] {
        (options.map { [("options", $0)] } ?? []) + [("application_name", "waterfall")]
    }

    /// PostgresNIO's configuration of a connection with these settings.
    func configuration() throws(StoreError) -> PostgresConnection.Configuration {
        var tls = PostgresConnection.Configuration.TLS.disable
        if requiresTLS {
            do {
                tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            } catch {
                throw StoreError(.cannotOpen, "\(displayName): TLS cannot be set up: \(error).")
            }
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(Self.connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters
        return configuration
    }

    /// PostgresNIO's configuration of a pool (`PostgresClient`) of `connections` connections
    /// with these settings, all opened at once and kept (each keeps its prepared statements).
    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var tls = PostgresClient.Configuration.TLS.disable
        if requiresTLS { tls = .require(.makeClientConfiguration()) }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(Self.connectTimeout)
        configuration.options.additionalStartupParameters = startupParameters
        configuration.options.minimumConnections = connections
        configuration.options.maximumConnections = connections
        return configuration
    }

    /// `url` with any password replaced by `***`, for messages about a URL that cannot be read.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let schemeEnd = url.range(of: "://")?.upperBound,
            schemeEnd <= at, let colon = url[schemeEnd..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<url.index(after: colon)]) + "***" + String(url[at...])
    }
}
