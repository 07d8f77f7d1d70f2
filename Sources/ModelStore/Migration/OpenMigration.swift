import Foundation

/// The migration that opening a container runs: store-format upgrades, then
/// the scripts folder's pending scripts, then the migration plan's stages
/// from the stored version on, then an inferred migration to the app's
/// schema for what remains. Nothing runs (and no snapshot is taken) when
/// nothing is pending.
struct OpenMigration {
    let connection: Connection
    let configuration: ModelConfiguration
    /// The scripts folder whose pending scripts run first; nil for none.
    let scripts: (any MigrationScripts)?
    /// The app's schema, resolved.
    let target: Schema
    let stored: Schema
    let storedFormat: Int
    let identifier: String
    let plan: (any SchemaMigrationPlan.Type)?

    var path: String { configuration.displayPath }

    /// - Returns: false when nothing was pending.
    /// - Throws: `ModelStoreError` naming the script, stage or step.
    func run() throws -> Bool {
        var transactions: [MigrationTransaction] = []
        var current = stored
        if storedFormat < StoreFormat.current {
            let before = stored.fingerprint
            transactions.append(
                MigrationTransaction(steps: StoreFormat.upgradeSteps(from: storedFormat, schema: stored)) { context in
                    try MigrationHistory.record(
                        .init(
                            name: "store format \(storedFormat) → \(StoreFormat.current)", kind: "format",
                            fingerprintBefore: before, fingerprintAfter: before, appliedAt: context.transactionStart,
                            duration: Date().timeIntervalSince(context.transactionStart), snapshotPath: context.snapshotPath),
                        context.connection)
                })
        }
        if let scripts {
            transactions += try scripts.transactions(
                applied: try MigrationHistory.read(connection), through: nil, from: &current,
                oneTransaction: configuration.migrationOptions.runsScriptsInOneTransaction,
                allowsDataLoss: configuration.migrationOptions.allowsDataLoss
            ).transactions
        }
        var steps: [MigrationStep] = []
        var entries: [MigrationHistory.Entry] = []
        if let plan {
            try planStages(plan, current: &current, steps: &steps, entries: &entries)
        }
        var final = target
        if target.differences(from: current).isEmpty {
            // Same tables: keep what the store records (a version the app
            // did not bump), unless a stage ran.
            final.version = steps.isEmpty ? current.version : target.version
        } else {
            let change = SchemaChange(
                old: current, new: target, allowsDataLoss: configuration.migrationOptions.allowsDataLoss)
            steps.append(.schemaChange(change, name: "inferred migration \(current.version) → \(target.version)"))
            entries.append(entry("inferred migration \(current.version) → \(target.version)", "inferred", current, target))
        }
        if !steps.isEmpty {
            let record = final
            transactions.append(
                MigrationTransaction(steps: steps) { context in
                    try StoreFormat.writeSchemaRecord(record, context.connection)
                    for var entry in entries {
                        entry.appliedAt = context.transactionStart
                        entry.duration = Date().timeIntervalSince(context.transactionStart)
                        entry.snapshotPath = context.snapshotPath
                        try MigrationHistory.record(entry, context.connection)
                    }
                })
        }
        if steps.isEmpty && !transactions.isEmpty {
            // Scripts or a format upgrade ran and left the app's tables: the
            // record becomes the app's (its version and Swift type names).
            transactions.append(
                MigrationTransaction(steps: []) { context in
                    try StoreFormat.writeSchemaRecord(target, context.connection)
                })
        }
        guard !transactions.isEmpty else { return false }
        let url: URL? = configuration.isStoredInMemoryOnly ? nil : configuration.url
        try MigrationRunner(connection: connection, path: path, options: configuration.migrationOptions, fileURL: url)
            .run(transactions)
        return true
    }

    private func entry(_ name: String, _ kind: String, _ before: Schema, _ after: Schema) -> MigrationHistory.Entry {
        MigrationHistory.Entry(
            name: name, kind: kind, fingerprintBefore: before.fingerprint, fingerprintAfter: after.fingerprint,
            appliedAt: Date(), duration: 0)
    }

