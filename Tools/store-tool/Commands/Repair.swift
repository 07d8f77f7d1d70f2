import ArgumentParser
import ModelStore
import ModelStoreDynamic

/// `repair STORE [--yes | --dry-run]`.
struct Repair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fix what check finds and can be fixed safely; lists every fix first and needs --yes to write.",
        discussion: """
            Fixes: an optional attribute whose stored value does not fit its type (invalid JSON, out of \
            range, not a case of its enum) becomes nil; an optional to-one that names a missing object \
            becomes nil; join rows that name a missing object are deleted. Every other problem is listed \
            with why it is left. Exit code 1 when a problem is left (or, without --yes, when there is \
            anything to fix), 0 when the store has no problem left.

            Examples:
              store-tool repair trips.store          # the fixes, nothing written
              store-tool repair trips.store --yes    # the fixes, written in one transaction
            """)

    @OptionGroup var options: StoreOptions
    @Flag(help: "Write the fixes (without it, they are only listed).") var yes = false
    @Flag(help: "Run the fixes and roll them back.") var dryRun = false

    func run() throws {
        try reporting {
            let store = try options.open(readOnly: !(yes || dryRun))
            let plan = try store.repairPlan { step in
                if Terminal.errorIsTerminal { Terminal.note("checking \(step)…") }
            }
            let output = Output()
            output.line(plan.repairs.isEmpty ? "no fixes" : "fix\(plan.repairs.count == 1 ? "" : "es") (\(plan.repairs.count)):")
            for repair in plan.repairs { output.line("  " + repair.summary) }
            if !plan.unrepaired.isEmpty {
                output.line("left as they are (\(plan.unrepaired.count)):")
                for left in plan.unrepaired {
                    output.line("  " + ProblemText.line(left.problem, labeled: true) + " — " + left.reason)
                }
            }
            output.flush()
            if !plan.repairs.isEmpty {
                if dryRun {
                    _ = try store.applyRepairs(plan, dryRun: true)
                    print("dry run: nothing was written")
                } else if yes {
                    let changed = try store.applyRepairs(plan)
                    print("repaired: \(changed) object\(changed == 1 ? "" : "s") or join row\(changed == 1 ? "" : "s") changed")
                } else {
                    print("nothing was written; add --yes to apply the fixes")
                }
            }
            if !plan.unrepaired.isEmpty || (!plan.repairs.isEmpty && !yes) {
                throw ExitCode(ExitStatus.problemsFound.rawValue)
            }
        }
    }
}
