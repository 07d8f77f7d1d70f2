import Foundation
import ModelStore

/// Workload 7's entities: a parent with an ordered to-many of children, and
/// the children's to-one back. ModelStore stores them as
/// `"Parent" ("_pk", "name")` and `"Child" ("_pk", "name", "value",
/// "parent" REFERENCES "Parent", "_parent_order")`, with an index on
/// `"Child"."parent"`.
@Model final class Parent {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Child.parent) var children: [Child] = []

    init(name: String) {
        self.name = name
    }
}

@Model final class Child {
    var name: String
    var value: Int
    var parent: Parent?

    init(name: String, value: Int) {
        self.name = name
        self.value = value
    }
}

/// What the raw C and GRDB Statement contenders fill: plain objects with the
/// same columns, each parent holding its children in order.
final class PlainParent {
    let id: Int64
    let name: String
    var children: [PlainChild] = []

    init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

final class PlainChild {
    let id: Int64
    let name: String
    let value: Int
    /// The "parent" column: the parent's key.
    let parentID: Int64

    init(id: Int64, name: String, value: Int, parentID: Int64) {
        self.id = id
        self.name = name
        self.value = value
        self.parentID = parentID
    }
}

/// The parents and children workload 7 stores. Parent `i` (1-based) is named
/// "Parent i"; its child at position `j` (0-based) is named "Child i.j" and
/// holds the value `i * 1000 + j` (so at most 1,000 children a parent).
enum FamilyDataset {
    static func parentName(_ i: Int) -> String { "Parent \(i)" }
    static func childName(_ i: Int, _ j: Int) -> String { "Child \(i).\(j)" }
    static func childValue(_ i: Int, _ j: Int) -> Int { i * 1000 + j }

    /// The sum of every child's value.
    static func valueSum(parents: Int, childrenPerParent: Int) -> Int {
        var sum = 0
        for i in 0..<parents {
            for j in 0..<childrenPerParent { sum = sum &+ childValue(i + 1, j) }
        }
        return sum
    }

    /// What touching every child computed: how many children, and the sum of
    /// their values.
    struct Touched: Equatable {
        var children = 0
        var valueSum = 0
    }

    /// Throws unless `parents` are exactly parents 1...count, in any order,
    /// each with its children in order, and `touched` is what touching every
    /// child of the dataset gives. Names and values are read through the
    /// closures, so every contender's objects are checked the same way.
    static func expectFamilies<P, C>(
        _ parents: [P], touched: Touched, count: Int, childrenPerParent: Int,
        name: (P) -> String, children: (P) -> [C], childName: (C) -> String, value: (C) -> Int
    ) throws {
        try expect(parents.count, count, "fetched parents")
        try expect(
            touched, Touched(children: count * childrenPerParent, valueSum: valueSum(parents: count, childrenPerParent: childrenPerParent)),
            "children touched (count, sum of values)")
        var seen = [Bool](repeating: false, count: count + 1)
        for parent in parents {
            let parentName = name(parent)
            guard parentName.hasPrefix("Parent "), let i = Int(parentName.dropFirst(7)), (1...count).contains(i), !seen[i] else {
                throw CheckFailure(description: "unexpected or repeated parent \(parentName)")
            }
            seen[i] = true
            let found = children(parent).map { (childName($0), value($0)) }
            let expected = (0..<childrenPerParent).map { (Self.childName(i, $0), childValue(i, $0)) }
            guard found.elementsEqual(expected, by: ==) else {
                throw CheckFailure(description: "children of \(parentName): got \(found), expected \(expected)")
            }
        }
    }
}
