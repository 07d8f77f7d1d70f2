import Foundation

/// A small, well-defined subset of YAML for migration scripts; enough for
/// what scripts say, with errors that name the line.
///
/// - A document is a mapping: `key: value` lines at one indentation.
/// - A value is a scalar on the same line, a nested block on the lines below
///   (indented further), or a literal block `|` whose more-indented lines are
///   kept as they are (newlines included, common indentation removed).
/// - A sequence is lines starting with `- ` at one indentation; an item is a
///   scalar or a mapping whose first key follows the dash.
/// - Scalars are plain text, or 'single' or "double" quoted (double quotes
///   know `\"`, `\\`, `\n` and `\t`). `[a, b]` is a list of scalars.
/// - `#` starts a comment at the start of a line or after a space, outside quotes.
///
/// Anchors, tags, flow mappings, multi-document files and folded scalars are
/// not part of the subset, and are reported as errors rather than misread.
/// One `key: value` of a mapping.
struct ScriptPair {
    let key: String
    let value: ScriptNode
}

indirect enum ScriptNode {
    case scalar(String, line: Int)
    case list([ScriptNode], line: Int)
    case map([ScriptPair], line: Int)

    var line: Int {
        switch self {
        case .scalar(_, let line), .list(_, let line), .map(_, let line): line
        }
    }
}

/// A line-numbered error in a script's YAML.
struct ScriptSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let message: String
    var description: String { "line \(line): \(message)" }
}

struct ScriptYAMLParser {
    private struct Line {
        let number: Int
        let indent: Int
        let text: String  // without indentation; comments kept for block scalars
    }

    private var lines: [Line] = []
    private var position = 0

