import CSQLiteBench
import Foundation

/// Reading `Item` rows into `PlainItem`s with the raw C API.
enum RawItems {
    /// Every row, in key order, as objects of class `Item`.
    static func fetchAll<Item: PlainItem>(_ db: RawDatabase, as type: Item.Type = PlainItem.self) throws -> [Item] {
        let statement = try db.prepare(Fixture.selectSQL + #" ORDER BY "_pk""#)
        defer { sqlite3_finalize(statement) }
        var items: [Item] = []
        while true {
            let code = sqlite3_step(statement)
            guard code == SQLITE_ROW else {
                try db.check(code, "fetch")
                return items
            }
            items.append(read(statement, as: Item.self))
        }
    }

    /// The current row of a statement selecting `Fixture.selectSQL`'s columns.
    @inline(__always)
    static func read<Item: PlainItem>(_ statement: OpaquePointer, as type: Item.Type = PlainItem.self) -> Item {
        Item(
            id: sqlite3_column_int64(statement, 0),
            number: Int(sqlite3_column_int64(statement, 1)),
            name: statement.text(at: 2),
            score: sqlite3_column_double(statement, 3),
            rank: Int(sqlite3_column_int64(statement, 4)),
            created: Date(timeIntervalSince1970: sqlite3_column_double(statement, 5)),
            flag: sqlite3_column_int64(statement, 6) != 0)
    }
}
