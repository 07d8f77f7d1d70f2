import Foundation

// modelstore-benchmark: ModelStore against the raw SQLite C API and GRDB,
// workload by workload (issue 3), and with --postgres on PostgreSQL against
// raw postgres-nio (issue 24). See Tools/Benchmarks/README.md.

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    let message = "\(error)"
    FileHandle.standardError.write(Data(((message.isEmpty ? "" : message + "\n") + Options.usage + "\n").utf8))
    exit(message.isEmpty ? 0 : 64)
}

var scale = options.smoke ? Scale.smoke : Scale.full
if let rows = options.rows { scale = scale.withRows(rows) }
if let repetitions = options.lookupRepetitions { scale.lookupRepetitions = repetitions }
let rounds = options.rounds ?? (options.smoke ? 1 : 7)
let catalog = Catalog.all(scale)
let known = Set(catalog.map(\.number))
if let unknown = options.workloads.first(where: { !known.contains($0) }) {
    FileHandle.standardError.write(Data("no workload \(unknown); there are \(known.sorted())\n".utf8))
    exit(64)
}
let selected = catalog.filter { options.workloads.isEmpty || options.workloads.contains($0.number) }
let postgresServer: PostgresServer?
do {
    postgresServer = try options.postgresURL.map(PostgresServer.init(url:))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}
let selectedOnPostgres = postgresServer.map { server in
    PostgresWorkload.all(server).filter { options.workloads.isEmpty || options.workloads.contains($0.number) }
} ?? []

func log(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

let machine = Machine.current()
log("modelstore-benchmark: \(selected.count) workloads, N = \(scale.rows), \(rounds) timed rounds + 1 warm-up")
log("machine: \(machine.processors) × \(machine.cpuModel), \(machine.operatingSystem)")
if !Memory.canReset { log("note: /proc/self/clear_refs is not writable; peaks are the process's peak since start (VmHWM)") }

let runner = Runner(scale: scale, rounds: rounds, only: Set(options.contenders), log: log)
var results: [WorkloadResults] = []
for workload in selected {
    results.append(runner.run(workload))
}
let postgres = postgresServer.map { server in runOnPostgres(server, selectedOnPostgres, runner: runner) }

let failures = (results + (postgres?.workloads ?? [])).flatMap { $0.contenders.flatMap(\.failures) }
let run = RunResults(
    machine: machine, date: ISO8601DateFormatter().string(from: Date()), smoke: options.smoke, scale: scale,
    rounds: rounds, peakMemoryResetPerTimedPart: Memory.canReset, workloads: results, postgres: postgres,
    failures: failures)

print("")
var sizes: [String] = []
if selected.contains(where: { $0.number == 7 }) { sizes.append("workload 7: \(scale.parents) parents × \(scale.childrenPerParent) children") }
if selected.contains(where: { $0.number == 12 }) { sizes.append("workload 12: a to-many of \(scale.toManyMembers)") }
let familySizes = sizes.isEmpty ? "" : " (\(sizes.joined(separator: "; ")))"
print("N = \(scale.rows)\(familySizes), \(rounds) timed rounds (median), \(machine.processors) × \(machine.cpuModel), \(machine.operatingSystem)")
print("ratio: median of per-round ratios to raw SQLite C (workload 10: to the @Observable class)")
print("peak MiB: resident memory peak of the timed part, in a memory round of its own after the timed rounds\(Memory.canReset ? "" : " (process peak: clear_refs not writable)")")
print("faults: median minor page faults of the timed part (memory the heap took from the system)")
print("")
print(Report.table(results))
if let postgres { print("\n" + Report.postgresSection(postgres)) }

do {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(run).write(to: URL(filePath: options.jsonPath))
    print("\nresults written to \(options.jsonPath)")
} catch {
    log("cannot write \(options.jsonPath): \(error)")
    exit(1)
}

if !failures.isEmpty {
    log("\n\(failures.count) wrong result(s):")
    for failure in failures { log("  \(failure)") }
    exit(1)
}
