import Foundation
import Testing
@testable import ModelStore

/// `SortDescriptor(\.name, comparator: .localizedStandard)` and `.localized`,
/// which Foundation on Linux lacks: a fetch orders exactly as Foundation's
/// `localizedStandardCompare` and `localizedCompare` do.
@Suite struct LocalizedSortTests {
    /// Case, diacritics (composed and not), numbers of several lengths,
    /// width variants, ligatures, empty, non-Latin scripts and emoji.
    static let names = [
        "file10", "file2", "File3", "file02", "file1", "éclair", "eclair", "Eclair", "Éclair", "E\u{301}clair", "", " ",
        "zebra", "Zebra", "ábc", "abc", "ABC", "日本", "にほん", "αβγ", "Ωmega", "ß", "ss", "SS", "ﬀ", "ff", "ＦＵＬＬ", "full",
        "x9", "x09", "x10", "Café", "Cafe\u{301}", "cafe", "a-b", "a b", "ab", "Ab", "1", "01", "10", "-1", "👍🏽", "Ärger", "Arger",
    ]

    let store: TestStore
    let container: ModelContainer

    init() throws {
        store = try TestStore()
        container = try store.container(Q.types)
        let context = ModelContext(container)
        let makers = [Q.Maker("M1", country: "Österreich"), Q.Maker("M2", country: "oman"), Q.Maker("M3")]
        for (index, name) in Self.names.enumerated() {
            let gadget = Q.Gadget(name, note: index % 4 == 0 ? nil : Self.names[(index * 7) % Self.names.count], count: index)
            context.insert(gadget)
            gadget.maker = makers[index % 3]
        }
        try context.save()
    }

    /// The fetch's order is `sorted(using:)`'s, and that is Foundation's
    /// method's order (ties by insertion, which is row order).
    func expectSameOrder(
        _ sortBy: [SortDescriptor<Q.Gadget>], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let context = ModelContext(container)
        let counter = try StatementCounter(context)
        let viaSQL = try context.fetch(FetchDescriptor(sortBy: sortBy)).map(\.count)
        // SQLite sorts through the Swift collation it is given; PostgreSQL
        // has no such collation, so there the rows are sorted in Swift.
        if store.postgresSchema == nil {
            #expect(counter.statements.first?.contains("COLLATE MODELSTORE_LOCALIZED") == true, sourceLocation: sourceLocation)
        }
        let all = try context.fetch(FetchDescriptor<Q.Gadget>(sortBy: [SortDescriptor(\.count)]))
        let inMemory = all.sorted(using: sortBy + [SortDescriptor(\.count)]).map(\.count)
        #expect(viaSQL == inMemory, "\(label)", sourceLocation: sourceLocation)
    }

    @Test func localizedStandardIsFoundationsOrder() throws {
        let context = ModelContext(container)
        let fetched = try context.fetch(FetchDescriptor(sortBy: [SortDescriptor(\Q.Gadget.name, comparator: .localizedStandard)]))
        let expected = Self.names.enumerated().sorted { lhs, rhs in
            switch lhs.element.localizedStandardCompare(rhs.element) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }
        #expect(fetched.map(\.name) == expected.map(\.element))
        let names = fetched.map(\.name)
        let file2 = try #require(names.firstIndex(of: "file2"))
        let file10 = try #require(names.firstIndex(of: "file10"))
        #expect(file2 < file10, "digits compare by value")
    }

    @Test func localizedIsFoundationsOrder() throws {
        let context = ModelContext(container)
        let fetched = try context.fetch(FetchDescriptor(sortBy: [SortDescriptor(\Q.Gadget.name, comparator: .localized)]))
        let expected = Self.names.enumerated().sorted { lhs, rhs in
            switch lhs.element.localizedCompare(rhs.element) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }
        #expect(fetched.map(\.name) == expected.map(\.element))
    }

    @Test func everyShapeAgreesWithSortedUsing() throws {
        for order in [SortOrder.forward, .reverse] {
            try expectSameOrder([SortDescriptor(\.name, comparator: .localizedStandard, order: order)], "standard \(order)")
            try expectSameOrder([SortDescriptor(\.name, comparator: .localized, order: order)], "localized \(order)")
            try expectSameOrder([SortDescriptor(\.note, comparator: .localizedStandard, order: order)], "optional \(order)")
            try expectSameOrder([SortDescriptor(\.note, comparator: .localized, order: order)], "optional localized \(order)")
            try expectSameOrder(
                [SortDescriptor(\.maker?.country, comparator: .localizedStandard, order: order)], "through a to-one \(order)")
        }
        try expectSameOrder([SortDescriptor(\.name, comparator: LocalizedStringComparator(.localizedStandard, order: .reverse))], "comparator's order")
        try expectSameOrder([SortDescriptor(\.name, comparator: String.StandardComparator.localizedStandard)], "spelled out")
        try expectSameOrder(
            [SortDescriptor(\.maker?.name, comparator: .localized), SortDescriptor(\.name, comparator: .localizedStandard)], "two keys")
    }

    @Test func pendingChangesMergeInTheSameOrder() throws {
        let context = ModelContext(container)
        context.insert(Q.Gadget("file3", count: 1_000))
        context.insert(Q.Gadget("Eclair", count: 1_001))
        let sortBy = [SortDescriptor(\Q.Gadget.name, comparator: .localizedStandard)]
        let merged = try context.fetch(FetchDescriptor(sortBy: sortBy)).map(\.count)
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor(sortBy: sortBy)).map(\.count)
        #expect(merged == stored)
    }

    @Test func theComparatorComparesAsFoundation() {
        let comparator = LocalizedStringComparator.localizedStandard
        #expect(comparator.compare("file2", "file10") == .orderedAscending)
        #expect(LocalizedStringComparator(comparator, order: .reverse).compare("file2", "file10") == .orderedDescending)
        #expect(LocalizedStringComparator.localized.compare("b", "A") == "b".localizedCompare("A"))
        #expect(Self.names.sorted(using: comparator) == Self.names.sorted { $0.localizedStandardCompare($1) == .orderedAscending })
    }
}
