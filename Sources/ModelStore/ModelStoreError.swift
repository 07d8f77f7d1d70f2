/// An error from ModelStore that names what was wrong: the file, the entity,
/// the property and the row, as far as they are known.
///
/// Bound values are never part of a description: they may be private data.
public enum ModelStoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file exists but is not a SQLite database.
    case notADatabase(path: String)
    /// The file is a SQLite database but was not written by ModelStore.
    case notAModelStore(path: String, reason: String)
    /// The store was written by a newer ModelStore whose format this one does not know.
    case newerFormat(path: String, found: Int, supported: Int)
    /// The file or its folder cannot be opened, created or written.
    case cannotOpen(path: String, reason: String)
    /// The file holds schema objects ModelStore did not make (a trigger, a
    /// view, a CHECK constraint, an unknown table or column, …). SQLite would
    /// run them on ModelStore's own statements, so the store is not opened
    /// for writing. store-tool opens such a file read-only and lists them.
    case foreignSchemaObjects(path: String, objects: [ForeignSchemaObject])
    /// The store's recorded schema differs from the app's and no migration applies.
    case schemaMismatch(path: String, differences: [SchemaDifference])
    /// The schema given by the app cannot be stored (a reserved or duplicate name).
    case invalidSchema(reason: String)
    /// A container's configurations cannot be set up as given: the
    /// configuration named, and why (two with one name, a schema with an
    /// entity the container lacks, more configurations than SQLite attaches).
    case invalidConfiguration(name: String, reason: String)
    /// A stored value does not fit its property (a hand-edited row), or a
    /// property's value cannot be stored.
    case invalidValue(entity: String, property: String, row: Int64?, reason: String, path: String?)
    /// `save()` was called on a context whose configuration has `allowsSave: false`.
    case readOnlyStore(path: String)
    /// A row that the context expected is gone (deleted by another context or process).
    case rowNotFound(entity: String, row: Int64, path: String)
    /// SQLite refused a statement of a save; nothing of the save was written.
    case saveFailed(entity: String, row: Int64?, underlying: SQLiteError)
    /// A model type is used with a container whose schema does not include it.
    case entityNotInSchema(entity: String)
    /// A delete was refused by a `.deny` rule: `relationship` of the object
    /// `object` still holds `blockers`. Nothing was written.
    case deleteDenied(object: String, relationship: String, blockers: [String])
    /// At the end of a save, an object still referred to a deleted one (a
    /// `.noAction` rule, or a row deleted by another context meanwhile).
    /// Nothing was written.
    case danglingReference(path: String)
    /// A to-many relationship holds fewer or more objects than its
    /// `minimumModelCount`/`maximumModelCount` allow. Nothing was written.
    case relationshipCount(object: String, relationship: String, count: Int, minimum: Int?, maximum: Int?)
    /// A predicate, sort descriptor or filter uses a form that ModelStore
    /// cannot compile to SQL; `expression` names it. Nothing is evaluated in
    /// memory instead: the README lists the supported forms.
    case unsupportedQuery(entity: String, expression: String, reason: String)
    /// A query or edit names a property the entity does not have.
    case unknownProperty(entity: String, property: String)
    /// `enumerate(_:batchSize:allowEscapingMutations:block:)` without
    /// `allowEscapingMutations`: the block left unsaved changes on `objects`
    /// of a finished batch. Save inside the block, or allow escaping mutations.
    case escapingMutations(entity: String, objects: [String])
    /// A migration step failed; the store is exactly as it was before the
    /// migration began. `step` names the stage, script or table operation.
    case migrationFailed(path: String, step: String, reason: String)
    /// An inferred migration, or a script's removal of an attribute or
    /// entity that holds values, would lose data. Each change names itself
    /// (and the script) and says how to allow it (a custom stage, a script,
    /// or `allowsDataLoss`, which a script's own drops need).
    case destructiveMigration(path: String, changes: [String])
    /// A unique constraint cannot be added: these rows (by key) share values.
    case duplicateValues(entity: String, attributes: [String], rows: [[Int64]], path: String)
    /// A migration script that was applied changed since (its SHA-256 differs).
    case scriptChecksumMismatch(script: String, recorded: String, found: String)
    /// A migration script cannot be read or holds an invalid operation.
    case invalidMigrationScript(script: String, reason: String)
    /// No sequence of migration steps leads from the stored schema to the app's.
    case noMigrationPath(path: String, reason: String)
    /// A path given as a migration snapshot of the store is not one (see
    /// `StoreMigrator.snapshots()`).
    case notASnapshot(path: String, store: String)
    /// A save found objects whose rows another context or process changed
    /// or deleted since this context read them (under `MergePolicy.error`,
    /// or a custom policy that chose `.error`). Nothing was written, and the
    /// context keeps its pending changes; `conflicts` lists every such
    /// object with its properties' stored and unsaved values.
    case saveConflicts(path: String, conflicts: [SaveConflict])
    /// A history fetch asked for the transactions after `token`, and the
    /// store cannot give all of them: some were pruned, or the token is not
    /// one this store issued (`reason` says which). Thrown as the underlying
    /// error of `SwiftDataError.historyTokenExpired`.
    case historyTokenExpired(path: String, token: Int64, reason: String)

    public var description: String {
        switch self {
        case .notADatabase(let path):
            return "\(path) is not a SQLite database"
        case .notAModelStore(let path, let reason):
            return "\(path) is not a ModelStore store: \(reason)"
        case .newerFormat(let path, let found, let supported):
            return "\(path) has store format \(found), newer than the \(supported) this version of ModelStore can open"
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .foreignSchemaObjects(let path, let objects):
            let list = objects.map { "  - \($0)" }.joined(separator: "\n")
            return "\(path) holds schema objects that ModelStore did not make, which SQLite would run on its writes; "
                + "the store was not opened (remove them, or inspect the store read-only with store-tool):\n\(list)"
        case .schemaMismatch(let path, let differences):
            let list = differences.map { "  - \($0)" }.joined(separator: "\n")
            return "the schema recorded in \(path) differs from the app's, and no migration plan was given:\n\(list)"
        case .invalidSchema(let reason):
            return "invalid schema: \(reason)"
        case .invalidConfiguration(let name, let reason):
            return "configuration \(name): \(reason)"
        case .invalidValue(let entity, let property, let row, let reason, let path):
            var text = "invalid value for \(entity).\(property)"
            if let row { text += " in row \(row)" }
            if let path { text += " of \(path)" }
            return text + ": \(reason)"
        case .readOnlyStore(let path):
            return "cannot save: the store \(path) was opened read-only (allowsSave: false)"
        case .rowNotFound(let entity, let row, let path):
            return "\(entity) row \(row) no longer exists in \(path) (deleted by another context or process)"
        case .saveFailed(let entity, let row, let underlying):
            let rowText = row.map { " row \($0)" } ?? " (new object)"
            return "save failed at \(entity)\(rowText); nothing was written: \(underlying)"
        case .entityNotInSchema(let entity):
            return "\(entity) is not in the container's schema; list it in ModelContainer(for:)"
        case .deleteDenied(let object, let relationship, let blockers):
            let shown = blockers.prefix(10).joined(separator: ", ") + (blockers.count > 10 ? ", …" : "")
            return "cannot delete \(object): its relationship \(relationship) has delete rule .deny and still holds "
                + "\(blockers.count) object\(blockers.count == 1 ? "" : "s") (\(shown)); nothing was written"
        case .danglingReference(let path):
            return "save failed: an object in \(path) would still refer to a deleted object (a .noAction delete "
                + "rule, or an object deleted elsewhere); nothing was written"
        case .relationshipCount(let object, let relationship, let count, let minimum, let maximum):
            let limits = [minimum.map { "at least \($0)" }, maximum.map { "at most \($0)" }].compactMap { $0 }
            return "\(object).\(relationship) holds \(count) object\(count == 1 ? "" : "s"), but must hold "
                + limits.joined(separator: " and ") + "; nothing was written"
        case .unsupportedQuery(let entity, let expression, let reason):
            return "cannot compile a query on \(entity) to SQL: \(expression): \(reason)"
        case .unknownProperty(let entity, let property):
            return "\(entity) has no property named '\(property)'"
        case .escapingMutations(let entity, let objects):
            return "enumerating \(entity) left unsaved changes on \(objects.joined(separator: ", ")) at the end of a batch; "
                + "save in the block or pass allowEscapingMutations: true"
        case .migrationFailed(let path, let step, let reason):
            return "migration of \(path) failed at step \(step); the store is as it was before the migration: \(reason)"
        case .destructiveMigration(let path, let changes):
            let list = changes.map { "  - \($0)" }.joined(separator: "\n")
            return "the migration of \(path) would lose data, so it was not done; nothing was changed:\n\(list)"
        case .duplicateValues(let entity, let attributes, let rows, let path):
            let groups = rows.prefix(5).map { "rows " + $0.map(String.init).joined(separator: ", ") }
            return "cannot make \(entity).(\(attributes.joined(separator: ", "))) unique in \(path): "
                + groups.joined(separator: "; ") + (rows.count > 5 ? "; …" : "") + " share the same values"
        case .scriptChecksumMismatch(let script, let recorded, let found):
            return "migration script \(script) was changed after it was applied (SHA-256 \(found), recorded \(recorded)); "
                + "restore it and put the change in a new script"
        case .invalidMigrationScript(let script, let reason):
            return "migration script \(script): \(reason)"
        case .noMigrationPath(let path, let reason):
            return "cannot migrate \(path): \(reason)"
        case .notASnapshot(let path, let store):
            return "\(path) is not a migration snapshot of \(store) (store-tool snapshots \(store) lists them)"
        case .saveConflicts(let path, let conflicts):
            let shown = conflicts.prefix(10).map(\.description).joined(separator: "; ") + (conflicts.count > 10 ? "; …" : "")
            return "save conflicts in \(path): \(shown); nothing was written and the changes are still pending "
                + "(refetch or rollback and try again, or set the context's mergePolicy)"
        case .historyTokenExpired(let path, let token, let reason):
            return "history token \(token) of \(path) has expired: \(reason); refetch the objects instead of catching up"
        }
    }
}

extension ModelStoreError: LocalizedError {
    /// The same text as `description`, so that `localizedDescription` names
    /// the file, entity, property and row too.
    public var errorDescription: String? { description }
}
