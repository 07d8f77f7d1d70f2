import Foundation
import ModelStore
import ModelStoreDynamic
import Testing

/// A model with an attribute of every kind the value parser knows, for
/// fuzzing `name=value` edits.
@Model final class Specimen {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var string: String = ""
    var date: Date = Date(timeIntervalSince1970: 0)
    var uuid: UUID = UUID()
    var data: Data = Data()
    var url: URL = URL(filePath: "/")
    var decimal: Decimal = 0
    var status: TripStatus = .planned
    var budget: Budget = Budget(amount: 0, currency: "EUR")
    var list: [String] = []
    var optionalDate: Date?
    var optionalBudget: Budget?
    var partner: Specimen?

    init() {}
}

/// Random input for every language store-tool reads, in volume in process
/// and on a sample through the binary: never a crash, never a hang, never
/// an undocumented exit code or a SQLite error for bad input, and a command
/// that fails or only reads leaves the store's bytes as they were. See
/// `Fuzz` for the seed and MODELSTORE_STRESS.
@Suite("Fuzz: store-tool's filter, value, identifier, option and import input")
struct FuzzTests {
    /// The errors bad input may give in process: the dynamic layer's, or the
    /// compiler's for a name or form it does not know. A SQLiteError (or
    /// anything else) means bad input reached SQLite unchecked.
    static func isInputError(_ error: any Error) -> Bool {
        switch error {
        case is DynamicStoreError: return true
        case ModelStoreError.unknownProperty, ModelStoreError.unsupportedQuery, ModelStoreError.entityNotInSchema: return true
        default: return false
        }
    }

    @Test("filters: parsed, resolved and compiled in process; those that validate run")
    func filters() throws {
        let fixture = try Fixture()
        var random = Fuzz.random("filters")
        let inputs = (0..<Fuzz.count(4_000, stress: 100_000)).map { _ in random.chance(0.55) ? random.filter() : random.garbageFilter() }
        let path = fixture.path
        let problems = Fuzz.watched(inputs, describe: { String($0.prefix(300)) }) {
            let store = try DynamicStore(path: path)
            var index = 0
            return { filter in
                index += 1
                do {
                    try store.validateFilter(filter, entity: "Trip")
                } catch {
                    return Self.isInputError(error) ? nil : "validateFilter threw \(type(of: error)) \(error)"
                }
                // A filter that validates runs (one in four, for time), whatever SQLite thinks of it.
                guard index % 4 == 0 else { return nil }
                do {
                    _ = try store.count("Trip", filter: filter)
                    return nil
                } catch {
                    return "a filter that validates failed to run: \(error)"
                }
            }
        }
        #expect(problems.isEmpty, "seed \(Fuzz.seed): \(problems.prefix(5))")
    }

