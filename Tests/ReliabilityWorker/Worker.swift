import Foundation
import ModelStore
import ReliabilitySupport

/// The child process of the reliability tests (Tests/ReliabilityTests): it
/// saves graphs or migrates a store while the test kills it, and runs the
/// fault-injection sweeps in a process of their own, so that the fault VFS
/// and the failing allocator never touch the test process.
///
/// Every line it prints is written at once (no buffering), so that a test
/// that kills it has read every line it printed before dying.
///
///     reliability-worker saves --store PATH --seed S --from K --count M
///     reliability-worker migrate --store PATH
///     reliability-worker save-faults --folder DIR --seed S --saves A-B
///     reliability-worker migration-faults --folder DIR --trips N
///     reliability-worker allocation-faults --folder DIR --seed S --save K [--stride N]
///     reliability-worker cards --store PATH [--author NAME] --edits "set KEY text=T|delete KEY|insert KEY T"
///     reliability-worker cards-tool --store PATH --edits "set KEY text=T|delete KEY"
///     reliability-worker postgres-cards --url URL --schema NAME [--author NAME] --edits "…"
///     reliability-worker prune-history --store PATH
@main
struct ReliabilityWorker {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            guard let command = arguments.first else { throw WorkerError("no command") }
            let options = try Options(Array(arguments.dropFirst()))
            switch command {
            case "saves": try saves(options)
            case "migrate": try migrate(options)
            case "save-faults":
                try FaultVFS.install()
                var sweep = SaveFaultSweep(folder: try options.url("folder"), script: SaveScript(seed: try options.number("seed")))
                try sweep.run(saves: try options.range("saves"))
                say(sweep.log.summary)
            case "migration-faults":
                try FaultVFS.install()
                var sweep = MigrationFaultSweep(folder: try options.url("folder"), trips: Int(try options.number("trips")))
                try sweep.run()
                say(sweep.log.summary)
            case "allocation-faults":
                // Before anything else in this process uses SQLite.
                try FailingAllocator.install()
                var sweep = AllocationFaultSweep(
                    folder: try options.url("folder"), script: SaveScript(seed: try options.number("seed")),
                    stride: Int(options.values["stride"].flatMap { Int($0) } ?? 1))
                try sweep.run(save: Int(try options.number("save")))
                say(sweep.log.summary)
            case "cards": try CardEdits.save(options)
            case "postgres-cards": try CardEdits.save(options, in: try PostgresCards.container(options))
            case "cards-tool": try CardEdits.saveAsTool(options)
            case "prune-history": try CardEdits.pruneHistory(options)
            default: throw WorkerError("unknown command \(command)")
            }
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    /// Saves `count` saves of the script after save `from`, which is what
    /// the store holds, printing "began N" before each and "saved N" after.
    static func saves(_ options: Options) throws {
        let script = SaveScript(seed: try options.number("seed"))
        let from = Int(try options.number("from"))
        let count = Int(try options.number("count"))
        let session = try SaveSession(try options.url("store"))
        var state = session.state
        for number in (from + 1)...(from + count) {
            let edits = script.edits(forSave: number, from: state)
            say("began \(number)")
            try session.apply(edits)
            try session.save()
            say("saved \(number)")
            state = state.applying(edits)
            session.forget(keeping: state)
        }
    }

    /// Opens the V1 trips store with V2 and its plan, which migrates it,
    /// printing "opening" before and "migrated" after.
    static func migrate(_ options: Options) throws {
        var configuration = ModelConfiguration(url: try options.url("store"))
        // Snapshots are another test's subject; the kills here would leave one per run.
        configuration.migrationOptions.takesSnapshot = false
        say("opening")
        _ = try ModelContainer(for: TripsV2.Trip.self, TripsV2.Stop.self, migrationPlan: TripsPlan.self, configurations: configuration)
        say("migrated")
    }
}

/// `--name value` pairs.
struct Options {
    var values: [String: String] = [:]

    init(_ arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            guard arguments[index].hasPrefix("--"), index + 1 < arguments.count else {
                throw WorkerError("expected --name value, found \(arguments[index])")
            }
            values[String(arguments[index].dropFirst(2))] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw WorkerError("--\(name) is missing") }
        return value
    }

    func url(_ name: String) throws -> URL { URL(filePath: try string(name)) }

    func number(_ name: String) throws -> UInt64 {
        guard let value = UInt64(try string(name)) else { throw WorkerError("--\(name) must be a number") }
        return value
    }

    /// "A-B": saves A through B.
    func range(_ name: String) throws -> ClosedRange<Int> {
        let parts = try string(name).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 1, parts[0] <= parts[1] else { throw WorkerError("--\(name) must be A-B with 1 ≤ A ≤ B") }
        return parts[0]...parts[1]
    }
}
