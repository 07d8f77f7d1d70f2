import Foundation
import Testing
@testable import ModelStore

/// Where a test's store lives; tests that do not depend on the file run on both.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, file
    var testDescription: String { rawValue }
}

/// A container for the test models, on disk or in memory.
struct TestStore {
    let directory: TemporaryDirectory
    let configuration: ModelConfiguration

    init(_ kind: StoreKind = .file) throws {
        directory = try TemporaryDirectory()
        configuration =
            kind == .inMemory ? ModelConfiguration(isStoredInMemoryOnly: true) : ModelConfiguration(url: directory.file())
    }

    var url: URL { configuration.url }

    func container(_ types: [any PersistentModel.Type] = [Trip.self, AllTypes.self, Account.self, Note.self]) throws
        -> ModelContainer
    {
        try ModelContainer(for: Schema(types), configurations: [configuration])
    }
}

func makeTrip(_ name: String = "Lisbon", destination: String = "Portugal") -> Trip {
    Trip(name: name, destination: destination, startDate: Date(timeIntervalSince1970: 1_700_000_000))
}

extension TestStore {
    /// Saves `count` trips named T0, T1, … through a context of its own and
    /// returns the container, so that tests start from clean, saved rows.
    func containerWithSavedTrips(_ count: Int) throws -> ModelContainer {
        let container = try container()
        let writer = ModelContext(container)
        for index in 0..<count { writer.insert(makeTrip("T\(index)")) }
        try writer.save()
        return container
    }
}
