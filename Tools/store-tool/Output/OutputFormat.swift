import ArgumentParser
import ModelStore
import ModelStoreDynamic

/// How objects are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    /// Aligned columns; on a terminal, one field per line when a row is too wide.
    case table
    /// One JSON array of objects.
    case json
    /// One JSON object per line.
    case jsonl
    /// Comma-separated values with a header row (RFC 4180 quoting).
    case csv

    /// `table` on a terminal, `jsonl` when piped (the rule `list`, `sql`
    /// and the manual state; give `--format table` to keep the table).
    static func resolved(_ format: OutputFormat?) -> OutputFormat {
        format ?? (Terminal.outputIsTerminal ? .table : .jsonl)
    }

    /// Refuses a format that `command` cannot print, instead of printing
    /// another one in its place.
    /// - Throws: `ValidationError` naming the formats it can print (exit 64).
    static func require(_ format: OutputFormat?, in accepted: [OutputFormat], for command: String) throws {
        guard let format, !accepted.contains(format) else { return }
        throw ValidationError(
            "\(command) cannot print --format \(format.rawValue); give "
                + accepted.map(\.rawValue).joined(separator: " or "))
    }
}

/// JSON text written by hand, so that objects stream without building a tree.
enum JSONText {
    /// A JSON string literal, escaped as the library's exports escape it.
    static func string(_ text: String) -> String { ValueJSON.quote(text) }

    /// A value as JSON: numbers and Bools as themselves, JSON values
    /// embedded, everything else as its readable text.
    static func value(_ value: DynamicValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .int(let value): String(value)
        case .double(let value) where value.isFinite: ValueText.format(.double(value))
        case .json(let text): text
        case .count(let count): String(count)
        case .objects(let ids): "[" + ids.map { string($0.description) }.joined(separator: ",") + "]"
        default: string(ValueText.format(value))
        }
    }

    /// An object as one JSON object: `id` first, then `fields` in order.
    static func object(_ object: DynamicObject, fields: [String]) -> String {
        var parts = ["\"id\":" + string(object.id.description)]
        for field in fields {
            parts.append(string(field) + ":" + (object.unreadable[field].map(UnreadableText.json) ?? value(object[field] ?? .null)))
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
