import Foundation
import ModelStore

/// Turns a script's operations into migration steps. Model operations are
/// applied to a working copy of the schema and gathered into one schema
/// change (one rebuild per table). An SQL block first runs what was
/// gathered, so that it sees the tables as the script's earlier lines left
/// them; so does a type change or a backfill whose expression would
/// otherwise read the table as it was before those lines (`canJoinBatch`).
struct ScriptPlanner {
    /// The schema the store holds once the steps so far have run.
    private(set) var current: Schema
    let file: String
    /// The schema the store held before the script: what an operation
    /// that adds something finds there was not added by the script itself.
    private let stored: Schema
    /// Whether drops that lose values are allowed (`MigrationOptions.allowsDataLoss`).
    private let allowsDataLoss: Bool
    private(set) var steps: [MigrationStep] = []
    private var working: Schema
    private var renames = SchemaMapping.Renames()
    private var overrides: [String: [String: ColumnSource]] = [:]
    private var gathered: [String] = []

    init(current: Schema, file: String, allowsDataLoss: Bool) {
        self.current = current
        self.working = current
        self.stored = current
        self.file = file
        self.allowsDataLoss = allowsDataLoss
    }

    /// - Throws: `ModelStoreError.invalidSchema` (or `.invalidMigrationScript`)
    ///   naming the entity or attribute that does not fit.
    mutating func apply(_ operation: ScriptOperation) throws {
        switch operation {
        case .sql(let sql):
            try flush()
            let name = "\(file): sql"
            let scriptFile = file
            steps.append(
                MigrationStep(name: name) { context in
                    context.record(PlannedStep(name: name, sql: [sql], rebuiltTables: [], destroysData: false))
                    let before = try SchemaObjects(context.connection)
                    try context.connection.execute(sql)
                    if let changes = before.changes(to: try SchemaObjects(context.connection)) {
                        throw ModelStoreError.invalidMigrationScript(
                            script: scriptFile,
                            reason: "its SQL \(changes); SQL is for data only: change tables, columns and indexes with "
                                + "the script's operations (addEntity, addAttribute, addIndex, ...) so that the stored "
                                + "schema record follows")
                    }
                })
            return
        case .changeType(let entity, let attribute, let kind, let isOptional, let using):
            if !canJoinBatch(entity, attribute, expressionReadsRow: using != nil) { try flush() }
            try modify(entity, attribute) {
                $0.kind = kind
                $0.representation = .primitive
                if let isOptional { $0.isOptional = isOptional }
                $0.swiftType = kind.swiftTypeName + ($0.isOptional ? "?" : "")
            }
            overrides[entity, default: [:]][attribute] = .expression(using ?? quoteIdentifier(attribute))
            gathered.append(operation.summary)
            return
        case .makeRequired(let entity, let attribute, let backfill, let backfillSQL):
            if !canJoinBatch(entity, attribute, expressionReadsRow: backfillSQL != nil) { try flush() }
            var kind = ValueKind.string
            try modify(entity, attribute) {
                $0.isOptional = false
                if $0.swiftType.hasSuffix("?") { $0.swiftType.removeLast() }
                kind = $0.kind
            }
            if let backfill {
                do {
                    overrides[entity, default: [:]][attribute] = .coalesce(
                        attribute, try ScriptReader.columnValue(backfill, kind: kind, line: 0))
                } catch {
                    throw ModelStoreError.invalidSchema(reason: "backfill \(backfill) is not a \(kind.rawValue) value")
                }
            } else if let backfillSQL {
                overrides[entity, default: [:]][attribute] = .expression(
                    "coalesce(\(quoteIdentifier(attribute)), (\(backfillSQL)))")
            }
            gathered.append(operation.summary)
            return
        default:
            try applyModel(operation)
            gathered.append(operation.summary)
        }
    }

