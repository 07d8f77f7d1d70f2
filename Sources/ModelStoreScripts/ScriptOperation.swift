import Foundation
import ModelStore

/// One operation of a migration script. Model-level operations change the
/// schema and need no app code; `sql` runs a block of SQL for data changes.
enum ScriptOperation {
    case addEntity(String, attributes: [Schema.Attribute], defaults: [String: SQLiteValue])
    case removeEntity(String)
    case renameEntity(String, to: String)
    case addAttribute(entity: String, Schema.Attribute, default: SQLiteValue?)
    case removeAttribute(entity: String, String)
    case renameAttribute(entity: String, String, to: String)
    /// `using` is SQL over the row's current columns; by default the column itself.
    case changeType(entity: String, String, kind: ValueKind, isOptional: Bool?, using: String?)
    /// `backfill` is a value of the attribute's type, `backfillSQL` SQL over the row.
    case makeRequired(entity: String, String, backfill: String?, backfillSQL: String?)
    case makeOptional(entity: String, String)
    case addUnique(entity: String, [String])
    case removeUnique(entity: String, [String])
    case addIndex(entity: String, [String])
    case removeIndex(entity: String, [String])
    case sql(String)

    var summary: String {
        switch self {
        case .addEntity(let name, _, _): "addEntity \(name)"
        case .removeEntity(let name): "removeEntity \(name)"
        case .renameEntity(let name, let to): "renameEntity \(name) to \(to)"
        case .addAttribute(let entity, let attribute, _): "addAttribute \(entity).\(attribute.name)"
        case .removeAttribute(let entity, let name): "removeAttribute \(entity).\(name)"
        case .renameAttribute(let entity, let name, let to): "renameAttribute \(entity).\(name) to \(to)"
        case .changeType(let entity, let name, let kind, _, _): "changeType \(entity).\(name) to \(kind.rawValue)"
        case .makeRequired(let entity, let name, _, _): "makeRequired \(entity).\(name)"
        case .makeOptional(let entity, let name): "makeOptional \(entity).\(name)"
        case .addUnique(let entity, let names): "addUnique \(entity)(\(names.joined(separator: ", ")))"
        case .removeUnique(let entity, let names): "removeUnique \(entity)(\(names.joined(separator: ", ")))"
        case .addIndex(let entity, let names): "addIndex \(entity)(\(names.joined(separator: ", ")))"
        case .removeIndex(let entity, let names): "removeIndex \(entity)(\(names.joined(separator: ", ")))"
        case .sql: "sql"
        }
    }

    var isSQL: Bool {
        if case .sql = self { return true }
        return false
    }
}

/// Reads the operations of a YAML script (see `ScriptYAML` for the
/// subset and the README for the operations).
enum ScriptReader {
    /// - Throws: `ModelStoreError.invalidMigrationScript` naming the file and line.
    static func operations(yaml text: String, file: String) throws -> [ScriptOperation] {
        let document: ScriptNode
        do {
            document = try ScriptYAML.parse(text)
        } catch {
            throw ModelStoreError.invalidMigrationScript(script: file, reason: "\(error)")
        }
        guard case .map(let entries, _) = document else {
            throw ModelStoreError.invalidMigrationScript(script: file, reason: "the script must be a mapping with 'steps:'")
        }
        for entry in entries where !["description", "steps"].contains(entry.key) {
            throw ModelStoreError.invalidMigrationScript(
                script: file, reason: "line \(entry.value.line): unknown key \(entry.key) (expected description and steps)")
        }
        guard case .list(let steps, _)? = entries.first(where: { $0.key == "steps" })?.value else {
            throw ModelStoreError.invalidMigrationScript(script: file, reason: "the script has no 'steps:' list")
        }
        return try steps.map { step in
            do {
                return try operation(step)
            } catch let error as ScriptSyntaxError {
                throw ModelStoreError.invalidMigrationScript(script: file, reason: error.description)
            }
        }
    }

