import Foundation
import GRDB

/// Reading `Item` rows into `PlainItem`s with GRDB's Statement API.
enum GRDBItems {
    /// Every row, in key order, through a row cursor.
    static func fetchAll(_ db: Database) throws -> [PlainItem] {
        let statement = try db.cachedStatement(sql: Fixture.selectSQL + #" ORDER BY "_pk""#)
        var items: [PlainItem] = []
        let rows = try Row.fetchCursor(statement)
        while let row = try rows.next() {
            items.append(read(row))
        }
        return items
    }

    /// A row selecting `Fixture.selectSQL`'s columns, by index.
    @inline(__always)
    static func read(_ row: Row) -> PlainItem {
        PlainItem(
            id: row[0], number: row[1], name: row[2], score: row[3], rank: row[4],
            created: Date(timeIntervalSince1970: row[5]), flag: row[6])
    }
}
