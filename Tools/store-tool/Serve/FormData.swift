import Foundation

/// The fields of an `application/x-www-form-urlencoded` text: a URL's query
/// or a form's POST body. `+` is a space and `%XX` a byte, as browsers send
/// them; a name that appears twice keeps its first value.
struct FormData: Sendable {
    private var fields: [String: String] = [:]

    /// Decodes `text` (without the `?`); a malformed `%` sequence leaves
    /// that part as it was written, so it is never silently dropped.
    init(_ text: String?) {
        for part in (text ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = Self.decode(pieces[0])
            if fields[name] == nil { fields[name] = pieces.count > 1 ? Self.decode(pieces[1]) : "" }
        }
    }

    /// The field `name`, or nil when absent.
    subscript(name: String) -> String? { fields[name] }

    /// The field `name`, or nil when absent or empty (an empty filter box is no filter).
    func nonEmpty(_ name: String) -> String? {
        guard let value = fields[name], !value.isEmpty else { return nil }
        return value
    }

    /// The fields whose names start with `prefix`, without it, in name order.
    func fields(prefixed prefix: String) -> [(name: String, value: String)] {
        fields.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(prefix.count)), $0.value) }.sorted { $0.name < $1.name }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
