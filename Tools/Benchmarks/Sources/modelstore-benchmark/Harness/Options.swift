/// The command line: `modelstore-benchmark [--smoke] [--rounds K] [--n N]
/// [--lookup-repetitions R] [--workload W]... [--json PATH] [--postgres URL]`.
struct Options {
    var smoke = false
    var rounds: Int?
    var rows: Int?
    /// Workload 4's repetitions of its lookups, when not the scale's.
    var lookupRepetitions: Int?
    var workloads: [Int] = []
    /// Contenders to run (for profiling one of them); all when empty.
    var contenders: [ContenderName] = []
    var jsonPath = "benchmark-results.json"
    /// The PostgreSQL server that workloads 1-4 and 7 also run against.
    var postgresURL: String?

    static let usage = """
        usage: modelstore-benchmark [--smoke] [--rounds K] [--n N] [--lookup-repetitions R] [--workload W]...
                                    [--json PATH] [--postgres URL]
          --smoke        tiny sizes and 1 timed round, to prove every workload runs and is right
          --rounds K     timed rounds after the warm-up round (default 7; 1 with --smoke)
          --n N          objects for workloads 1-5 (default 100000; 200 with --smoke); workload 7 scales its
                         parents with it (N/10 at the default sizes), workloads 6 and 8 their rows (10 N),
                         workload 12 its to-many (N/10), workload 15 its changes (N/100)
          --lookup-repetitions R
                         how many times workload 4 looks its 1,000 objects up (default 100; 3 with --smoke)
          --workload W   run only workload W (repeatable; 6 and 8 have two variants each, both run)
          --contender C  run only contender C (repeatable; for profiling): modelstore, modelstore-faulting,
                         raw, raw-state, grdb-statement, grdb-record, observable, plain, modelstore-postgres,
                         postgres-nio
          --json PATH    where to write the results (default benchmark-results.json)
          --postgres URL also run workloads 1-4 and 7 on this PostgreSQL server (postgres://USER@HOST:PORT/DB),
                         ModelStore against raw postgres-nio, each round in a schema of its own
        Exits with status 1 when any contender's work was wrong.
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return value
        }
        func positive(_ flag: String) throws -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), number > 0 else { throw UsageError(description: "\(flag) needs a positive number, not \(text)") }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--smoke": options.smoke = true
            case "--rounds": options.rounds = try positive(argument)
            case "--n": options.rows = try positive(argument)
            case "--lookup-repetitions": options.lookupRepetitions = try positive(argument)
            case "--workload": options.workloads.append(try positive(argument))
            case "--json": options.jsonPath = try value(for: argument)
            case "--postgres": options.postgresURL = try value(for: argument)
            case "--contender":
                let name = try value(for: argument)
                guard let contender = ContenderName(option: name) else {
                    throw UsageError(description: "unknown contender \(name)")
                }
                options.contenders.append(contender)
            case "--help", "-h": throw UsageError(description: "")
            default: throw UsageError(description: "unknown argument \(argument)")
            }
        }
        return options
    }
}

extension ContenderName {
    /// The contender a `--contender` value names.
    init?(option: String) {
        let names: [String: ContenderName] = [
            "modelstore": .modelStore, "modelstore-faulting": .modelStoreFaulting, "raw": .rawC,
            "raw-state": .rawCWithState,
            "grdb-statement": .grdbStatement, "grdb-record": .grdbRecord, "observable": .observable, "plain": .plainClass,
            "modelstore-postgres": .modelStorePostgres, "postgres-nio": .rawPostgres,
        ]
        guard let contender = names[option.lowercased()] else { return nil }
        self = contender
    }
}
