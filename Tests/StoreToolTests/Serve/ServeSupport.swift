import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `store-tool serve STORE --port 0` child process: its URL (read from
/// the first line it prints) and an HTTP client that neither follows
/// redirects nor keeps cookies, so that each test says what it sends.
final class ServeProcess {
    let process = Process()
    /// The URL serve printed, with its token.
    let url: String
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// The token in the URL.
    let token: String
    private let session: URLSession
    private let errors: URL

    /// Starts serve on `store` with `arguments` after it.
    init(_ store: String, _ arguments: [String] = [], folder: URL) throws {
        let binary = try #require(storeToolBinary, "store-tool must be built next to the tests")
        process.executableURL = binary
        process.arguments = ["serve", store, "--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        errors = folder.appending(path: "serve-stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errors.path(percentEncoded: false), contents: nil)
        process.standardError = try FileHandle(forWritingTo: errors)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line: the URL. Read byte by byte so that nothing after it is consumed.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        url = String(decoding: line, as: UTF8.self)
        let parts = url.components(separatedBy: "/?token=")
        base = parts[0]
        token = parts.count == 2 ? parts[1] : ""
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        if token.isEmpty {
            process.terminate()
            process.waitUntilExit()
            Issue.record("serve printed '\(url)', not a URL with a token; stderr: \(stderr)")
        }
    }

    /// What serve wrote on stderr so far.
    var stderr: String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }

    /// Stops serve as Ctrl-C would (SIGTERM here) and returns its exit status.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Stops serve with SIGINT, as Ctrl-C does, and returns its exit status.
    func interrupt() -> Int32 {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }

    /// One response: status, headers and body as text.
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: String
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    /// GETs `path` (with its query) sending `cookie` when given.
    func get(_ path: String, cookie: String? = nil) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        return try await send(request)
    }

    /// GETs `path` with the right cookie.
    func page(_ path: String) async throws -> Reply { try await get(path, cookie: "store_tool_token=\(token)") }

    /// POSTs `fields` as a form to `path` with the right cookie; `token` is
    /// the form's token field (the right one unless given).
    func post(_ path: String, _ fields: [(String, String)], token: String? = nil) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.httpMethod = "POST"
        request.setValue("store_tool_token=\(self.token)", forHTTPHeaderField: "Cookie")
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let all = [("token", token ?? self.token)] + fields
        request.httpBody = Data(all.map { "\(Self.encode($0))=\(Self.encode($1))" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Reply {
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return Reply(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }

    /// Form encoding as a browser does it: a space as `+`.
    static func encode(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~ ")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: " ", with: "+")
    }

    /// Text as the pages escape it.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }
}

/// Hands a redirect back to the test instead of following it.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// The message store-tool printed after `store-tool: error: `.
func cliError(_ run: ToolRun) -> String {
    run.stderr.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "store-tool: error: ", with: "")
}