    private mutating func applyModel(_ operation: ScriptOperation) throws {
        switch operation {
        case .addEntity(let name, let attributes, _):
            guard working.entity(named: name) == nil else {
                throw existing(stored.entity(named: name) != nil, "entity \(name) (table \(quoteIdentifier(name)))")
            }
            working.entities.append(Schema.Entity(name: name, attributes: attributes))
        case .removeEntity(let name):
            let index = try entityIndex(name)
            working.entities.remove(at: index)
        case .renameEntity(let name, let newName):
            let index = try entityIndex(name)
            guard working.entity(named: newName) == nil else {
                throw existing(stored.entity(named: newName) != nil, "entity \(newName) (table \(quoteIdentifier(newName)))")
            }
            working.entities[index].name = newName
            if current.entity(named: name) != nil || renames.entities[name] != nil {
                renames.entities[newName] = renames.entities[name] ?? name
            }
            renames.entities[name] = nil
            renames.properties[newName] = renames.properties.removeValue(forKey: name)
            overrides[newName] = overrides.removeValue(forKey: name)
            for entityIndex in working.entities.indices {
                for relationshipIndex in working.entities[entityIndex].relationships.indices
                where working.entities[entityIndex].relationships[relationshipIndex].destination == name {
                    working.entities[entityIndex].relationships[relationshipIndex].destination = newName
                }
            }
        case .addAttribute(let entity, let attribute, let fill):
            let index = try entityIndex(entity)
            guard working.entities[index].attribute(named: attribute.name) == nil,
                working.entities[index].relationship(named: attribute.name) == nil
            else {
                let storedEntity = stored.entity(named: entity)
                let inStore =
                    storedEntity?.attribute(named: attribute.name) != nil
                    || storedEntity?.relationship(named: attribute.name) != nil
                let column = "column \(quoteIdentifier(attribute.name)) of table \(quoteIdentifier(entity))"
                throw existing(inStore, "\(entity).\(attribute.name) (\(column))")
            }
            working.entities[index].attributes.append(attribute)
            if let fill { overrides[entity, default: [:]][attribute.name] = .value(fill) }
        case .removeAttribute(let entity, let name):
            let index = try entityIndex(entity)
            guard let position = working.entities[index].attributes.firstIndex(where: { $0.name == name }) else {
                throw ModelStoreError.invalidSchema(reason: "\(entity) has no attribute \(name)")
            }
            working.entities[index].attributes.remove(at: position)
            working.entities[index].uniqueConstraints.removeAll { $0.contains(name) }
            working.entities[index].indexes.removeAll { $0.contains(name) }
            overrides[entity]?[name] = nil
        case .renameAttribute(let entity, let name, let newName):
            try modify(entity, name) { $0.name = newName }
            let index = try entityIndex(entity)
            let rename = { (list: [String]) in list.map { $0 == name ? newName : $0 } }
            working.entities[index].uniqueConstraints = working.entities[index].uniqueConstraints.map(rename)
            working.entities[index].indexes = working.entities[index].indexes.map(rename)
            var properties = renames.properties[entity] ?? [:]
            let origin = properties.removeValue(forKey: name) ?? name
            properties[newName] = origin
            renames.properties[entity] = properties
            if let source = overrides[entity]?.removeValue(forKey: name) { overrides[entity]?[newName] = source }
        case .makeOptional(let entity, let name):
            try modify(entity, name) {
                $0.isOptional = true
                if !$0.swiftType.hasSuffix("?") { $0.swiftType += "?" }
            }
        case .addUnique(let entity, let names), .removeUnique(let entity, let names):
            let adding: Bool
            if case .addUnique = operation { adding = true } else { adding = false }
            let index = try entityIndex(entity)
            try requireAttributes(names, of: index)
            if names.count == 1 {
                try modify(entity, names[0]) { attribute in
                    attribute.options.removeAll { $0 == .unique }
                    if adding { attribute.options.append(.unique) }
                }
            } else if adding {
                working.entities[index].uniqueConstraints.append(names)
            } else {
                working.entities[index].uniqueConstraints.removeAll { $0 == names }
            }
        case .addIndex(let entity, let names):
            let index = try entityIndex(entity)
            try requireAttributes(names, of: index)
            guard !working.entities[index].indexes.contains(names) else {
                throw existing(
                    stored.entity(named: entity)?.indexes.contains(names) == true,
                    "an index on \(entity)(\(names.joined(separator: ", ")))")
            }
            working.entities[index].indexes.append(names)
        case .removeIndex(let entity, let names):
            let index = try entityIndex(entity)
            guard working.entities[index].indexes.contains(names) else {
                throw ModelStoreError.invalidSchema(reason: "\(entity) has no index on \(names.joined(separator: ", "))")
            }
            working.entities[index].indexes.removeAll { $0 == names }
        case .sql, .changeType, .makeRequired:
            break
        }
    }

