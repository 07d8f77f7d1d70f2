import Foundation

/// Markup that is safe to send to a browser. It is built only from literal
/// markup in our own source and from interpolations, and an interpolated
/// `String` is always escaped: this type is the one place where `serve`
/// escapes text, so no value from a store or a request can reach a page as
/// markup. `HTML` values interpolate as they are (they are escaped already).
///
/// ```swift
/// let cell: HTML = "<td>\(value)</td>"   // value: String, escaped
/// ```
struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The escaped markup.
    private(set) var markup: String

    init(stringLiteral literal: String) { markup = literal }
    init(stringInterpolation: Interpolation) { markup = stringInterpolation.markup }

    var description: String { markup }

    /// Joins fragments, each already safe.
    init(joining parts: [HTML], separator: HTML = "") {
        markup = parts.map(\.markup).joined(separator: separator.markup)
    }

    /// Builds markup: literals as they are, `String`s escaped.
    struct Interpolation: StringInterpolationProtocol {
        var markup = ""
        init(literalCapacity: Int, interpolationCount: Int) { markup.reserveCapacity(literalCapacity + 16 * interpolationCount) }
        mutating func appendLiteral(_ literal: String) { markup += literal }
        /// Text, escaped for an element's content or a quoted attribute.
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }
        mutating func appendInterpolation(_ number: Int) { markup += String(number) }
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }
        mutating func appendInterpolation(_ parts: [HTML]) { markup += parts.map(\.markup).joined() }
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by entities: safe in
    /// an element's content and in an attribute quoted with either quote.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// A link target on this server: `path` and its query, each name and
    /// value percent-encoded (escaped again when interpolated, as any text).
    static func link(_ path: String, _ query: KeyValuePairs<String, String?> = [:]) -> String {
        let parts = query.compactMap { name, value in value.map { percentEncoded(name) + "=" + percentEncoded($0) } }
        return parts.isEmpty ? path : path + "?" + parts.joined(separator: "&")
    }

    /// `text` percent-encoded for a URL's query: all but letters, digits and `-._~`.
    static func percentEncoded(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
