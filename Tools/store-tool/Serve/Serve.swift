import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ModelStore
import ModelStoreDynamic

/// `serve STORE`: a local web server to browse and edit the store.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Browse and edit the store in a web browser (a local server, protected by a token).",
        discussion: """
            Prints the URL to open (with the port bound and the token) as its first line, then serves \
            until interrupted (Ctrl-C or SIGTERM), and exits 0. Pages: the entities with counts, list \
            with the filter language, sorting and paging, show with links, the schema with its diagram, \
            and (unless --read-only) set, insert and delete with the same checks and delete plan as \
            the commands. Listens on 127.0.0.1 only, unless --host says otherwise.

            Examples:
              store-tool serve trips.store
              store-tool serve trips.store --port 0 --read-only
            """)

    @OptionGroup var options: StoreOptions
    @Option(help: "The port to listen on (0 to 65535; 0 picks a free one, which the URL shows).", transform: Serve.port) var port = 8080
    @Option(help: "The address to listen on; anything but 127.0.0.1, ::1 or localhost lets other machines connect.") var host = "127.0.0.1"
    @Flag(help: "Open the store read-only: no edit forms, and every write refused.") var readOnly = false

    func run() async throws {
        var served: ServedStore?
        // Opened once here so that a store that cannot be served exits as
        // the other commands do (4 for a missing file, and so on), with the
        // same warnings; each request then opens it anew (see ServedStore).
        var opensReadOnly = false
        do {
            try reporting {
                do {
                    _ = try options.open(readOnly: readOnly)
                } catch {
                    // A store this user cannot write (or one with foreign
                    // schema objects) may still be browsed: say how.
                    opensReadOnly = !readOnly && (try? options.open(readOnly: true)) != nil
                    throw error
                }
                served = ServedStore(
                    path: options.store, isReadOnly: readOnly, busyTimeout: .milliseconds(NumericOption.milliseconds(options.wait)))
            }
        } catch {
            if opensReadOnly { Terminal.note("store-tool: note: the store opens read-only: serve it with --read-only to browse it") }
            throw error
        }
        guard let served else { return }
        if !["127.0.0.1", "::1", "localhost"].contains(host) {
            Terminal.note(
                "store-tool: warning: listening on \(host): other machines can connect; the token is the only protection, "
                    + "and it travels unencrypted")
        }
        let token = AccessToken()
        let urlHost = host.contains(":") ? "[\(host)]" : host
        var logger = Logger(label: "store-tool serve")
        logger.logLevel = .error
        let app = Application(
            router: ServeRoutes(store: served, token: token).router(),
            configuration: .init(address: .hostname(host, port: port), serverName: "store-tool"),
            onServerRunning: { channel in
                // The first line of stdout, written at once (unbuffered):
                // scripts and tests read the bound port from it.
                let url = "http://\(urlHost):\(channel.localAddress?.port ?? 0)/?token=\(token.text)\n"
                FileHandle.standardOutput.write(Data(url.utf8))
            },
            logger: logger)
        do {
            try await app.runService()
        } catch {
            Terminal.error("cannot serve on \(host) port \(port): \(error)")
            throw ExitCode(ExitStatus.failure.rawValue)
        }
    }

    /// Parses `--port`: 0 to 65535.
    /// - Throws: `ValidationError` naming the range.
    static func port(_ text: String) throws -> Int {
        guard let value = Int(text), (0...65535).contains(value) else { throw ValidationError("expected a port from 0 to 65535") }
        return value
    }
}
