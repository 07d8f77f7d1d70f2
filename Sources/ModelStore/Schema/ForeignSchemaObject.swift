/// A schema object in a store file that ModelStore did not make: a trigger,
/// a view, a table or column the schema record does not list, or a part of a
/// table or index that can run SQL of its own (a CHECK constraint, a
/// generated column, a default computed by an expression, an index on an
/// expression or with a WHERE clause, a foreign key with an action).
///
/// SQLite runs a file's triggers and constraints on every statement that
/// touches their table, whatever the connection's `trusted_schema` setting
/// (which only keeps functions with side effects out of them). A file whose
/// schema holds such an object could make ModelStore's own saves write rows
/// nobody asked for, so ModelStore refuses to open it for writing
/// (`ModelStoreError.foreignSchemaObjects`); store-tool opens it
/// read-only and lists the objects, and its `check` reports each one.
public struct ForeignSchemaObject: Sendable, Hashable, CustomStringConvertible {
    /// What kind of object it is.
    public enum Kind: String, Sendable, CaseIterable {
        /// A trigger: ModelStore makes none.
        case trigger
        /// A view: ModelStore makes none.
        case view
        /// A table the schema record does not list.
        case table
        /// A virtual table (a module's table, such as FTS or R-tree).
        case virtualTable = "virtual table"
        /// A column of an entity's table that the schema record does not list.
        case column
        /// A generated (computed) column.
        case generatedColumn = "generated column"
        /// A CHECK constraint: ModelStore makes none.
        case checkConstraint = "CHECK constraint"
        /// A column default computed by an expression (not a literal).
        case columnDefault = "column default"
        /// A foreign key ModelStore did not make, or one whose action differs.
        case foreignKey = "foreign key"
        /// An index the schema record does not list.
        case index
        /// An index on an expression rather than on columns.
        case expressionIndex = "index on an expression"
        /// An index with a WHERE clause.
        case partialIndex = "partial index"
    }

    /// What kind of object it is.
    public let kind: Kind
    /// The object's name: the trigger, view, table or index, or the column.
    public let name: String
    /// The table the object belongs to, when it belongs to one.
    public let table: String?

    /// Makes a finding.
    public init(kind: Kind, name: String, table: String?) {
        self.kind = kind
        self.name = name
        self.table = table
    }

    /// "trigger \"audit\" on table \"Trip\"", "CHECK constraint on table \"Stop\"".
    public var description: String {
        if kind == .checkConstraint { return "CHECK constraint on table \"\(table ?? name)\"" }
        return "\(kind.rawValue) \"\(name)\"" + (table.map { " on table \"\($0)\"" } ?? "")
    }
}
