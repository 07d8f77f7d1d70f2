import ArgumentParser
import ModelStore
import ModelStoreDynamic

/// `check STORE [--format table|json|jsonl]`.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the file and the store's invariants; one line per problem, exit code 1 when any.",
        discussion: """
            With --format json, one JSON array of problems; with jsonl, one problem per line. Each problem \
            has kind, entity, object, property, line, suggestions and message (null where they do not apply).

            A Codable attribute's stored JSON is checked against the structure its type decodes from, when \
            the schema record holds it; for one whose structure is not recorded, a note on stderr says so.

            Examples:
              store-tool check trips.store && echo healthy
              store-tool check trips.store --format jsonl
            """)

    @OptionGroup var options: StoreOptions
    // The text form is the default even when piped: scripts read its lines
    // and its exit code, as they did before the JSON forms existed.
    @Option(help: "table (one line per problem, the default), json or jsonl.") var format: OutputFormat = .table

    func validate() throws {
        guard format != .csv else { throw ValidationError("--format must be table, json or jsonl") }
    }

    func run() throws {
        try reporting {
            let store = try options.open()
            let problems = try store.check { step in
                if Terminal.errorIsTerminal { Terminal.note("checking \(step)…") }
            }
            let output = Output()
            switch format {
            case .json:
                output.line("[" + problems.map(ProblemText.json).joined(separator: ",") + "]")
            case .jsonl:
                for problem in problems { output.line(ProblemText.json(problem)) }
            case .table, .csv:
                for problem in problems { output.line(ProblemText.line(problem, labeled: true)) }
                if problems.isEmpty { output.line("ok: no problems found in \(store.path)") }
            }
            output.flush()
            // Not a problem (the values may well be fine), but what check
            // could not look at must not pass for checked.
            for (entity, attribute) in store.schema.attributesOfUnknownStructure {
                Terminal.note("note: \(entity).\(attribute.name): \(attribute.unknownStructureNote ?? "")")
            }
            if !problems.isEmpty { throw ExitCode(ExitStatus.problemsFound.rawValue) }
        }
    }
}
