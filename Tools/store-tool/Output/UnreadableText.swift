import ModelStore
import ModelStoreDynamic

/// How the read commands show a stored value that does not fit its type
/// (text that is not JSON in a Codable column, a number out of range): as
/// bad, with the problem and what the column holds, so that one bad row
/// does not hide the others. `check` lists every such value; `set` can
/// overwrite one.
enum UnreadableText {
    /// The value in a table, a CSV cell or `show`'s text:
    /// `<unreadable: the stored text is not valid JSON; stored "{not json">`.
    static func cell(_ value: UnreadableValue) -> String {
        "<unreadable: \(value.reason); stored \(stored(value.stored))>"
    }

    /// The value in JSON output, the same marker an export writes (and an
    /// import refuses): `{"$unreadable":{"problem":…,"stored":…}}`.
    static func json(_ value: UnreadableValue) -> String {
        DynamicExchange.unreadable(value)
    }

    /// The note on stderr after a command showed `count` such values.
    static func note(_ count: Int) -> String {
        "store-tool: warning: \(count) stored value\(count == 1 ? "" : "s") could not be read as \(count == 1 ? "its type" : "their types") "
            + "and \(count == 1 ? "is" : "are") shown as <unreadable …> (\"$unreadable\" in JSON); `store-tool check` lists "
            + "every problem, and `store-tool set` can overwrite a bad value"
    }

    private static func stored(_ value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): String(number)
        case .real(let number): ValueJSON.number(number)
        case .text(let text): ValueJSON.quote(text.count > 40 ? String(text.prefix(40)) + "…" : text)
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }
}
