import ModelStore
import ModelStoreDynamic

/// How store-tool shows the problems `check` and `import` find: the human
/// line (a label per kind for `check`, `line N:` for a JSONL file, "did you
/// mean" for an unknown name) and the JSON object with the structured fields.
enum ProblemText {
    /// The word `check` puts before each kind of problem in its text output.
    static func label(_ kind: StoreProblem.Kind) -> String {
        switch kind {
        case .foreignSchemaObject: "foreign"
        case .integrity: "integrity"
        case .danglingReference, .orphanedJoinRow: "foreign key"
        case .schemaMismatch: "schema"
        case .inverseConflict: "inverse"
        case .countOutOfLimits: "count"
        case .badValue, .unparsableDefault: "value"
        case .missingRequiredValue, .requiredRelationshipLost: "required"
        case .duplicateUniqueValue: "unique"
        case .unreadableRecord, .malformedKey, .duplicateKey, .unknownEntity, .unknownProperty, .misplacedProperty,
            .noUniqueAttributes, .ambiguousMatch: "import"
        }
    }

    /// One problem as a line of text: `line N: ` when it is on a line of a
    /// file, `label: ` when `labeled`, the message, and "did you mean".
    static func line(_ problem: StoreProblem, labeled: Bool) -> String {
        (problem.line.map { "line \($0): " } ?? "") + (labeled ? label(problem.kind) + ": " : "") + problem.message
            + didYouMean(problem.suggestions)
    }

    /// One problem as one JSON object: `kind`, `entity`, `object`,
    /// `property`, `line` (null when they do not apply),
    /// `suggestions` and `message` (the text without label or line).
    static func json(_ problem: StoreProblem) -> String {
        let fields: [(String, String)] = [
            ("kind", JSONText.string(problem.kind.rawValue)),
            ("entity", problem.entity.map(JSONText.string) ?? "null"),
            ("object", problem.object.map { JSONText.string($0.description) } ?? "null"),
            ("property", problem.property.map(JSONText.string) ?? "null"),
            ("line", problem.line.map { String($0) } ?? "null"),
            ("suggestions", "[" + problem.suggestions.map(JSONText.string).joined(separator: ",") + "]"),
            ("message", JSONText.string(problem.message)),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `"; did you mean 'a' or 'b'?"`, or nothing without candidates.
    static func didYouMean(_ names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        return "; did you mean " + names.map { "'\($0)'" }.joined(separator: " or ") + "?"
    }
}
