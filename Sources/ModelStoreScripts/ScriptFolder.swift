import Foundation
import ModelStore

/// A migration script as found in its folder: its name, version, checksum
/// and text; its operations are read only when it is to run or be recorded,
/// so that an applied script is checked by its checksum alone.
struct FoundScript {
    let info: MigrationScriptInfo
    let url: URL
    let text: String

    var path: String { url.path(percentEncoded: false) }

    /// The operations of a YAML script; one `sql` operation for a `.sql` file.
    /// - Throws: `ModelStoreError.invalidMigrationScript` naming the file and line.
    func operations() throws -> [ScriptOperation] {
        (url.pathExtension.lowercased() == "sql")
            ? [ScriptOperation.sql(text)] : try ScriptReader.operations(yaml: text, file: path)
    }
}

/// A folder of migration scripts: files named `VERSION_description.yaml`
/// (or `.yml`, or `.sql`), applied in the order of their numeric version.
/// Each applied script is recorded in the store's history with the SHA-256
/// of its bytes, and must not change afterwards.
struct ScriptFolder: MigrationScripts {
    let url: URL

    /// Every script of the folder, in order, read but not parsed.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for a bad name,
    ///   a repeated version, or a file that cannot be read as UTF-8.
    func scripts() throws -> [FoundScript] {
        let folder = url.path(percentEncoded: false)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ModelStoreError.invalidMigrationScript(script: folder, reason: "the scripts folder cannot be read")
        }
        var result: [(Int, FoundScript)] = []
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
            let info = MigrationScriptInfo(version: String(digits), fileName: name, checksum: ScriptChecksum.hex(data))
            result.append((number, FoundScript(info: info, url: file, text: text)))
        }
        return result.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// The pending scripts, each read so that one that cannot run is
    /// reported now rather than when it is applied, and the applied
    /// scripts whose file changed since (reported, not thrown: a status
    /// shows them; only applying refuses).
    package func pending(applied: [AppliedMigration]) throws -> (
        pending: [MigrationScriptInfo], changed: [ChangedMigrationScript]
    ) {
        let (scripts, changed) = try classify(applied: applied)
        for script in scripts { _ = try script.operations() }
        return (scripts.map(\.info), changed)
    }

    /// The scripts not yet applied, after checking that the applied ones
    /// are unchanged.
    /// - Throws: `ModelStoreError.scriptChecksumMismatch` naming the file;
    ///   `.invalidMigrationScript` for a new script older than an applied one.
    func pendingScripts(applied: [AppliedMigration]) throws -> [FoundScript] {
        let (pending, changed) = try classify(applied: applied)
        if let first = changed.first {
            throw ModelStoreError.scriptChecksumMismatch(
                script: url.appending(path: first.fileName).path(percentEncoded: false), recorded: first.recordedChecksum,
                found: first.checksum)
        }
        return pending
    }

    /// The scripts not yet applied, and the applied ones whose file no
    /// longer has the recorded checksum, in version order.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for a new script
    ///   older than an applied one, or for the folder (see `scripts()`).
    private func classify(applied: [AppliedMigration]) throws -> (pending: [FoundScript], changed: [ChangedMigrationScript]) {
        let scripts = try scripts()
        var appliedVersions: [Int: AppliedMigration] = [:]
        for entry in applied where entry.kind == "script" {
            if let version = entry.version.flatMap({ Int($0) }) { appliedVersions[version] = entry }
        }
        let newest = appliedVersions.keys.max() ?? Int.min
        var pending: [FoundScript] = []
        var changed: [ChangedMigrationScript] = []
        for script in scripts {
            let version = Int(script.info.version) ?? 0
            if let entry = appliedVersions[version] {
                if entry.checksum != script.info.checksum {
                    changed.append(
                        ChangedMigrationScript(
                            version: script.info.version, fileName: script.info.fileName,
                            recordedChecksum: entry.checksum ?? "none", checksum: script.info.checksum))
                }
                continue
            }
            if version < newest {
                throw ModelStoreError.invalidMigrationScript(
                    script: script.path,
                    reason: "it is not applied, but a script with a higher version is; give it a version above \(newest)")
            }
            pending.append(script)
        }
        return (pending, changed)
    }

    package func recordBaseline(_ schema: Schema, _ connection: Connection, through version: Int?) throws {
        let applied = Set(try MigrationHistory.read(connection).compactMap(\.version))
        for script in try scripts() where !applied.contains(script.info.version) {
            if let version, (Int(script.info.version) ?? 0) > version { continue }
            // Read, so that a script that could never run is not recorded as run.
            _ = try script.operations()
            try MigrationHistory.record(
                .init(
                    version: script.info.version, name: script.info.fileName, kind: "script", checksum: script.info.checksum,
                    fingerprintBefore: schema.fingerprint, fingerprintAfter: schema.fingerprint, appliedAt: Date(),
                    duration: 0, snapshotPath: nil, isBaseline: true),
                connection)
        }
    }

    package func transactions(
        applied: [AppliedMigration], through version: String?, from schema: inout Schema, oneTransaction: Bool,
        allowsDataLoss: Bool
    ) throws -> (scripts: [MigrationScriptInfo], transactions: [MigrationTransaction]) {
        var scripts = try pendingScripts(applied: applied)
        if let version {
            guard let limit = Int(version) else {
                throw ModelStoreError.invalidMigrationScript(script: version, reason: "a version is a number, such as 0003")
            }
            scripts = scripts.filter { (Int($0.info.version) ?? 0) <= limit }
        }
        return (
            scripts.map(\.info),
            try Self.transactions(scripts, from: &schema, oneTransaction: oneTransaction, allowsDataLoss: allowsDataLoss)
        )
    }

    /// The transactions that apply `scripts` to a store holding `schema`
    /// (one per script, or one for all), each ending with the schema record
    /// and a history row per script. `schema` becomes the schema after them.
    /// Drops that lose values are refused when they run unless `allowsDataLoss`.
    /// - Throws: `ModelStoreError.invalidMigrationScript` for a script that
    ///   cannot be read or an operation that does not fit the schema (one
    ///   that adds what the store has already says how to baseline it).
    static func transactions(
        _ scripts: [FoundScript], from schema: inout Schema, oneTransaction: Bool, allowsDataLoss: Bool
    ) throws -> [MigrationTransaction] {
        var transactions: [MigrationTransaction] = []
        for script in scripts {
            let before = schema
            var planner = ScriptPlanner(current: schema, file: script.info.fileName, allowsDataLoss: allowsDataLoss)
            for operation in try script.operations() {
                do {
                    try planner.apply(operation)
                } catch let error as ModelStoreError {
                    throw ModelStoreError.invalidMigrationScript(script: script.path, reason: "\(operation.summary): \(error.description)")
                } catch let error as ScriptChangeInStore {
                    throw ModelStoreError.invalidMigrationScript(
                        script: script.path, reason: Self.baselineAdvice(operation, error, version: script.info.version))
                }
            }
            do {
                try planner.flush()
            } catch let error as ModelStoreError {
                throw ModelStoreError.invalidMigrationScript(script: script.path, reason: error.description)
            }
            let after = planner.current
            schema = after
            let info = script.info
            let finish: (MigrationRunContext) throws -> Void = { context in
                try StoreFormat.writeSchemaRecord(after, context.connection)
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

    /// Why a script that adds what the store has cannot run, and what to do:
    /// the store's app code made the change, so the script is to be recorded
    /// as applied without running it.
    static func baselineAdvice(_ operation: ScriptOperation, _ error: ScriptChangeInStore, version: String) -> String {
        "\(operation.summary): the store already has \(error.what), so the change this script makes is there already "
            + "(the app's own code made it). Record the script as applied without running it: "
            + "store-tool migrate STORE --scripts DIR --baseline --to \(version) (StoreMigrator.baseline(through: \"\(version)\")); "
            + "a baseline records scripts up to that version as applied, for a store that already has their changes"
    }
}
