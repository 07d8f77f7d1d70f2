import ModelStorePostgres
import Testing

/// Reading connection URLs needs no server: these always run.
@Suite("PostgreSQL connection URLs")
struct PostgresLocationTests {
    @Test("A full URL gives host, port, user, password and database; loopback has TLS off")
    func fullURL() throws {
        let location = try PostgresLocation(url: "postgres://app:s%40cret@127.0.0.1:6543/shop")
        #expect(location.host == "127.0.0.1")
        #expect(location.port == 6543)
        #expect(location.user == "app")
        #expect(location.password == "s@cret")
        #expect(location.database == "shop")
        #expect(location.tls == .disable)
        #expect(location.description == "postgres://app@127.0.0.1:6543/shop")
    }

    @Test("Defaults: port 5432, the user's name as the database, TLS required for a remote host")
    func defaults() throws {
        let location = try PostgresLocation(url: "postgresql://app@db.example.com")
        #expect(location.port == 5432)
        #expect(location.database == "app")
        #expect(location.password == nil)
        #expect(location.tls == .require)
        #expect(try PostgresLocation(url: "postgres://app@localhost/x").tls == .disable)
        #expect(try PostgresLocation(url: "postgres://app@[::1]:5/x").host == "::1")
    }

    @Test("sslmode overrides the default either way")
    func sslMode() throws {
        #expect(try PostgresLocation(url: "postgres://app@db.example.com/x?sslmode=disable").tls == .disable)
        #expect(try PostgresLocation(url: "postgres://app@127.0.0.1/x?sslmode=require").tls == .require)
        #expect(try PostgresLocation(url: "postgres://app@127.0.0.1/x?sslmode=verify-full").tls == .require)
    }

    @Test(
        "A URL ModelStore cannot use is refused with the reason, and never shows the password",
        arguments: [
            ("mysql://app:pw@host/db", "scheme"),
            ("postgres://host/db", "no user"),
            ("postgres://app:pw@/db", "no host"),
            ("postgres://app:pw@host/db/extra", "one database"),
            ("postgres://app:pw@host/db?sslmode=prefer", "sslmode prefer"),
            ("postgres://app:pw@host/db?application_name=x", "application_name"),
        ])
    func refusals(url: String, expected: String) {
        #expect {
            _ = try PostgresLocation(url: url)
        } throws: { error in
            let text = "\(error)"
            return text.contains(expected) && !text.contains("pw")
        }
    }
}
