import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 12. Append 1 object to a to-many of 10,000 and save: the cost of a save
/// must follow the change, not the length of the list it changes. One
/// parent holds 10,000 children (ordered, with an inverse to-one); every
/// contender first holds the parent's children in memory, as an app showing
/// the list would, and appends one child untimed (so that statements are
/// prepared and cached). The timed part appends one more child at the end
/// and saves it in one transaction. Raw C and GRDB Statement insert the
/// child with its position (the list's count, which they hold); GRDB Record
/// inserts a record that carries it.
struct ToManyAppendWorkload: Workload {
    let number = 12
    let title = "Append 1 to a to-many of 10,000, save"
    let target = Target.underMilliseconds(1)

    static func appendedName(_ k: Int) -> String { "Appended \(k)" }
    static func appendedValue(_ k: Int) -> Int { -1 - k }

    func cases(scale: Scale) -> [Case] {
        let members = scale.toManyMembers
        // The parent's children, as stored: the dataset's, then the two
        // appended ones, at positions 0, 1, 2, … in that order.
        let check = { (scratch: Scratch) in try Self.expectChildren(path: scratch.storePath, members: members) }
        return [
            Case(contender: .modelStore) { scratch in
                let context = ModelContext(try Fixture.familyStore(scratch, parents: 1, childrenPerParent: members))
                guard let parent = try context.fetch(FetchDescriptor<Parent>()).first else {
                    throw CheckFailure(description: "no parent")
                }
                try expect(parent.children.count, members, "children loaded")
                parent.children.append(Child(name: Self.appendedName(0), value: Self.appendedValue(0)))
                try context.save()
                return Trial(run: {
                    parent.children.append(Child(name: Self.appendedName(1), value: Self.appendedValue(1)))
                    try context.save()
                }, check: { try check(scratch) })
            },
            Case(contender: .rawC) { scratch in
                try Fixture.familyStore(scratch, parents: 1, childrenPerParent: members)
                let db = try RawDatabase(path: scratch.storePath)
                guard let parent = try RawFamilies.fetchAll(db).first else { throw CheckFailure(description: "no parent") }
                let statement = try db.prepare(Fixture.insertChildSQL)
                func append(_ k: Int) throws {
                    let name = Self.appendedName(k)
                    let value = Self.appendedValue(k)
                    try db.begin(immediate: true)
                    sqlite3_bind_text(statement, 1, name, -1, SQLITE_TRANSIENT_DESTRUCTOR)
                    sqlite3_bind_int64(statement, 2, Int64(value))
                    sqlite3_bind_int64(statement, 3, parent.id)
                    sqlite3_bind_int64(statement, 4, Int64(parent.children.count))
                    try db.check(sqlite3_step(statement), "append")
                    sqlite3_reset(statement)
                    try db.commit()
                    parent.children.append(
                        PlainChild(id: sqlite3_last_insert_rowid(db.handle), name: name, value: value, parentID: parent.id))
                }
                try append(0)
                return Trial(run: { try append(1) }, check: {
                    sqlite3_finalize(statement)
                    try check(scratch)
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.familyStore(scratch, parents: 1, childrenPerParent: members)
                let queue = try openGRDB(path: scratch.storePath)
                guard let parent = try queue.read({ db in try GRDBFamilies.fetchAll(db) }).first else {
                    throw CheckFailure(description: "no parent")
                }
                func append(_ k: Int) throws {
                    let name = Self.appendedName(k)
                    let value = Self.appendedValue(k)
                    let id = try queue.write { db in
                        try db.cachedStatement(sql: Fixture.insertChildSQL)
                            .execute(arguments: [name, value, parent.id, parent.children.count])
                        return db.lastInsertedRowID
                    }
                    parent.children.append(PlainChild(id: id, name: name, value: value, parentID: parent.id))
                }
                try append(0)
                return Trial(run: { try append(1) }, check: { try check(scratch) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.familyStore(scratch, parents: 1, childrenPerParent: members)
                let queue = try openGRDB(path: scratch.storePath)
                guard let family = try queue.read({ db in try ParentWithChildren.request.fetchAll(db) }).first else {
                    throw CheckFailure(description: "no parent")
                }
                var appended: [NewChildRecord] = []
                func append(_ k: Int) throws {
                    var record = NewChildRecord(
                        name: Self.appendedName(k), value: Self.appendedValue(k), parent: family.parent.id,
                        position: family.children.count + appended.count)
                    try queue.write { db in try record.insert(db) }
                    appended.append(record)
                }
                try append(0)
                return Trial(run: { try append(1) }, check: { try check(scratch) })
            },
        ]
    }

    /// Throws unless the store's only parent holds the dataset's `members`
    /// children and then the two appended ones, at positions 0, 1, 2, ….
    static func expectChildren(path: String, members: Int) throws {
        let db = try RawDatabase(path: path)
        let statement = try db.prepare(
            #"SELECT "name", "value", "_parent_order" FROM "Child" WHERE "parent" = 1 ORDER BY "_parent_order", "_pk""#)
        defer { sqlite3_finalize(statement) }
        var index = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let (name, value) =
                index < members
                ? (FamilyDataset.childName(1, index), FamilyDataset.childValue(1, index))
                : (appendedName(index - members), appendedValue(index - members))
            try expect(statement.text(at: 0), name, "name of the child at \(index)")
            try expect(Int(sqlite3_column_int64(statement, 1)), value, "value of the child at \(index)")
            try expect(Int(sqlite3_column_int64(statement, 2)), index, "stored position of the child at \(index)")
            index += 1
        }
        try expect(index, members + 2, "children of the parent")
    }
}
