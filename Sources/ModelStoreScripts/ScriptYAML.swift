import Foundation
import Yams

/// One `key: value` of a mapping.
struct ScriptPair {
    let key: String
    let value: ScriptNode
}

/// A script's YAML as the reader sees it: text, lists and mappings, each
/// with the line it starts on, for errors. Scalars are kept as written
/// (`7`, `true`, `null` are text), so that reading them is the reader's
/// choice, not YAML's type resolution.
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
    var column: Int?
    let message: String

    init(line: Int, column: Int? = nil, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    var description: String { "line \(line)\(column.map { ", column \($0)" } ?? ""): \(message)" }
}

/// Reads a script's YAML with Yams into `ScriptNode`s.
///
/// Scripts written for ModelStore's earlier YAML subset read the same:
/// mappings, lists, `[a, b]`, quoted text, comments, and literal blocks
/// (`|` and `|-` both end at their last non-blank line, without a final
/// newline, as the subset read them). The rest of YAML is read as YAML
/// (an alias repeats its anchor's node, whose line errors then name).
enum ScriptYAML {
    /// Parses a document into its top-level node (an empty mapping for an empty document).
    /// - Throws: `ScriptSyntaxError` naming the line.
    static func parse(_ text: String) throws -> ScriptNode {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw syntaxError(error, text: text)
        }
        guard let root else { return .map([], line: 1) }
        return try node(root, fallbackLine: 1)
    }

    private static func node(_ node: Node, fallbackLine: Int) throws -> ScriptNode {
        let line = node.mark?.line ?? fallbackLine
        switch node {
        case .scalar(let scalar):
            switch scalar.style {
            case .literal, .folded: return .scalar(withoutTrailingBlankLines(scalar.string), line: line)
            default: return .scalar(scalar.string, line: line)
            }
        case .sequence(let sequence):
            return .list(try sequence.map { try self.node($0, fallbackLine: line) }, line: line)
        case .mapping(let mapping):
            var pairs: [ScriptPair] = []
            for (key, value) in mapping {
                let keyLine = key.mark?.line ?? line
                guard case .scalar(let name) = key else {
                    throw ScriptSyntaxError(line: keyLine, message: "a key must be text")
                }
                var converted = try self.node(value, fallbackLine: keyLine)
                // An empty value belongs to its key's line (YAML places it
                // where the next token starts).
                if case .scalar("", _) = converted { converted = .scalar("", line: keyLine) }
                pairs.append(ScriptPair(key: name.string, value: converted))
            }
            return .map(pairs, line: line)
        case .alias:
            // Composing resolves every alias to its anchor's node; this case
            // is only for nodes built to be written.
            throw ScriptSyntaxError(line: line, message: "an unresolved alias")
        }
    }

    /// A block scalar's text up to its last line that is not blank.
    private static func withoutTrailingBlankLines(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        while let last = lines.last, last.allSatisfy({ $0 == " " || $0 == "\t" }) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }

    /// Yams' error as a line-numbered one, with a hint for what scripts
    /// written for the earlier subset may meet.
    private static func syntaxError(_ error: YamlError, text: String) -> ScriptSyntaxError {
        func located(_ context: YamlError.Context?, _ problem: String, _ mark: Mark) -> ScriptSyntaxError {
            var message = problem
            if let context { message += " (\(context.text) at line \(context.mark.line))" }
            if problem.contains("mapping values are not allowed") {
                message += "; quote a value that contains ': '"
            } else if problem.contains("tab") || problem.contains("cannot start any token") {
                message += "; indent with spaces, not tabs, and quote a value that starts with @, ` or %"
            } else if problem.contains("did not find expected") {
                message += "; quote the whole of a value that starts with a quote but goes on after it"
            }
            return ScriptSyntaxError(line: mark.line, column: mark.column, message: message)
        }
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            return located(context, problem, mark)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.joined(separator: ", ")
            return ScriptSyntaxError(
                line: context.mark.line, message: "the key \(keys) appears twice in one mapping (first on this line)")
        case .reader(let problem, let offset, _, _):
            let line = offset.map { text.prefix($0).count(where: { $0 == "\n" || $0 == "\r\n" }) + 1 } ?? 1
            return ScriptSyntaxError(line: line, message: problem)
        default:
            return ScriptSyntaxError(line: 1, message: "\(error)")
        }
    }
}
