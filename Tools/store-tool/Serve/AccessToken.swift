import Foundation
import Hummingbird

/// The secret that `serve` requires on every request: 128 random bits from
/// the system's generator, as hex. The URL `serve` prints carries it as
/// `?token=`; the first request sets it as an HttpOnly, SameSite=Strict
/// cookie (and is redirected to the same page without it), so that later pages and links need not carry it, no script can
/// read it, and no other site's page can send it along. A form that writes
/// also carries it in a hidden field, checked again by the POST.
struct AccessToken: Sendable {
    /// The token's hex text (32 digits).
    let text: String
    /// The cookie's name.
    static let cookieName = "store_tool_token"

    /// A new random token.
    init() {
        var generator = SystemRandomNumberGenerator()
        let bits = (generator.next() as UInt64, generator.next() as UInt64)
        text = String(format: "%016llx%016llx", bits.0, bits.1)
    }

    /// True when `candidate` is the token. Compares every byte whatever
    /// differs first, so that the time taken tells nothing about the token.
    func matches(_ candidate: String?) -> Bool {
        guard let candidate else { return false }
        let given = Array(candidate.utf8)
        let expected = Array(text.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The cookie that carries the token for the rest of the session.
    var cookie: Cookie {
        Cookie(name: Self.cookieName, value: text, path: "/", httpOnly: true, sameSite: .strict)
    }
}

/// Refuses (403) every request that carries neither the token in its URL
/// (`?token=`) nor its cookie; a request whose URL names a wrong token is
/// refused whatever cookie it has. A right token in the URL sets the cookie;
/// a GET is then redirected to the same address without the token, so that
/// the token does not stay in the address bar, the browser's history or a
/// copied link.
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let query = FormData(request.uri.query)
        if let given = query["token"] {
            guard token.matches(given) else { return Self.refusal }
            var response: Response
            if request.method == .get {
                response = Response(
                    status: .seeOther, headers: [.location: Self.withoutToken(path: request.uri.path, query: request.uri.query)])
            } else {
                response = try await next(request, context)
            }
            response.setCookie(token.cookie)
            return response
        }
        guard token.matches(request.cookies[Self.cookieName]?.value) else { return Self.refusal }
        return try await next(request, context)
    }

    private static var cookieName: String { AccessToken.cookieName }

    /// A request's path and query without its `token` parameters.
    static func withoutToken(path: String, query: String?) -> String {
        let kept = (query ?? "").split(separator: "&").filter { parameter in
            parameter.split(separator: "=", maxSplits: 1).first != "token"
        }
        return path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// What a request without the right token gets: no page, no hint of the store.
    static var refusal: Response {
        Response(
            status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: "403 Forbidden: a wrong or missing token; open the URL store-tool serve printed\n")))
    }
}
