import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `set STORE Entity:ID key=value …`.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set properties of an object (strictly typed, validated, one transaction); prints before and after.",
        discussion: """
            Values are parsed by the property's type: integers, numbers, true/false, ISO 8601 dates \
            (2025-05-14 or 2025-05-14T09:30:00Z), UUIDs, enum raw values, JSON for Codable values, base64 \
            for Data. key=nil sets nil; key:=JSON takes a JSON value (notes:="nil" is the text "nil"). \
            Relationships: rel=Entity:ID, rel=nil, rel+=Entity:ID, rel-=Entity:ID, rel=Stop:1,Stop:2.

            Example:
              store-tool set trips.store Trip:1 status=booked notes="Ryokan booked" stops+=Stop:4
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The object, Entity:ID.") var object: String
    @Argument(help: "Edits: key=value, key+=Entity:ID, key-=Entity:ID, key:=JSON.") var edits: [String]
    @Flag(help: "Show the effect and change nothing.") var dryRun = false
    @Option(help: "table or json.") var format: OutputFormat?

    func run() throws {
        try reporting {
            guard !edits.isEmpty else { throw ToolError.badInput("give at least one edit, such as name=Lisbon") }
            let store = try options.open(readOnly: false)
            let id = try store.objectID(object)
            let parsed = try edits.map { try DynamicEdit(parsing: $0) }
            let result = try store.explained { try store.update(id, parsed, dryRun: dryRun) }
            printResult(result, store: store, format: format, dryRun: dryRun)
        }
    }
}

/// `insert STORE ENTITY key=value …`.
struct Insert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Insert a new object; prints its Entity:ID.",
        discussion: """
            An attribute left out takes the default value the store's schema records (the model's \
            constant initial value: var nights = 3, var status: Status = .planned; see schema); every \
            other non-optional attribute and non-optional to-one must be given. An enum attribute takes \
            one of its cases' raw values.

            Example:
              store-tool insert trips.store Trip name=Porto destination=Portugal startDate=2026-04-01 tags='[]' status=planned
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Values: key=value, rel=Entity:ID, key:=JSON.") var edits: [String] = []
    @Flag(help: "Show the effect and change nothing.") var dryRun = false

    func run() throws {
        try reporting {
            let store = try options.open(readOnly: false)
            let parsed = try edits.map { try DynamicEdit(parsing: $0) }
            let result = try store.explained { try store.insert(entity, parsed, dryRun: dryRun) }
            print(dryRun ? "dry run: would insert \(result.id); nothing was written" : result.id.description)
        }
    }
}

