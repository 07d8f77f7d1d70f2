import Foundation
import ModelStore

/// 10. Set one tracked property 1,000,000 times: a ModelStore object attached
/// to a context (so dirty tracking runs) vs an `@Observable` class (the
/// baseline of this workload) vs a plain class. SQLite plays no part.
struct PropertySetWorkload: Workload {
    let number = 10
    let title = "Set 1 property 1,000,000 times"
    let target = Target.ratio(1.2)
    var baseline: ContenderName { .observable }

    func cases(scale: Scale) -> [Case] {
        let count = scale.propertySets
        let check = { (value: Int) in try expect(value, count - 1, "last value set") }
        return [
            Case(contender: .modelStore) { scratch in
                let context = ModelContext(try Fixture.itemStore(scratch, rows: 0))
                let item = Item(number: -1, name: "x", score: 0, rank: 0, created: Date(timeIntervalSince1970: 0), flag: false)
                context.insert(item)
                try context.save()
                return Trial(run: { Self.set(item, count: count) }, check: {
                    try check(item.number)
                    try expect(item.modelContext === context, true, "object attached to its context")
                    try expect(context.changedModelsArray.count, 1, "objects the context tracks as changed")
                })
            },
            Case(contender: .observable) { _ in
                let counter = ObservableCounter()
                return Trial(run: { Self.set(counter, count: count) }, check: { try check(counter.number) })
            },
            Case(contender: .plainClass) { _ in
                let counter = PlainCounter()
                return Trial(run: { Self.set(counter, count: count) }, check: { try check(counter.number) })
            },
        ]
    }

    @inline(never)
    private static func set(_ item: Item, count: Int) {
        for value in 0..<count { item.number = value }
    }

    @inline(never)
    private static func set(_ counter: ObservableCounter, count: Int) {
        for value in 0..<count { counter.number = value }
    }

    @inline(never)
    private static func set(_ counter: PlainCounter, count: Int) {
        for value in 0..<count { counter.number = value }
    }
}