    private func planStages(
        _ plan: any SchemaMigrationPlan.Type, current: inout Schema, steps: inout [MigrationStep],
        entries: inout [MigrationHistory.Entry]
    ) throws {
        let schemas = try plan.schemas.map { try Self.resolved($0.schema) }
        guard
            var index = schemas.firstIndex(where: { $0.version == current.version })
                ?? schemas.firstIndex(where: { $0.differences(from: current).isEmpty })
        else {
            if target.differences(from: current).isEmpty { return }
            throw ModelStoreError.noMigrationPath(
                path: path,
                reason: "the store holds schema version \(current.version), which is not in \(plan)'s schemas, and its "
                    + "tables match none of them")
        }
        let stages = plan.stages
        // Up to the app's version: an app still on an earlier version of the
        // plan stops there.
        while schemas[index].version != target.version,
            let stage = stages.first(where: { $0.fromVersion.versionIdentifier == schemas[index].version })
        {
            guard let next = schemas.firstIndex(where: { $0.version == stage.toVersion.versionIdentifier }), next != index else {
                throw ModelStoreError.noMigrationPath(
                    path: path, reason: "\(stage.name) leads to a version that is not in \(plan)'s schemas")
            }
            let to = schemas[next]
            let options = configuration.migrationOptions
            switch stage {
            case .lightweight:
                steps.append(
                    .schemaChange(SchemaChange(old: current, new: to, allowsDataLoss: options.allowsDataLoss), name: stage.name))
            case .custom(_, _, let willMigrate, let didMigrate):
                let from = schemas[index]
                if let willMigrate {
                    steps.append(stageCode("\(stage.name): willMigrate", schema: from, willMigrate))
                }
                steps.append(.schemaChange(SchemaChange(old: current, new: to, allowsDataLoss: true), name: stage.name))
                if let didMigrate {
                    steps.append(stageCode("\(stage.name): didMigrate", schema: to, didMigrate))
                }
            }
            entries.append(entry(stage.name, "stage", current, to))
            current = to
            index = next
        }
    }

    /// A custom stage's closure, with a context on `schema`'s models that
    /// shares the migration's connection (its saves are part of the
    /// migration's transaction). Unsaved changes are saved when it returns.
    private func stageCode(_ name: String, schema: Schema, _ body: @escaping (ModelContext) throws -> Void) -> MigrationStep {
        MigrationStep(name: name) { context in
            context.record(PlannedStep(name: name, sql: [], rebuiltTables: [], destroysData: false))
            let store = try Store(migrating: context.connection, configuration: configuration, schema: schema, identifier: identifier)
            let modelContext = ModelContext(ModelContainer(store: store))
            try body(modelContext)
            if modelContext.hasChanges { try modelContext.save() }
        }
    }

    static func resolved(_ schema: Schema) throws -> Schema {
        try schema.validate()
        return try schema.resolvingRelationships()
    }
}

/// The store-migration layer's answer to `OpenMigrating`: what the
/// container's initializers hand down to the store they open. With
/// `scripts`, the migration a configuration carries for its scripts folder
/// (`ModelConfiguration.openMigration`).
package struct OpenMigrator: OpenMigrating {
    /// The scripts folder whose pending scripts run first; nil for none.
    package let scripts: (any MigrationScripts)?

    package init(scripts: (any MigrationScripts)? = nil) {
        self.scripts = scripts
    }

    package func migrate(_ opening: StoreOpening) throws -> Bool {
        try OpenMigration(
            connection: opening.connection, configuration: opening.configuration, scripts: scripts,
            target: opening.target, stored: opening.stored, storedFormat: opening.storedFormat,
            identifier: opening.identifier, plan: opening.plan
        ).run()
    }

    package func recordBaseline(_ schema: Schema, in connection: Connection) throws {
        try scripts?.recordBaseline(schema, connection, through: nil)
    }
}