    private static func operation(_ node: ScriptNode) throws -> ScriptOperation {
        guard case .map(let entries, let line) = node, let (name, target) = entries.first.map({ ($0.key, $0.value) }) else {
            throw ScriptSyntaxError(line: node.line, message: "a step must be a mapping such as '- addAttribute: Trip.notes'")
        }
        var fields: [String: ScriptNode] = [:]
        for entry in entries.dropFirst() { fields[entry.key] = entry.value }
        func text(_ node: ScriptNode?, _ what: String) throws -> String {
            guard case .scalar(let value, _)? = node, !value.isEmpty else {
                throw ScriptSyntaxError(line: node?.line ?? line, message: "\(name) needs \(what)")
            }
            return value
        }
        func names(_ key: String) throws -> [String] {
            guard case .list(let items, _)? = fields[key], !items.isEmpty else {
                throw ScriptSyntaxError(line: fields[key]?.line ?? line, message: "\(name) needs \(key): [a, b]")
            }
            return try items.map { try text($0, key) }
        }
        func property() throws -> (String, String) {
            let value = try text(target, "Entity.property")
            let parts = value.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ScriptSyntaxError(line: target.line, message: "\(name) takes Entity.property, not \(value)")
            }
            return (parts[0], parts[1])
        }
        func check(_ allowed: [String]) throws {
            for key in fields.keys where !allowed.contains(key) {
                throw ScriptSyntaxError(line: fields[key]?.line ?? line, message: "\(name) does not take \(key)")
            }
        }
        switch name {
        case "addEntity":
            try check(["attributes"])
            var attributes: [Schema.Attribute] = []
            var defaults: [String: SQLiteValue] = [:]
            guard case .list(let items, _)? = fields["attributes"] else {
                throw ScriptSyntaxError(line: line, message: "addEntity needs attributes: a list of {name, type}")
            }
            for item in items {
                guard case .map(let pairs, let itemLine) = item else {
                    throw ScriptSyntaxError(line: item.line, message: "an attribute is a mapping with name and type")
                }
                var values: [String: ScriptNode] = [:]
                for pair in pairs { values[pair.key] = pair.value }
                let attributeName = try text(values["name"], "a name for each attribute")
                let (attribute, fill) = try Self.attribute(attributeName, values, line: itemLine)
                attributes.append(attribute)
                if let fill { defaults[attributeName] = fill }
            }
            return .addEntity(try text(target, "an entity name"), attributes: attributes, defaults: defaults)
        case "removeEntity":
            try check([])
            return .removeEntity(try text(target, "an entity name"))
        case "renameEntity":
            try check(["to"])
            return .renameEntity(try text(target, "an entity name"), to: try text(fields["to"], "to: NewName"))
        case "addAttribute":
            try check(["type", "default", "unique"])
            let (entity, attribute) = try property()
            let (description, fill) = try Self.attribute(attribute, fields, line: line)
            return .addAttribute(entity: entity, description, default: fill)
        case "removeAttribute":
            try check([])
            let (entity, attribute) = try property()
            return .removeAttribute(entity: entity, attribute)
        case "renameAttribute":
            try check(["to"])
            let (entity, attribute) = try property()
            return .renameAttribute(entity: entity, attribute, to: try text(fields["to"], "to: newName"))
        case "changeType":
            try check(["to", "using"])
            let (entity, attribute) = try property()
            let (kind, optional) = try Self.kind(try text(fields["to"], "to: a type"), line: fields["to"]?.line ?? line)
            let using = fields["using"] == nil ? nil : try text(fields["using"], "using: an SQL expression")
            return .changeType(entity: entity, attribute, kind: kind, isOptional: optional, using: using)
        case "makeRequired":
            try check(["backfill", "backfillSQL"])
            let (entity, attribute) = try property()
            let backfill = fields["backfill"] == nil ? nil : try text(fields["backfill"], "backfill: a value")
            let backfillSQL = fields["backfillSQL"] == nil ? nil : try text(fields["backfillSQL"], "backfillSQL: an SQL expression")
            return .makeRequired(entity: entity, attribute, backfill: backfill, backfillSQL: backfillSQL)
        case "makeOptional":
            try check([])
            let (entity, attribute) = try property()
            return .makeOptional(entity: entity, attribute)
        case "addUnique", "removeUnique", "addIndex", "removeIndex":
            try check(["attributes"])
            let entity = try text(target, "an entity name")
            let list = try names("attributes")
            switch name {
            case "addUnique": return .addUnique(entity: entity, list)
            case "removeUnique": return .removeUnique(entity: entity, list)
            case "addIndex": return .addIndex(entity: entity, list)
            default: return .removeIndex(entity: entity, list)
            }
        case "sql":
            try check([])
            return .sql(try text(target, "a block of SQL (sql: |)"))
        default:
            throw ScriptSyntaxError(
                line: line,
                message: "unknown operation \(name); expected addEntity, removeEntity, renameEntity, addAttribute, "
                    + "removeAttribute, renameAttribute, changeType, makeRequired, makeOptional, addUnique, removeUnique, "
                    + "addIndex, removeIndex or sql")
        }
    }

    /// `type: string?` (a trailing ? for optional), `default:`, `unique: true`.
    private static func attribute(
        _ name: String, _ fields: [String: ScriptNode], line: Int
    ) throws -> (Schema.Attribute, SQLiteValue?) {
        guard case .scalar(let typeText, let typeLine)? = fields["type"] else {
            throw ScriptSyntaxError(line: line, message: "attribute \(name) needs type: (string, int, double, date, …)")
        }
        let (kind, optional) = try kind(typeText, line: typeLine)
        var unique = false
        if case .scalar(let value, let uniqueLine)? = fields["unique"] {
            guard value == "true" || value == "false" else {
                throw ScriptSyntaxError(line: uniqueLine, message: "unique is true or false")
            }
            unique = value == "true"
        }
        var fill: SQLiteValue?
        var recordedDefault: String?
        if case .scalar(let value, let defaultLine)? = fields["default"] {
            fill = try columnValue(value, kind: kind, line: defaultLine)
            recordedDefault = try defaultText(value, kind: kind, line: defaultLine)
        }
        // The default goes into the schema record too, so that store-tool's
        // insert gives it to a new object as the app's declaration would.
        let attribute = Schema.Attribute(
            name: name, kind: kind, swiftType: kind.swiftTypeName + (optional ? "?" : ""), isOptional: optional,
            options: unique ? [.unique] : [], defaultValue: recordedDefault)
        return (attribute, fill)
    }

    static func kind(_ text: String, line: Int) throws -> (ValueKind, Bool) {
        let optional = text.hasSuffix("?")
        let name = optional ? String(text.dropLast()) : text
        guard let kind = ValueKind(rawValue: name) else {
            throw ScriptSyntaxError(
                line: line,
                message: "unknown type \(name); expected one of \(ValueKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return (kind, optional)
    }

    /// A default written in a script in the schema record's text form
    /// (`Schema.Attribute.defaultValue`): as written, except a date given
    /// as seconds since 1970, which becomes ISO 8601.
    static func defaultText(_ text: String, kind: ValueKind, line: Int) throws -> String {
        if kind == .date, let seconds = Double(text) { return ValueText.formatISO8601(Date(timeIntervalSince1970: seconds)) }
        do {
            return ValueText.format(try ValueText.parse(text, as: kind))
        } catch {
            throw ScriptSyntaxError(line: line, message: "\(text) is not a \(kind.rawValue) value: \(error.reason)")
        }
    }

    /// A default written in a script, as the column value of `kind`.
    static func columnValue(_ text: String, kind: ValueKind, line: Int) throws -> SQLiteValue {
        // A date may also be given as seconds since 1970, as it is stored.
        if kind == .date, let seconds = Double(text) { return .real(seconds) }
        do {
            return try ValueText.parse(text, as: kind).storedValue
        } catch {
            throw ScriptSyntaxError(line: line, message: "\(text) is not a \(kind.rawValue) value: \(error.reason)")
        }
    }
}
