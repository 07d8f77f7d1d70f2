import Foundation
import PostgresNIO

/// Where a PostgreSQL database is and how to reach it, read from a URL:
/// `postgres://user:password@host:port/database?sslmode=disable`.
///
/// TLS is off for a loopback host (`127.0.0.1`, `::1`, `localhost`) and
/// required, with the server's certificate verified, for any other host;
/// `sslmode=disable` or `sslmode=require` says so explicitly. `require`
/// here verifies the certificate and host name (libpq's `verify-full`,
/// which is also accepted): a connection that is encrypted but to anyone
/// would not protect the password.
package struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// Whether the connection uses TLS.
    package enum TLSMode: String, Sendable {
        /// Plain TCP.
        case disable
        /// TLS with the server's certificate and host name verified.
        case require
    }

    /// The server's host name or address (an IPv6 address without brackets).
    package var host: String
    /// The server's TCP port.
    package var port: Int
    /// The user to log in as.
    package var user: String
    /// The user's password; nil for trust or peer authentication.
    package var password: String?
    /// The database to connect to.
    package var database: String
    /// Whether the connection uses TLS.
    package var tls: TLSMode

    /// Reads a `postgres://` or `postgresql://` URL. The user name is
    /// required; the port defaults to 5432, the database to the user's
    /// name (as libpq's); user, password and database may be
    /// percent-encoded.
    /// - Throws: `PostgresStoreError.invalidURL` naming what is wrong; the
    ///   message never contains the password.
    package init(url text: String) throws(PostgresStoreError) {
        guard let components = URLComponents(string: text) else {
            throw .invalidURL(reason: "it is not a URL")
        }
        guard let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidURL(reason: "its scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(reason: "it names no host") }
        guard let user = components.user, !user.isEmpty else { throw .invalidURL(reason: "it names no user") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else { throw .invalidURL(reason: "its path must be one database name") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .invalidURL(reason: "its port \(port) is not between 1 and 65535") }
        self.user = user
        self.password = components.password
        self.database = path.isEmpty ? user : (path.removingPercentEncoding ?? path)
        self.tls = Self.isLoopback(self.host) ? .disable : .require
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?): tls = .disable
            case ("sslmode", "require"?), ("sslmode", "verify-full"?): tls = .require
            case ("sslmode", let value):
                throw .invalidURL(reason: "sslmode \(value ?? "(empty)") is not one of disable, require, verify-full")
            default:
                throw .invalidURL(reason: "it has parameter \(item.name), which ModelStore does not know (only sslmode)")
            }
        }
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The location without the password, for messages.
    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// postgres-nio's configuration for this location.
    /// - Throws: `PostgresStoreError.connectionFailed` when the TLS context
    ///   cannot be made (the system's trust store cannot be read).
    func connectionConfiguration() throws(PostgresStoreError) -> PostgresConnection.Configuration {
        let tlsConfiguration: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable:
            tlsConfiguration = .disable
        case .require:
            do {
                tlsConfiguration = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            } catch {
                throw .connectionFailed(location: description, reason: "the TLS context cannot be made: \(error)")
            }
        }
        return PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tlsConfiguration)
    }
}
