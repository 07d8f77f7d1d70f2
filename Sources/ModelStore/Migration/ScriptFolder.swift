import Foundation

/// A migration script as read from its file.
struct LoadedScript {
    let info: MigrationScriptInfo
    let url: URL
    /// The operations of a YAML script; one `sql` operation for a `.sql` file.
    let operations: [ScriptOperation]
}

/// A folder of migration scripts: files named `VERSION_description.yaml`
/// (or `.yml`, or `.sql`), applied in the order of their numeric version.
struct ScriptFolder {
    let url: URL

    /// Every script of the folder, parsed, in order.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for a bad name,
    ///   a repeated version, or a script that cannot be read.
    func scripts() throws -> [LoadedScript] {
        let folder = url.path(percentEncoded: false)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ModelStoreError.invalidMigrationScript(script: folder, reason: "the scripts folder cannot be read")
        }
        var result: [(Int, LoadedScript)] = []
        for name in names.sorted() {
            let ext = (name as NSString).pathExtension.lowercased()
            guard ["yaml", "yml", "sql"].contains(ext) else { continue }
            let file = url.appending(path: name)
            let digits = name.prefix(while: \.isNumber)
            guard !digits.isEmpty, let number = Int(digits), name.dropFirst(digits.count).first == "_" else {
                throw ModelStoreError.invalidMigrationScript(
                    script: file.path(percentEncoded: false),
                    reason: "a script's name starts with its version and an underscore, as in 0003_split_full_name.yaml")
            }
            if let other = result.first(where: { $0.0 == number }) {
                throw ModelStoreError.invalidMigrationScript(
                    script: file.path(percentEncoded: false), reason: "version \(digits) is also used by \(other.1.info.fileName)")
            }
            guard let data = FileManager.default.contents(atPath: file.path(percentEncoded: false)),
                let text = String(data: data, encoding: .utf8)
            else {
                throw ModelStoreError.invalidMigrationScript(
                    script: file.path(percentEncoded: false), reason: "the file cannot be read as UTF-8 text")
            }
            let operations =
                ext == "sql"
                ? [ScriptOperation.sql(text)]
                : try ScriptReader.operations(yaml: text, file: file.path(percentEncoded: false))
            let info = MigrationScriptInfo(version: String(digits), fileName: name, checksum: SHA256.hex(data))
            result.append((number, LoadedScript(info: info, url: file, operations: operations)))
        }
        return result.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The scripts not yet applied, after checking that the applied ones
    /// are unchanged.
    /// - Throws: `ModelStoreError.scriptChecksumMismatch` naming the file;
    ///   `.invalidMigrationScript` for a new script older than an applied one.
    func pending(applied: [AppliedMigration]) throws -> [LoadedScript] {
        let scripts = try scripts()
        var appliedVersions: [Int: AppliedMigration] = [:]
        for entry in applied where entry.kind == "script" {
            if let version = entry.version.flatMap({ Int($0) }) { appliedVersions[version] = entry }
        }
        let newest = appliedVersions.keys.max() ?? Int.min
        var result: [LoadedScript] = []
        for script in scripts {
            let version = Int(script.info.version) ?? 0
            if let entry = appliedVersions[version] {
                if entry.checksum != script.info.checksum {
                    throw ModelStoreError.scriptChecksumMismatch(
                        script: script.url.path(percentEncoded: false), recorded: entry.checksum ?? "none",
                        found: script.info.checksum)
                }
                continue
            }
            if version < newest {
                throw ModelStoreError.invalidMigrationScript(
                    script: script.url.path(percentEncoded: false),
                    reason: "it is not applied, but a script with a higher version is; give it a version above \(newest)")
            }
            result.append(script)
        }
        return result
    }

    /// Records every script of the folder (up to `version`) as applied
    /// without running it, for a store that already has the schema they
    /// lead to.
    /// - Throws: `ModelStoreError.invalidMigrationScript`; `SQLiteError`.
    func recordBaseline(_ schema: Schema, _ connection: Connection, through version: Int? = nil) throws {
        let applied = Set(try MigrationHistory.read(connection).compactMap(\.version))
        for script in try scripts() where !applied.contains(script.info.version) {
            if let version, (Int(script.info.version) ?? 0) > version { continue }
            try MigrationHistory.record(
                .init(
                    version: script.info.version, name: script.info.fileName, kind: "script", checksum: script.info.checksum,
                    fingerprintBefore: schema.fingerprint, fingerprintAfter: schema.fingerprint, appliedAt: Date(),
                    duration: 0, snapshotPath: nil),
                connection)
        }
    }

    /// The transactions that apply `scripts` to a store holding `schema`
    /// (one per script, or one for all), each ending with the schema record
    /// and a history row per script. `schema` becomes the schema after them.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for an operation
    ///   that does not fit the schema.
    static func transactions(
        _ scripts: [LoadedScript], from schema: inout Schema, oneTransaction: Bool
    ) throws -> [MigrationTransaction] {
        var transactions: [MigrationTransaction] = []
        for script in scripts {
            let before = schema
            var planner = ScriptPlanner(current: schema, file: script.info.fileName)
            for operation in script.operations {
                do {
                    try planner.apply(operation)
                } catch let error as ModelStoreError {
                    throw ModelStoreError.invalidMigrationScript(
                        script: script.url.path(percentEncoded: false), reason: "\(operation.summary): \(error.description)")
                }
            }
            do {
                try planner.flush()
            } catch let error as ModelStoreError {
                throw ModelStoreError.invalidMigrationScript(script: script.url.path(percentEncoded: false), reason: error.description)
            }
            let after = planner.current
            schema = after
            let info = script.info
            let finish: (MigrationRunContext) throws -> Void = { context in
                try MigrationHistory.writeSchemaRecord(after, context.connection)
                try MigrationHistory.record(
                    .init(
                        version: info.version, name: info.fileName, kind: "script", checksum: info.checksum,
                        fingerprintBefore: before.fingerprint, fingerprintAfter: after.fingerprint,
                        appliedAt: context.transactionStart, duration: Date().timeIntervalSince(context.transactionStart),
                        snapshotPath: context.snapshotPath),
                    context.connection)
            }
            if oneTransaction, var last = transactions.popLast() {
                let previous = last.finish
                last.steps += planner.steps
                last.finish = { context in
                    try previous(context)
                    try finish(context)
                }
                transactions.append(last)
            } else {
                transactions.append(MigrationTransaction(steps: planner.steps, finish: finish))
            }
        }
        return transactions
    }
}
