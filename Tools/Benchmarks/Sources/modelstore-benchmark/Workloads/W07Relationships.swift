import CSQLiteBench
import Foundation
import GRDB
import ModelStore

/// 7. Fetch 10,000 parents and touch every one of their 10 children (sum the
/// children's values) in a context where nothing is registered yet.
/// ModelStore prefetches the children (one query for all of them; the target
/// is measured on it) or, as "ModelStore, faulting", loads each parent's
/// children on first access (one query per parent; no target). Raw C and
/// GRDB Statement do the same joins by hand: one SELECT of the parents, one
/// of every child ordered by parent and position, grouped by key; GRDB Record
/// uses a `hasMany` association with `including(all:)`.
struct RelationshipsWorkload: Workload {
    let number = 7
    let title = "Parents × children, touch all"
    let target = Target.ratio(2)

    func cases(scale: Scale) -> [Case] {
        let parents = scale.parents
        let perParent = scale.childrenPerParent
        func modelStore(prefetching: Bool) -> Case {
            Case(contender: prefetching ? .modelStore : .modelStoreFaulting) { scratch in
                try Self.modelStoreTrial(
                    try Fixture.familyStore(scratch, parents: parents, childrenPerParent: perParent),
                    prefetching: prefetching, scale: scale)
            }
        }
        return [
            modelStore(prefetching: true),
            modelStore(prefetching: false),
            Case(contender: .rawC) { scratch in
                try Fixture.familyStore(scratch, parents: parents, childrenPerParent: perParent)
                let db = try RawDatabase(path: scratch.storePath)
                var fetched: [PlainParent] = []
                var touched = FamilyDataset.Touched()
                return Trial(run: {
                    fetched = try RawFamilies.fetchAll(db)
                    touched = Self.touch(fetched)
                }, check: {
                    try Self.expectFamilies(
                        fetched, touched, scale: scale, name: \.name, children: \.children, childName: \.name, value: \.value)
                })
            },
            Case(contender: .grdbStatement) { scratch in
                try Fixture.familyStore(scratch, parents: parents, childrenPerParent: perParent)
                let queue = try openGRDB(path: scratch.storePath)
                var fetched: [PlainParent] = []
                var touched = FamilyDataset.Touched()
                return Trial(run: {
                    fetched = try queue.read { db in try GRDBFamilies.fetchAll(db) }
                    touched = Self.touch(fetched)
                }, check: {
                    try Self.expectFamilies(
                        fetched, touched, scale: scale, name: \.name, children: \.children, childName: \.name, value: \.value)
                })
            },
            Case(contender: .grdbRecord) { scratch in
                try Fixture.familyStore(scratch, parents: parents, childrenPerParent: perParent)
                let queue = try openGRDB(path: scratch.storePath)
                var fetched: [ParentWithChildren] = []
                var touched = FamilyDataset.Touched()
                return Trial(run: {
                    fetched = try queue.read { db in try ParentWithChildren.request.fetchAll(db) }
                    touched = Self.touch(fetched)
                }, check: {
                    try Self.expectFamilies(
                        fetched, touched, scale: scale, name: \.parent.name, children: \.children, childName: \.name, value: \.value)
                })
            },
        ]
    }

    /// ModelStore's part on a filled store, SQLite or PostgreSQL alike.
    static func modelStoreTrial(_ container: ModelContainer, prefetching: Bool, scale: Scale) throws -> Trial {
        // A new context per trial, so nothing is registered; the count
        // opens its connection and registers nothing. The objects load
        // their children through it: it stays alive until the check is done.
        let context = ModelContext(container)
        _ = try context.fetchCount(FetchDescriptor<Parent>())
        var fetched: [Parent] = []
        var touched = FamilyDataset.Touched()
        return Trial(run: {
            var descriptor = FetchDescriptor<Parent>()
            if prefetching { descriptor.relationshipKeyPathsForPrefetching = [\.children] }
            fetched = try context.fetch(descriptor)
            touched = Self.touch(fetched)
        }, check: {
            try expect(context.lastFaultError.map { "\($0)" }, nil, "error loading a relationship")
            try expectFamilies(
                fetched, touched, scale: scale, name: \.name, children: \.children, childName: \.name, value: \.value)
            try expect(
                fetched.allSatisfy { parent in parent.children.allSatisfy { $0.parent === parent } }, true,
                "every child's parent is the object that holds it")
        })
    }

    /// Throws unless `fetched` and `touched` are the dataset at `scale`.
    static func expectFamilies<P, C>(
        _ fetched: [P], _ touched: FamilyDataset.Touched, scale: Scale,
        name: (P) -> String, children: (P) -> [C], childName: (C) -> String, value: (C) -> Int
    ) throws {
        try FamilyDataset.expectFamilies(
            fetched, touched: touched, count: scale.parents, childrenPerParent: scale.childrenPerParent,
            name: name, children: children, childName: childName, value: value)
    }

    /// Reads the value of every child of every parent.
    @inline(never)
    static func touch(_ parents: [Parent]) -> FamilyDataset.Touched {
        var touched = FamilyDataset.Touched()
        for parent in parents {
            for child in parent.children {
                touched.children += 1
                touched.valueSum = touched.valueSum &+ child.value
            }
        }
        return touched
    }

    @inline(never)
    static func touch(_ parents: [PlainParent]) -> FamilyDataset.Touched {
        var touched = FamilyDataset.Touched()
        for parent in parents {
            for child in parent.children {
                touched.children += 1
                touched.valueSum = touched.valueSum &+ child.value
            }
        }
        return touched
    }

    @inline(never)
    static func touch(_ parents: [ParentWithChildren]) -> FamilyDataset.Touched {
        var touched = FamilyDataset.Touched()
        for parent in parents {
            for child in parent.children {
                touched.children += 1
                touched.valueSum = touched.valueSum &+ child.value
            }
        }
        return touched
    }
}
