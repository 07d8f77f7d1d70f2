/// What the query builder writes differently for a database that is not
/// SQLite (the backend seam): the SQL stays SQLite's, which the foreign
/// database translates statement by statement, but a few forms need the
/// operands themselves changed, which no statement-level translation can
/// do.
package struct QueryDialect: Sendable, Equatable {
    /// True when text compared or sorted in Swift's order must be put in
    /// Unicode's composed form (NFC) first: a database without SQLite's
    /// Swift collation compares scalars, and Swift compares canonically
    /// equivalent strings as equal ("é" and "e" + U+0301, "K" and the
    /// Kelvin sign). `normalize(x, NFC)` is SQL's standard spelling.
    package var normalizesText: Bool
    /// False when the database lacks what the library registers on SQLite
    /// connections to run Swift inside SQL: the string functions
    /// (`contains`, `hasPrefix`, `count`, the localized and case-insensitive
    /// ones), the localized and lexical sort orders, and `json_each` for a
    /// Codable array's `contains`. A fetch that needs one is then answered
    /// in Swift (`QuerySQLBuilder.needsSwift`).
    package var runsSwiftInSQL: Bool

    /// Equality and inequality that treat NULL as a value: SQLite's `IS`
    /// and `IS NOT` (which every SQLite has; its `IS NOT DISTINCT FROM`
    /// came in 3.39), or SQL's `IS NOT DISTINCT FROM` and `IS DISTINCT FROM`.
    package var nullSafeEqual: String
    package var nullSafeNotEqual: String

    /// A dialect; the null-safe operators are SQL's standard ones unless given.
    package init(
        normalizesText: Bool, runsSwiftInSQL: Bool, nullSafeEqual: String = "IS NOT DISTINCT FROM",
        nullSafeNotEqual: String = "IS DISTINCT FROM"
    ) {
        self.normalizesText = normalizesText
        self.runsSwiftInSQL = runsSwiftInSQL
        self.nullSafeEqual = nullSafeEqual
        self.nullSafeNotEqual = nullSafeNotEqual
    }

    /// SQLite's: text is compared by the collation that calls Swift.
    package static let sqlite = QueryDialect(
        normalizesText: false, runsSwiftInSQL: true, nullSafeEqual: "IS", nullSafeNotEqual: "IS NOT")

    /// `sql`, a text operand of a comparison or sort in Swift's order.
    func textOperand(_ sql: String) -> String {
        normalizesText ? "normalize(\(sql), NFC)" : sql
    }
}