    @Test("values: every attribute kind parsed and written by a dry-run set; Entity:ID names looked up")
    func valuesAndIdentifiers() throws {
        let fixture = try Fixture()
        let path = fixture.file("specimens.store")
        let container = try ModelContainer(for: Specimen.self, configurations: ModelConfiguration(url: URL(filePath: path)))
        let context = ModelContext(container)
        context.insert(Specimen())
        context.insert(Specimen())
        try context.save()
        let before = try StoreFiles(path: path)
        let kinds = [
            "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "double", "float",
            "string", "date", "uuid", "data", "url", "decimal", "status", "budget", "list", "optionalDate", "optionalBudget",
        ]
        var random = Fuzz.random("values")
        let inputs = (0..<Fuzz.count(3_000, stress: 100_000)).map { _ -> String in
            let property = random.chance(0.95) ? random.pick(kinds + ["partner"]) : random.text(6)
            let operation = random.pick(["=", "=", "=", ":=", "+=", "-="])
            let value = property == "partner" ? random.identifier(entities: ["Specimen", "Trip"]) : random.value(for: property)
            return random.chance(0.03) ? random.text(20) : property + operation + value
        }
        let problems = Fuzz.watched(inputs, describe: { String($0.prefix(200)) }) {
            let store = try DynamicStore(path: path, readOnly: false)
            let attributes = store.schema.entity(named: "Specimen")?.attributes ?? []
            let kindsByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0.kind) })
            return { text in
                if let equals = text.firstIndex(of: "="), let kind = kindsByName[String(text[..<equals])] {
                    // The parser alone, for the attribute's kind: a value or ValueCodingFailure (typed), never a crash.
                    _ = try? ValueText.parse(String(text[text.index(after: equals)...]), as: kind)
                }
                do {
                    let edit = try DynamicEdit(parsing: text)
                    _ = try store.update(ObjectID(entity: "Specimen", key: 1), [edit], dryRun: true)
                } catch {
                    return Self.isInputError(error) ? nil : "set threw \(type(of: error)) \(error)"
                }
                return nil
            }
        }
        #expect(problems.isEmpty, "seed \(Fuzz.seed): \(problems.prefix(5))")
        #expect(try StoreFiles(path: path) == before, "a dry run wrote to the store")

        let identifiers = (0..<Fuzz.count(2_000, stress: 100_000)).map { _ in random.identifier(entities: ["Trip", "Stop", "Traveler"]) }
        let tripsPath = fixture.path
        let lookups = Fuzz.watched(identifiers, describe: { $0 }) {
            let store = try DynamicStore(path: tripsPath)
            return { text in
                guard let id = ObjectID(text) else { return nil }
                if id.key <= 0 || id.entity.isEmpty { return "ObjectID accepted \(id)" }
                do {
                    _ = try store.entity(named: id.entity)
                    _ = try store.object(id)
                } catch {
                    return Self.isInputError(error) ? nil : "lookup threw \(type(of: error)) \(error)"
                }
                return nil
            }
        }
        #expect(lookups.isEmpty, "seed \(Fuzz.seed): \(lookups.prefix(5))")
    }

    /// The exit codes bad input may give: success, check's problems, bad
    /// input, not found, refused by the store's rules, cannot write the
    /// output file, usage. Never 4, 5, 6 (the store is healthy, current and
    /// free) or 8, and never a signal.
    static let allowedStatuses: Set<Int32> = [0, 1, 2, 3, 7, 9, 64]

    /// One random command line for the fixture's store.
    static func commandLine(_ random: inout FuzzRandom, store: String, folder: String) -> (arguments: [String], writes: Bool) {
        // Trip mostly: the filters are written for it.
        let entity = random.chance(0.7) ? "Trip" : random.chance(0.8) ? random.pick(["Stop", "Traveler"]) : random.text(6)
        let filter = random.chance(0.6) ? random.filter() : random.garbageFilter()
        let object = random.identifier(entities: ["Trip", "Stop", "Traveler"])
        let tripEdit = random.pick(["name", "destination", "startDate", "budget", "tags", "status", "notes", "nights", "stops", "travelers"])
            + random.pick(["=", ":=", "+=", "-="]) + random.value(for: random.pick(["string", "int", "date", "budget", "status", "list"]))
        let wait = random.chance(0.3) ? ["--wait=" + random.number()] : []
        switch random.int(0...11) {
        case 0: return (["list", store, entity, "--where", filter] + wait, false)
        case 1: return (["count", store, entity, "--where", filter], false)
        case 2:
            return (["list", store, entity, "--limit=" + random.number(), "--offset=" + random.number(), "--sort", random.pick(["name", "id:desc", "nope", "name:up", "trip.name", "stops", ""])], false)
        case 3: return (["show", store, object, "--depth=" + random.number(), "--format", random.pick(["json", "table"])], false)
        case 4: return (["set", store, object, tripEdit, "--dry-run"] + wait, false)
        case 5: return (["set", store, object, tripEdit], true)
        case 6: return (["insert", store, random.pick(["Stop", "Trip"]), "title=" + random.text(8), tripEdit] + (random.chance(0.5) ? ["--dry-run"] : []), true)
        case 7: return (["delete", store, object] + (random.chance(0.2) ? ["--dry-run"] : []), false)
        case 8: return (["delete", store, entity, "--where", filter, "--dry-run"], false)
        case 9:
            let sql = random.chance(0.5)
                ? "SELECT " + random.pick(["name", "count(*)", "json_extract(budget, '$.amount')", "nights * 2", "*"]) + " FROM Trip WHERE nights > \(random.int(-5...5))"
                : random.pick(["SELECT ", "SELEC ", "PRAGMA ", "WITH x AS (", "VALUES(", "DELETE FROM Trip; SELECT "]) + random.text(30)
            return (["sql", store, sql, "--format", random.pick(["json", "jsonl", "csv", "table"])], false)
        case 10: return (["export", store, entity, "--format", random.pick(["jsonl", "csv", "json"]), "--output", folder + "/" + random.pick(["out.json", "trips.store", "sub/x", ""])], false)
        default: return (["info", store] + wait, false)
        }
    }

    @Test("the binary: random command lines exit with documented codes, never a signal, and leave the store alone when they fail")
    func binary() throws {
        let fixture = try Fixture()
        var random = Fuzz.random("binary")
        var before = try StoreFiles(fixture)
        var problems: [String] = []
        for _ in 0..<Fuzz.count(150, stress: 2_000) {
            let (arguments, writes) = Self.commandLine(&random, store: fixture.path, folder: fixture.folder.path(percentEncoded: false))
            let result = try Fixture.runTimed(arguments, in: fixture.folder)
            let shown = arguments.map { String($0.prefix(120)) }
            if result.timedOut { problems.append("timed out: \(shown)") }
            if let signal = result.signal { problems.append("signal \(signal): \(shown)") }
            if !Self.allowedStatuses.contains(result.run.status) { problems.append("exit \(result.run.status): \(shown): \(result.run.stderr.prefix(300))") }
            if result.run.status != 0 && result.run.status != 1 && !result.run.stderr.contains("rror") {
                problems.append("exit \(result.run.status) without an error message: \(shown)")
            }
            let after = try StoreFiles(fixture)
            if after != before && (!writes || result.run.status != 0) {
                problems.append("the store changed (exit \(result.run.status)): \(shown)")
            }
            before = after
        }
        #expect(problems.isEmpty, "seed \(Fuzz.seed): \(problems.prefix(5))")
        #expect(try fixture.run("check", fixture.path).status == 0)
    }

    @Test("import: mutated JSONL records are imported whole or refused with exit 2 and a message, writing nothing")
    func importLines() throws {
        let fixture = try Fixture()
        var lines: [String] = []
        for entity in ["Trip", "Stop", "Traveler"] {
            lines += try fixture.run("export", fixture.path, entity, "--format", "jsonl").lines
        }
        var random = Fuzz.random("import")
        var before = try StoreFiles(fixture)
        var problems: [String] = []
        let file = fixture.file("records.jsonl")
        for _ in 0..<Fuzz.count(40, stress: 400) {
            var records = (0..<random.int(1...4)).map { _ in random.pick(lines) }
            for _ in 0..<random.int(1...2) {
                let index = random.int(0...records.count - 1)
                records[index] = random.mutated(records[index])
            }
            try Data(records.joined(separator: "\n").utf8).write(to: URL(filePath: file))
            let arguments = ["import", fixture.path, file] + (random.chance(0.3) ? ["--dry-run"] : [])
            let result = try Fixture.runTimed(arguments, in: fixture.folder)
            let shown = records.map { String($0.prefix(200)) }
            if result.timedOut || result.signal != nil { problems.append("signal or timeout: \(shown)") }
            let after = try StoreFiles(fixture)
            switch result.run.status {
            case 0: break
            case 2:
                let lines = result.run.stderr.split(separator: "\n")
                // Errors, and the notes that go with them (--upsert's).
                if lines.isEmpty || !lines.allSatisfy({ $0.hasPrefix("store-tool: error: ") || $0.hasPrefix("store-tool: note: ") }) {
                    problems.append("exit 2 without one error per line: \(result.run.stderr.prefix(300))")
                }
                if after != before { problems.append("a refused import wrote to the store: \(shown)") }
            default:
                problems.append("exit \(result.run.status): \(result.run.stderr.prefix(300)): \(shown)")
            }
            before = after
        }
        #expect(problems.isEmpty, "seed \(Fuzz.seed): \(problems.prefix(5))")
        #expect(try fixture.run("check", fixture.path).status == 0)
    }
}
