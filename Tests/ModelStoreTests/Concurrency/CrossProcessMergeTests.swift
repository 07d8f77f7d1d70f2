import Foundation
import Testing
@testable import ModelStore

/// Two containers on one file stand for two processes: they share nothing
/// but the file, and learn of each other's commits through SQLite's
/// `data_version` only.
@Suite("Noticing other processes' commits", .timeLimit(.minutes(10)))
struct CrossProcessMergeTests {
    @Test("A commit through another container is noticed at the next fetch: values, deletes and new rows")
    func otherContainerNoticed() throws {
        let store = try TestStore()
        let here = try mergeContainer(store)
        let seed = ModelContext(here)
        let emma = MergeBook(title: "Emma", pages: 400)
        let odes = MergeBook(title: "Odes", pages: 80)
        seed.insert(emma)
        seed.insert(odes)
        try seed.save()

        let there = try mergeContainer(at: store.url)
        let theirs = ModelContext(there)
        let books = try theirs.fetch(FetchDescriptor<MergeBook>(sortBy: [SortDescriptor(\.title)]))
        books[0].title = "Emma (annotated)"
        theirs.delete(books[1])
        theirs.insert(MergeBook(title: "Persuasion", pages: 300))
        try theirs.save()

        let titles = try seed.fetch(FetchDescriptor<MergeBook>(sortBy: [SortDescriptor(\.title)])).map(\.title)
        #expect(titles == ["Emma (annotated)", "Persuasion"])
        #expect(emma.title == "Emma (annotated)")
        #expect(odes.isDeleted)
    }

    @Test("Unsaved changes survive another process's commit; observers of the container hear of it")
    func unsavedKeptAndObserved() throws {
        let store = try TestStore()
        let here = try mergeContainer(store)
        let context = ModelContext(here)
        let book = MergeBook(title: "Emma", pages: 400)
        context.insert(book)
        try context.save()
        let seen = Collected<StoreChanges>()
        let observation = here.observeChanges { seen.append($0) }
        book.pages = 1

        let there = ModelContext(try mergeContainer(at: store.url))
        let theirs = try #require(try there.fetch(FetchDescriptor<MergeBook>()).first)
        theirs.title = "Emma!"
        theirs.pages = 2
        try there.save()

        context.processPendingChanges()
        #expect(book.title == "Emma!")
        #expect(book.pages == 1)
        #expect(context.committedValue(of: book, \.pages) == 400, "what this context read: a save sees the conflict")
        // Read from the history: what the other process changed, not "everything".
        #expect(seen.elements.contains { !$0.invalidatedAll && $0.updatedIdentifiers == [book.persistentModelID] })
        context.rollback()
        #expect(book.pages == 2, "a rollback reads the row again")
        observation.cancel()
    }

    @Test("This process's own saves are not taken for another process's")
    func ownSavesAreNotForeign() throws {
        let container = try mergeContainer(TestStore())
        let first = ModelContext(container)
        let second = ModelContext(container)
        first.insert(MergeBook(title: "A", pages: 1))
        try first.save()
        _ = try second.fetch(FetchDescriptor<MergeBook>())
        let seen = Collected<StoreChanges>()
        let observation = container.observeChanges { seen.append($0) }
        for step in 0..<5 {
            first.insert(MergeBook(title: "B\(step)", pages: step))
            try first.save()
            _ = try second.fetch(FetchDescriptor<MergeBook>())
            second.insert(MergeBook(title: "C\(step)", pages: step))
            try second.save()
            _ = try first.fetch(FetchDescriptor<MergeBook>())
        }
        #expect(seen.elements.count == 10)
        #expect(!seen.elements.contains { $0.invalidatedAll })
        observation.cancel()
    }
}

@Suite("Contexts under load", .timeLimit(.minutes(10)))
struct ContextLoadTests {
    @Test("8 tasks × 500 saves on one container, each with its own context: nothing lost, every save observed")
    func manyTasksSaving() async throws {
        let container = try mergeContainer(TestStore())
        let workers = 8
        let saves = ProcessInfo.processInfo.environment["MODELSTORE_STRESS"] == "1" ? 5_000 : 500
        let observed = Collected<Int>()
        let observation = container.observeChanges { observed.append($0.insertedIdentifiers.count + $0.updatedIdentifiers.count) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = ModelContext(container)
                    context.author = "worker \(worker)"
                    let counter = MergeCounter(worker: worker, step: 0)
                    context.insert(counter)
                    try context.save()
                    for step in 1..<saves {
                        counter.step = step
                        if step % 10 == 0 {
                            // Reads merge the other workers' saves.
                            _ = try context.fetchCount(FetchDescriptor<MergeCounter>())
                        }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        observation.cancel()
        let context = ModelContext(container)
        let counters = try context.fetch(FetchDescriptor<MergeCounter>(sortBy: [SortDescriptor(\.worker)]))
        #expect(counters.map(\.worker) == Array(0..<workers))
        #expect(counters.allSatisfy { $0.step == saves - 1 })
        #expect(observed.elements.count == workers * saves)
        #expect(observed.elements.allSatisfy { $0 == 1 })
    }

    @Test("@ModelActor actors saving concurrently see each other's saves")
    func modelActors() async throws {
        let container = try mergeContainer(TestStore())
        let actors = (0..<4).map { _ in CounterActor(modelContainer: container) }
        let ids = try await withThrowingTaskGroup(of: PersistentIdentifier.self) { group in
            for (worker, actor) in actors.enumerated() { group.addTask { try await actor.insert(worker: worker) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Each actor watches every counter; each bumps its own.
        for actor in actors { _ = try await actor.steps(of: ids) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, actor) in actors.enumerated() { group.addTask { try await actor.bump(ids[index], times: 50) } }
            try await group.waitForAll()
        }
        for actor in actors {
            #expect(try await actor.steps(of: ids) == Array(repeating: 50, count: ids.count))
        }
    }
}

@ModelActor
actor CounterActor {
    func insert(worker: Int) throws -> PersistentIdentifier {
        let counter = MergeCounter(worker: worker, step: 0)
        modelContext.insert(counter)
        try modelContext.save()
        return counter.persistentModelID
    }

    func bump(_ id: PersistentIdentifier, times: Int) throws {
        guard let counter = modelContext.model(for: id) as? MergeCounter else { return }
        for _ in 0..<times {
            counter.step += 1
            try modelContext.save()
        }
    }

    /// The steps of the counters, as this actor's objects hold them after a fetch.
    func steps(of ids: [PersistentIdentifier]) throws -> [Int] {
        _ = try modelContext.fetchCount(FetchDescriptor<MergeCounter>())
        return ids.map { (modelContext.model(for: $0) as? MergeCounter)?.step ?? -1 }
    }
}
