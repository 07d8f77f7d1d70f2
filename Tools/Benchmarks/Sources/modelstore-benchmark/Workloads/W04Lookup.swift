import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 4. Look up 1,000 objects by identifier, 100 times. ModelStore uses a
/// fresh context for each repetition, so every lookup is a registered miss
/// that reads the store. Every contender reads one transaction per
/// repetition: raw C with BEGIN/COMMIT, GRDB with `read`, ModelStore with
/// `withSnapshot`.
struct LookupWorkload: Workload {
    let number = 4
    let title = "Look up 1,000 objects by id × 100"
    let target = Target.ratio(2)

    /// What every contender looks up, and the check of what it found.
    struct Lookups {
        /// The row keys looked up in each repetition.
        let keys: [Int64]
        let repetitions: Int
        /// Throws unless the count and checksum of every object found are
        /// those of the keys, repeated.
        let check: (_ count: Int, _ checksum: Int) throws -> Void
    }

    static func lookups(_ scale: Scale) -> Lookups {
        let stride = max(1, scale.rows / scale.lookups)
        let keys = (0..<scale.lookups).map { Int64(1 + $0 * stride) }
        let repetitions = scale.lookupRepetitions
        let expected = repetitions &* keys.reduce(0) { $0 &+ Dataset.checksum(row: Int($1)) }
        return Lookups(keys: keys, repetitions: repetitions) { count, checksum in
            try expect(count, repetitions * keys.count, "objects found")
            try expect(checksum, expected, "checksum of the found values")
        }
    }

    func cases(scale: Scale) -> [Case] {
        let n = scale.rows
        let lookups = Self.lookups(scale)
        let keys = lookups.keys
        let repetitions = lookups.repetitions
        let check = lookups.check
        let selectByKey = Fixture.selectSQL + #" WHERE "_pk" = ?"#
        return [
            Case(contender: .modelStore) { scratch in
                try Self.modelStoreTrial(
                    try Fixture.itemStore(scratch, rows: n), keys: keys, repetitions: repetitions, check: check)
            },
            Case(contender: .rawC) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let db = try RawDatabase(path: scratch.storePath)
                var found: [PlainItem] = []
                found.reserveCapacity(repetitions * keys.count)
                return Trial(run: {
                    let statement = try db.prepare(selectByKey)
                    defer { sqlite3_finalize(statement) }
                    for _ in 0..<repetitions {
                        try db.begin(immediate: false)
                        for key in keys {
                            sqlite3_bind_int64(statement, 1, key)
                            if sqlite3_step(statement) == SQLITE_ROW { found.append(RawItems.read(statement)) }
                            sqlite3_reset(statement)
                        }
                        try db.commit()
                    }
                }, check: { try check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) }) })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var found: [PlainItem] = []
                found.reserveCapacity(repetitions * keys.count)
                return Trial(run: {
                    for _ in 0..<repetitions {
                        try queue.read { db in
                            let statement = try db.cachedStatement(sql: selectByKey)
                            for key in keys {
                                if let row = try Row.fetchOne(statement, arguments: [key]) {
                                    found.append(GRDBItems.read(row))
                                }
                            }
                        }
                    }
                }, check: { try check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) }) })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.itemStore(scratch, rows: n)
                let queue = try openGRDB(path: scratch.storePath)
                var found: [ItemRecord] = []
                found.reserveCapacity(repetitions * keys.count)
                return Trial(run: {
                    for _ in 0..<repetitions {
                        try queue.read { db in
                            for key in keys {
                                if let record = try ItemRecord.fetchOne(db, key: key) { found.append(record) }
                            }
                        }
                    }
                }, check: { try check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) }) })
            },
        ]
    }

    /// ModelStore's part on a filled store, SQLite or PostgreSQL alike;
    /// `check` gets the count and the checksum of the objects found.
    static func modelStoreTrial(
        _ container: ModelContainer, keys: [Int64], repetitions: Int, check: @escaping (Int, Int) throws -> Void
    ) throws -> Trial {
        let identifiers = try Self.identifiers(of: keys, in: container)
        var found: [Item] = []
        found.reserveCapacity(repetitions * keys.count)
        return Trial(run: {
            for _ in 0..<repetitions {
                let context = ModelContext(container)
                try context.withSnapshot {
                    for identifier in identifiers {
                        if let item = context.model(for: identifier) as? Item { found.append(item) }
                    }
                }
            }
        }, check: { try check(found.count, found.reduce(0) { $0 &+ Dataset.checksum($1) }) })
    }

    /// The identifiers of the objects with these row keys, read in a context
    /// that is gone before the timed part.
    static func identifiers(of keys: [Int64], in container: ModelContainer) throws -> [PersistentIdentifier] {
        let context = ModelContext(container)
        let wanted = Set(keys)
        var byKey: [Int64: PersistentIdentifier] = [:]
        for item in try context.fetch(FetchDescriptor<Item>()) {
            let identifier = item.persistentModelID
            if let key = identifier.rowID, wanted.contains(key) { byKey[key] = identifier }
        }
        return try keys.map { key in
            guard let identifier = byKey[key] else { throw CheckFailure(description: "no object for row \(key)") }
            return identifier
        }
    }
}
