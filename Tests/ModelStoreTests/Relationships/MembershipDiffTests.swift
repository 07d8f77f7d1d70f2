import Foundation
import Testing
@testable import ModelStore

/// The in-memory diffs of relationship lists that every change and save of
/// a to-many runs, against the obvious way of computing them.
@Suite("Membership diffs")
struct MembershipDiffTests {
    /// The obvious definitions: a walk of the other list per object.
    private func naiveUnique(_ models: [any PersistentModel]) -> [any PersistentModel] {
        var result: [any PersistentModel] = []
        for model in models where !result.contains(where: { $0 === model }) { result.append(model) }
        return result
    }

    private func naiveAbsent(_ models: [any PersistentModel], from other: [any PersistentModel]) -> [any PersistentModel] {
        models.filter { model in !other.contains { $0 === model } }
    }

    private func same(_ a: [any PersistentModel], _ b: [any PersistentModel]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
    }

    private func same(_ a: [AnyObject], _ b: [any PersistentModel]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
    }

    @Test("uniqueModels and membershipChanges agree with walking the lists, repeats included")
    func randomLists() {
        var generator = SeededGenerator(seed: 42)
        let pool: [any PersistentModel] = (0..<300).map { Graph.Stop(title: "s\($0)") }
        for round in 0..<300 {
            let size = Int.random(in: 0..<(round % 3 == 0 ? 250 : 20), using: &generator)
            let old = (0..<size).map { _ in pool[Int.random(in: 0..<pool.count, using: &generator)] }
            var new = old
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: new.append(pool[Int.random(in: 0..<pool.count, using: &generator)])
                case 1 where !new.isEmpty: new.remove(at: Int.random(in: 0..<new.count, using: &generator))
                case 2: new.insert(pool[Int.random(in: 0..<pool.count, using: &generator)], at: Int.random(in: 0...new.count, using: &generator))
                default: new.shuffle(using: &generator)
                }
            }
            #expect(same(uniqueModels(new), naiveUnique(new)), "round \(round)")
            let (added, removed) = membershipChanges(from: old.map { $0 as AnyObject }, to: new.map { $0 as AnyObject })
            #expect(same(added, naiveAbsent(new, from: old)), "round \(round): added")
            #expect(same(removed, naiveAbsent(old, from: new)), "round \(round): removed")
        }
    }

    @Test("An identity set grows past its first capacity and finds every object it holds")
    func identitySetGrows() {
        let objects = (0..<5_000).map { Graph.Stop(title: "s\($0)") }
        var set = IdentitySet(capacity: 1)
        var insertedFirst = 0
        for object in objects where set.insert(object) { insertedFirst += 1 }
        #expect(insertedFirst == objects.count)
        #expect(objects.allSatisfy { set.contains($0) })
        var insertedAgain = 0
        for object in objects where set.insert(object) { insertedAgain += 1 }
        #expect(insertedAgain == 0)
        #expect(!set.contains(Graph.Stop(title: "other")))
    }
}