    /// Parses a document into its top-level mapping.
    /// - Throws: `ScriptSyntaxError` naming the line.
    static func parse(_ text: String) throws -> ScriptNode {
        var parser = ScriptYAMLParser()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw).replacingOccurrences(of: "\r", with: "")
            if line.contains("\t") && line.trimmingCharacters(in: .whitespaces).first != nil
                && line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t")
            {
                throw ScriptSyntaxError(line: index + 1, message: "indent with spaces, not tabs")
            }
            let indent = line.prefix(while: { $0 == " " }).count
            parser.lines.append(Line(number: index + 1, indent: indent, text: String(line.dropFirst(indent))))
        }
        parser.skipBlank()
        guard parser.position < parser.lines.count else { return .map([], line: 1) }
        let node = try parser.block(indent: parser.lines[parser.position].indent)
        parser.skipBlank()
        if parser.position < parser.lines.count {
            throw ScriptSyntaxError(line: parser.lines[parser.position].number, message: "unexpected indentation")
        }
        return node
    }

    private mutating func skipBlank() {
        while position < lines.count, Self.isBlank(lines[position].text) { position += 1 }
    }

    private static func isBlank(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    private mutating func block(indent: Int) throws -> ScriptNode {
        skipBlank()
        let first = lines[position]
        if first.text == "-" || first.text.hasPrefix("- ") { return try sequence(indent: indent) }
        return try mapping(indent: indent, firstLineText: nil)
    }

    private mutating func sequence(indent: Int) throws -> ScriptNode {
        let start = lines[position].number
        var items: [ScriptNode] = []
        while true {
            skipBlank()
            guard position < lines.count, lines[position].indent == indent,
                lines[position].text == "-" || lines[position].text.hasPrefix("- ")
            else { break }
            let line = lines[position]
            let rest = String(line.text.dropFirst(1).drop(while: { $0 == " " }))
            if rest.isEmpty {
                position += 1
                skipBlank()
                guard position < lines.count, lines[position].indent > indent else {
                    items.append(.scalar("", line: line.number))
                    continue
                }
                items.append(try block(indent: lines[position].indent))
            } else if Self.keyValue(rest) != nil {
                // "- key: value" opens a mapping whose keys line up after the dash.
                let itemIndent = indent + (line.text.count - rest.count)
                items.append(try mapping(indent: itemIndent, firstLineText: rest))
            } else {
                position += 1
                items.append(try Self.scalar(rest, line: line.number))
            }
        }
        return .list(items, line: start)
    }

    private mutating func mapping(indent: Int, firstLineText: String?) throws -> ScriptNode {
        let start = lines[position].number
        var entries: [ScriptPair] = []
        var pendingText = firstLineText
        while true {
            let line: Line
            let text: String
            if let first = pendingText {
                line = lines[position]
                text = first
                pendingText = nil
            } else {
                skipBlank()
                guard position < lines.count, lines[position].indent == indent else { break }
                line = lines[position]
                text = line.text
                if text.hasPrefix("- ") { throw ScriptSyntaxError(line: line.number, message: "a list item where a key was expected") }
            }
            guard let (key, value) = Self.keyValue(text) else {
                throw ScriptSyntaxError(line: line.number, message: "expected 'key: value'")
            }
            if entries.contains(where: { $0.key == key }) {
                throw ScriptSyntaxError(line: line.number, message: "the key \(key) appears twice")
            }
            position += 1
            if value == "|" || value == "|-" {
                entries.append(ScriptPair(key: key, value: literalBlock(parentIndent: indent, line: line.number)))
            } else if value.isEmpty {
                skipBlank()
                if position < lines.count, lines[position].indent > indent
                    || (lines[position].indent == indent && lines[position].text.hasPrefix("- "))
                {
                    entries.append(ScriptPair(key: key, value: try block(indent: lines[position].indent)))
                } else {
                    entries.append(ScriptPair(key: key, value: .scalar("", line: line.number)))
                }
            } else {
                entries.append(ScriptPair(key: key, value: try Self.scalar(value, line: line.number)))
            }
        }
        if position < lines.count, !Self.isBlank(lines[position].text), lines[position].indent > indent {
            throw ScriptSyntaxError(line: lines[position].number, message: "unexpected indentation")
        }
        return .map(entries, line: start)
    }

    private mutating func literalBlock(parentIndent: Int, line: Int) -> ScriptNode {
        var collected: [Line] = []
        while position < lines.count {
            let next = lines[position]
            if next.text.trimmingCharacters(in: .whitespaces).isEmpty {
                collected.append(next)
                position += 1
                continue
            }
            guard next.indent > parentIndent else { break }
            collected.append(next)
            position += 1
        }
        while let last = collected.last, last.text.trimmingCharacters(in: .whitespaces).isEmpty { collected.removeLast() }
        let common = collected.filter { !$0.text.isEmpty }.map(\.indent).min() ?? 0
        let text = collected.map { String(repeating: " ", count: max(0, $0.indent - common)) + $0.text }
        return .scalar(text.joined(separator: "\n"), line: line)
    }

    /// Splits `key: value` (the value may be empty); nil when the text is not a pair.
    private static func keyValue(_ text: String) -> (String, String)? {
        guard let first = text.first, first != "\"", first != "'", first != "[", first != "{" else { return nil }
        guard let range = text.range(of: ": ") ?? (text.hasSuffix(":") ? text.range(of: ":", options: .backwards) : nil)
        else { return nil }
        let key = String(text[..<range.lowerBound]).trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, !key.contains(" ") || key.allSatisfy({ $0 != "#" }) else { return nil }
        let value = stripComment(String(text[range.upperBound...])).trimmingCharacters(in: .whitespaces)
        return (key, value)
    }

    private static func stripComment(_ text: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in text.enumerated() {
            if let open = quote {
                if character == open && previous != "\\" { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" && previous == " " {
                return String(text.prefix(offset))
            }
            previous = character
        }
        return text
    }

    private static func scalar(_ raw: String, line: Int) throws -> ScriptNode {
        let text = stripComment(raw).trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw ScriptSyntaxError(line: line, message: "a list [..] must end on its line") }
            let inner = text.dropFirst().dropLast()
            if inner.trimmingCharacters(in: .whitespaces).isEmpty { return .list([], line: line) }
            return .list(try inner.split(separator: ",").map { try scalar(String($0), line: line) }, line: line)
        }
        if let first = text.first, "&*!>{%@`".contains(first) {
            throw ScriptSyntaxError(line: line, message: "'\(first)' starts YAML that migration scripts do not support; quote the value")
        }
        if text.hasPrefix("\""), text.count >= 2, text.hasSuffix("\"") {
            var result = ""
            var escaped = false
            for character in text.dropFirst().dropLast() {
                if escaped {
                    switch character {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    default: result.append(character)
                    }
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else {
                    result.append(character)
                }
            }
            return .scalar(result, line: line)
        }
        if text.hasPrefix("'"), text.count >= 2, text.hasSuffix("'") {
            return .scalar(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"), line: line)
        }
        return .scalar(text, line: line)
    }
}
