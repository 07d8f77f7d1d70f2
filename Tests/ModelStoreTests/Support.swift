import Foundation
import Testing
@testable import ModelStore

/// Where a test's store lives; tests that do not depend on the file run on
/// each: in memory, in a file, and in a file reached through the backend
/// seam (`ForwardingDatabase`), as a foreign database is.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, file, throughSeam
    var testDescription: String { rawValue }
}

/// A container for the test models, on disk or in memory.
struct TestStore {
    let directory: TemporaryDirectory
    let configuration: ModelConfiguration

    init(_ kind: StoreKind = .file) throws {
        directory = try TemporaryDirectory()
        // MODELSTORE_TESTS_THROUGH_SEAM=1 sends every file store of the
        // suites through the seam: a check of the seam against the whole
        // library, run by hand (the suites on every StoreKind run it in CI).
        let kind = kind == .file && ProcessInfo.processInfo.environment["MODELSTORE_TESTS_THROUGH_SEAM"] != nil ? .throughSeam : kind
        switch kind {
        case .inMemory: configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        case .file: configuration = ModelConfiguration(url: directory.file())
        case .throughSeam:
            var configuration = ModelConfiguration(url: directory.file())
            configuration.foreignDatabase = ForwardingDatabase.opener(path: configuration.url.path(percentEncoded: false))
            self.configuration = configuration
        }
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
