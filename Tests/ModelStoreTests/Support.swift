import Foundation
import Testing
@testable import ModelStore

/// Where a test's store lives; tests that do not depend on the file run on
/// each: in memory, in a file, in a file reached through the backend seam
/// (`ForwardingDatabase`), as a foreign database is, and in PostgreSQL
/// (see PostgresTestStore.swift).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory, file, throughSeam, postgres
    var testDescription: String { rawValue }

    /// Every kind this run has: PostgreSQL when a server is given
    /// (`MODELSTORE_POSTGRES_URL`) or in CI, where a missing server fails
    /// the PostgreSQL cases instead of skipping them.
    /// A SQLite file and, when this run has it, PostgreSQL: the backends
    /// of the suites that compare answers (predicates, sorts).
    static var backends: [StoreKind] { PostgresTestSchema.isAvailable ? [.file, .postgres] : [.file] }

    static var allCases: [StoreKind] {
        PostgresTestSchema.isAvailable ? [.inMemory, .file, .throughSeam, .postgres] : [.inMemory, .file, .throughSeam]
    }
}

/// A container for the test models, on disk or in memory.
struct TestStore {
    let directory: TemporaryDirectory
    let configuration: ModelConfiguration
    /// The PostgreSQL schema of a `.postgres` store, dropped with the last copy.
    let postgresSchema: PostgresTestSchema?

    init(_ kind: StoreKind = .file) throws {
        directory = try TemporaryDirectory()
        // MODELSTORE_TESTS_THROUGH_SEAM=1 sends every file store of the
        // suites through the seam: a check of the seam against the whole
        // library, run by hand (the suites on every StoreKind run it in CI).
        // MODELSTORE_TESTS_ON_POSTGRES=1 does the same with PostgreSQL.
        let environment = ProcessInfo.processInfo.environment
        var kind = kind == .file && environment["MODELSTORE_TESTS_THROUGH_SEAM"] != nil ? .throughSeam : kind
        if kind == .file && Self.fileStoresAreOnPostgres { kind = .postgres }
        postgresSchema = kind == .postgres ? try PostgresTestSchema() : nil
        switch kind {
        case .inMemory: configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        case .file: configuration = ModelConfiguration(url: directory.file())
        case .throughSeam:
            var configuration = ModelConfiguration(url: directory.file())
            configuration.foreignDatabase = ForwardingDatabase.opener(path: configuration.url.path(percentEncoded: false))
            self.configuration = configuration
        case .postgres:
            guard let postgresSchema else { throw PostgresTestSchema.NotStarted() }
            configuration = try postgresSchema.configuration()
        }
    }

    var url: URL { configuration.url }

    /// True in CI's PostgreSQL pass (`MODELSTORE_TESTS_ON_POSTGRES`), where
    /// every file store the suites make is a PostgreSQL schema instead.
    static var fileStoresAreOnPostgres: Bool {
        ProcessInfo.processInfo.environment["MODELSTORE_TESTS_ON_POSTGRES"] != nil
    }

    func container(_ types: [any PersistentModel.Type] = [Trip.self, AllTypes.self, Account.self, Note.self]) throws
        -> ModelContainer
    {
        try ModelContainer(for: Schema(types), configurations: [configuration])
    }
}

extension Trait where Self == ConditionTrait {
    /// Marks a test that opens its store's SQLite file itself (raw SQL as
    /// an operator's, `StoreFile`, store-tool's layer). The PostgreSQL pass,
    /// where that store is a PostgreSQL schema, skips the test and runs the
    /// rest of its suite.
    static var opensStoreFile: Self {
        .disabled(if: TestStore.fileStoresAreOnPostgres, "opens the store's SQLite file; in this pass the store is on PostgreSQL")
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
