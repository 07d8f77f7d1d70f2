import ArgumentParser
import ModelStore

/// `check STORE`.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the file and the store's invariants; one line per problem, exit code 1 when any.",
        discussion: "Example:\n  store-tool check trips.store && echo healthy")

    @OptionGroup var options: StoreOptions

    func run() throws {
        try reporting {
            let store = try options.open()
            let problems = try store.check { step in
                if Terminal.errorIsTerminal { Terminal.note("checking \(step)…") }
            }
            let output = Output()
            for problem in problems { output.line(problem) }
            if problems.isEmpty { output.line("ok: no problems found in \(store.path)") }
            output.flush()
            if !problems.isEmpty { throw ExitCode(ExitStatus.problemsFound.rawValue) }
        }
    }
}