    /// Adds a step for what was gathered since the last one.
    /// - Throws: `ModelStoreError.invalidSchema` when the result is not a valid schema.
    mutating func flush() throws {
        guard !gathered.isEmpty else { return }
        try working.validate()
        let resolved = try working.resolvingRelationships()
        var change = SchemaChange(
            old: current, new: resolved, renames: renames, overrides: overrides, allowsDataLoss: allowsDataLoss)
        change.dataLossHint = Self.dataLossHint
        let name = "\(file): \(gathered.joined(separator: ", "))"
        let step = MigrationStep.schemaChange(change, name: name)
        // A refusal names the script and its operations, not only the
        // attribute: the schema change does not know it comes from a script.
        steps.append(
            MigrationStep(name: name) { context in
                do {
                    try step.run(context)
                } catch ModelStoreError.destructiveMigration(let path, let changes) {
                    throw ModelStoreError.destructiveMigration(path: path, changes: changes.map { "\(name): \($0)" })
                }
            })
        current = resolved
        working = resolved
        renames = SchemaMapping.Renames()
        overrides = [:]
        gathered = []
    }

    /// Whether a `changeType` or `makeRequired` of `entity.attribute` can
    /// share the rebuild of the operations gathered so far. Its values come
    /// from an expression that the rebuild evaluates over the table as it
    /// was before the batch, while the script means the table as the lines
    /// before it left it; the two agree only when the batch has not yet
    /// changed the attribute, nor (for an expression over the row, `using:`
    /// or `backfillSQL:`) anything else of the entity.
    private func canJoinBatch(_ entity: String, _ attribute: String, expressionReadsRow: Bool) -> Bool {
        guard !gathered.isEmpty else { return true }
        guard let before = current.entity(named: entity), let now = working.entity(named: entity) else { return false }
        if expressionReadsRow { return before == now }
        return before.attribute(named: attribute) != nil && before.attribute(named: attribute) == now.attribute(named: attribute)
            && overrides[entity]?[attribute] == nil
    }

    /// How a script's drop that would lose values is allowed.
    static let dataLossHint = "allow the loss with store-tool migrate --allow-data-loss (MigrationOptions.allowsDataLoss)"

    /// The error for an operation that adds `what`, which exists already:
    /// `ScriptChangeInStore` when the store had it before the script (the
    /// app's own code made the change, and the script wants a baseline),
    /// otherwise the script added it twice.
    private func existing(_ inStore: Bool, _ what: String) -> any Error {
        inStore
            ? ScriptChangeInStore(what: what)
            : ModelStoreError.invalidSchema(reason: "\(what) exists already: an earlier step of this script added it")
    }

    private func entityIndex(_ name: String) throws -> Int {
        guard let index = working.entities.firstIndex(where: { $0.name == name }) else {
            throw ModelStoreError.invalidSchema(reason: "there is no entity \(name)")
        }
        return index
    }

    private func requireAttributes(_ names: [String], of index: Int) throws {
        for name in names where working.entities[index].attribute(named: name) == nil {
            throw ModelStoreError.invalidSchema(reason: "\(working.entities[index].name) has no attribute \(name)")
        }
    }

    private mutating func modify(_ entity: String, _ name: String, _ change: (inout Schema.Attribute) -> Void) throws {
        let index = try entityIndex(entity)
        guard let position = working.entities[index].attributes.firstIndex(where: { $0.name == name }) else {
            throw ModelStoreError.invalidSchema(reason: "\(entity) has no attribute \(name)")
        }
        change(&working.entities[index].attributes[position])
    }
}

/// An operation of a script adds what the store has already, before the
/// script ran: the store's own (app) code made the script's change, so the
/// script is to be recorded as a baseline rather than run.
struct ScriptChangeInStore: Error {
    /// What exists, with its table or column: `Stop.note (column "note" of table "Stop")`.
    let what: String
}