/// `delete STORE Entity:ID… | ENTITY --where FILTER`.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete objects with the store's delete rules; prints the plan first and needs --yes to write.",
        discussion: """
            Examples:
              store-tool delete trips.store Trip:3
              store-tool delete trips.store Trip --where 'startDate < "2025-01-01"' --yes

            The plan is a summary: per entity the objects deleted and the rule that reaches them \
            (selected, cascade from Entity.relationship), per to-one the links cleared (nullify from \
            Entity.relationship, or no inverse), and the .deny rules that block; --verbose adds every \
            identifier.
            """)

    @OptionGroup var options: StoreOptions
    @Argument(help: "Objects (Entity:ID …), or an entity with --where.") var targets: [String]
    @Option(name: .customLong("where"), help: "Delete the objects of the entity this filter selects.") var filter: String?
    @Flag(help: "Delete (without it, only the plan is shown).") var yes = false
    @Flag(help: "Run the delete and roll it back.") var dryRun = false
    @Flag(help: "List every object deleted, link cleared and blocker, not only the counts per entity.") var verbose = false

    func run() throws {
        try reporting {
            guard !targets.isEmpty else { throw ToolError.badInput("name the objects (Trip:1) or an entity with --where") }
            let store = try options.open(readOnly: !(yes || dryRun))
            let ids: [ObjectID]
            // Phases on stderr for a delete by filter, which may reach many objects.
            let progress = ProgressLine()
            defer { progress.finish() }
            if targets.count == 1, ObjectID(targets[0]) == nil {
                guard let filter else {
                    throw ToolError.badInput("to delete objects of \(targets[0]), give --where FILTER (--where 'true' is not allowed; list them by id)")
                }
                progress.note("delete: finding the objects of \(targets[0])…")
                ids = try store.explained { try store.objectIDs(targets[0], filter: filter) }
            } else {
                guard filter == nil else { throw ToolError.badInput("--where needs an entity, not object identifiers") }
                ids = try targets.map { try store.objectID($0) }
            }
            if ids.count >= progress.step { progress.note("delete: planning the delete of \(ids.count) objects…") }
            let plan = try store.deletePlan(ids)
            progress.finish()
            printPlan(plan)
            if plan.isBlocked {
                let first = plan.blocked[0]
                throw ModelStoreError.deleteDenied(
                    object: first.object.description, relationship: first.relationship, blockers: first.blockers.map(\.description))
            }
            guard !ids.isEmpty else { return }
            if (dryRun || yes) && plan.deleted.count >= progress.step {
                progress.note("delete: deleting \(plan.deleted.count) objects…")
            }
            if dryRun {
                try store.delete(ids, dryRun: true)
                progress.finish()
                print("dry run: nothing was deleted")
            } else if yes {
                try store.delete(ids)
                progress.finish()
                print("deleted \(plan.deleted.count) object\(plan.deleted.count == 1 ? "" : "s")")
            } else {
                print("nothing was deleted; add --yes to delete")
            }
        }
    }

    /// Prints the plan per entity (`  Stop: 1200 (cascade from Trip.stops)`),
    /// then, with `--verbose`, every identifier: a delete by filter may
    /// reach a million objects, whose identifiers make one useless line.
    private func printPlan(_ plan: DynamicDeletePlan) {
        let output = Output()
        output.line("delete \(count(plan.deleted.count, "object"))" + (plan.deleted.isEmpty ? "" : ":"))
        for entity in plan.deletedByEntity {
            output.line("  \(entity.name): \(entity.count)" + (entity.reachedBy.isEmpty ? "" : " (\(entity.reachedBy.joined(separator: ", ")))"))
        }
        if !plan.nullified.isEmpty {
            output.line("nullify \(count(plan.nullified.count, "link")):")
            for link in plan.nullifiedByProperty {
                output.line("  \(link.name): \(link.count) (\(link.reachedBy.joined(separator: ", ")))")
            }
        }
        var blockers: [String: (holders: Int, blockers: Int)] = [:]
        for block in plan.blocked {
            let name = "\(block.object.entity).\(block.relationship)"
            let known = blockers[name] ?? (0, 0)
            blockers[name] = (known.holders + 1, known.blockers + block.blockers.count)
        }
        for name in blockers.keys.sorted() {
            guard let counts = blockers[name] else { continue }
            output.line(
                "blocked: \(name) (delete rule deny) of \(count(counts.holders, "object")) still holds "
                    + "\(count(counts.blockers, "object")) not deleted")
        }
        if verbose {
            if !plan.deleted.isEmpty { output.line("deleted: " + plan.deleted.map(\.description).joined(separator: ", ")) }
            if !plan.nullified.isEmpty {
                output.line("nullified: " + plan.nullified.map { "\($0.object).\($0.property)" }.joined(separator: ", "))
            }
            for block in plan.blocked {
                output.line("blocked: \(block.object).\(block.relationship) still holds " + block.blockers.map(\.description).joined(separator: ", "))
            }
        }
        output.flush()
    }

    private func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}

/// Prints an edit's before and after.
func printResult(_ result: DynamicWriteResult, store: DynamicStore, format: OutputFormat?, dryRun: Bool) {
    let output = Output()
    let fields = (try? store.entity(named: result.id.entity)).map(store.fieldNames) ?? []
    if OutputFormat.resolved(format) == .table {
        let width = fields.map(\.count).max() ?? 0
        output.line(result.id.description + (dryRun ? " (dry run: nothing was written)" : ""))
        for field in fields {
            let after = ValueText.format(result.after[field] ?? .null)
            let before = result.before.map { ValueText.format($0[field] ?? .null) }
            let name = field.padding(toLength: width, withPad: " ", startingAt: 0)
            if let before, before != after {
                output.line("  \(name)  \(before) -> \(after)")
            } else {
                output.line("  \(name)  \(after)")
            }
        }
    } else {
        let before = result.before.map { JSONText.object($0, fields: fields) } ?? "null"
        output.line("{\"dryRun\":\(dryRun),\"before\":\(before),\"after\":\(JSONText.object(result.after, fields: fields))}")
    }
    output.flush()
}
