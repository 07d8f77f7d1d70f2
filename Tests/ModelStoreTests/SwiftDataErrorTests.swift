import Foundation
import Testing
@testable import ModelStore

@Suite struct SwiftDataErrorTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Runs `body` and returns what it threw.
    func thrown(_ body: () throws -> Void) -> (any Error)? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func valuesOfOneKindAreEqualWhateverTheirUnderlyingError() {
        let detailed = SwiftDataError(.duplicateConfiguration, underlying: .invalidConfiguration(name: "a", reason: "b"))
        #expect(detailed == .duplicateConfiguration)
        #expect(detailed != .unknownSchema)
        #expect(Set([detailed, .duplicateConfiguration, .loadIssueModelContainer]).count == 2)
        #expect("\(detailed)".contains("duplicateConfiguration"))
        #expect("\(detailed)".contains("configuration a: b"))
    }

    @Test func twoConfigurationsWithOneNameAreADuplicateConfiguration() {
        let a = ModelConfiguration("store", schema: Schema([Split.Memo.self]), url: directory.file("a.store"))
        let b = ModelConfiguration("store", schema: Schema([Split.Label.self]), url: directory.file("b.store"))
        let error = thrown { _ = try ModelContainer(for: Split.Memo.self, Split.Label.self, configurations: a, b) }
        let swiftDataError = error as? SwiftDataError
        #expect(swiftDataError == .duplicateConfiguration)
        #expect(swiftDataError?.underlying == .invalidConfiguration(name: "store", reason: "two configurations of the container have this name"))
    }

    @Test func twoConfigurationsOfOneFileAreADuplicateConfiguration() {
        let a = ModelConfiguration("a", schema: Schema([Split.Memo.self]), url: directory.file("x.store"))
        let b = ModelConfiguration("b", schema: Schema([Split.Label.self]), url: directory.file("x.store"))
        let error = thrown { _ = try ModelContainer(for: Split.Memo.self, Split.Label.self, configurations: a, b) }
        #expect(error as? SwiftDataError == .duplicateConfiguration)
        #expect("\(error.map { "\($0)" } ?? "")".contains("x.store"))
    }

    @Test func twoConfigurationsWithoutSchemaAreADuplicateConfiguration() {
        let a = ModelConfiguration("a", url: directory.file("a.store"))
        let b = ModelConfiguration("b", url: directory.file("b.store"))
        let error = thrown { _ = try ModelContainer(for: Split.Memo.self, configurations: a, b) }
        #expect(error as? SwiftDataError == .duplicateConfiguration)
    }

    @Test func aConfigurationSchemaOutsideTheContainerSchemaIsRefused() {
        let a = ModelConfiguration("a", schema: Schema([Split.Label.self]), url: directory.file("a.store"))
        let b = ModelConfiguration("b", url: directory.file("b.store"))
        let error = thrown { _ = try ModelContainer(for: Split.Memo.self, configurations: a, b) }
        let swiftDataError = error as? SwiftDataError
        #expect(swiftDataError == .configurationSchemaNotFoundInContainerSchema)
        #expect("\(swiftDataError.map { "\($0)" } ?? "")".contains("Label"))
    }

    @Test func aConfigurationNameThatCannotNameAFileIsRefused() {
        let slash = ModelConfiguration("trips/2025", isStoredInMemoryOnly: false)
        #expect(thrown { _ = try ModelContainer(for: Split.Memo.self, configurations: slash) } as? SwiftDataError
            == .configurationFileNameContainsInvalidCharacters)
        let long = ModelConfiguration(String(repeating: "n", count: 250), isStoredInMemoryOnly: false)
        #expect(thrown { _ = try ModelContainer(for: Split.Memo.self, configurations: long) } as? SwiftDataError
            == .configurationFileNameTooLong)
    }

    @Test func aMigrationPlanWithSeveralConfigurationsIsRefused() {
        let a = ModelConfiguration("a", schema: Schema([Split.Memo.self]), url: directory.file("a.store"))
        let b = ModelConfiguration("b", schema: Schema([Split.Label.self]), url: directory.file("b.store"))
        let error = thrown {
            _ = try ModelContainer(
                for: Schema([Split.Memo.self, Split.Label.self]), migrationPlan: SplitPlan.self, configurations: a, b)
        }
        guard case ModelStoreError.invalidConfiguration(let name, let reason)? = error as? ModelStoreError else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(name == "a" && reason.contains("migration plan"))
        #expect(SwiftDataError.loadIssueModelContainer ~= error!)
    }

    @Test func aFileThatCannotBeLoadedCatchesAsLoadIssueModelContainer() throws {
        let url = directory.file("junk.store")
        try Data(repeating: 7, count: 4096).write(to: url)
        var caught = false
        do {
            _ = try ModelContainer(for: Split.Memo.self, configurations: ModelConfiguration(url: url))
        } catch SwiftDataError.loadIssueModelContainer {
            caught = true
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(caught)
        // The ModelStore error is still what is thrown, with its detail.
        #expect(throws: ModelStoreError.notADatabase(path: url.path(percentEncoded: false))) {
            _ = try ModelContainer(for: Split.Memo.self, configurations: ModelConfiguration(url: url))
        }
    }

    @Test func fetchErrorsMatchTheirSwiftDataKinds() throws {
        let context = ModelContext(try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let predicate = thrown { _ = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.nights == 3 })) }
        #expect(predicate.map { SwiftDataError.unsupportedPredicate ~= $0 } == true)
        #expect(predicate.map { SwiftDataError.unsupportedSortDescriptor ~= $0 } == false)
        let sort = thrown { _ = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.nights)])) }
        #expect(sort.map { SwiftDataError.unsupportedSortDescriptor ~= $0 } == true)
        #expect((sort as? ModelStoreError)?.swiftDataError == .unsupportedSortDescriptor)
    }

    @Test func aValueThatCannotBeStoredIsAModelValidationFailure() throws {
        let context = ModelContext(try ModelContainer(for: AllTypes.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let object = AllTypes()
        object.uint64 = .max
        context.insert(object)
        let error = thrown { try context.save() }
        #expect(error.map { SwiftDataError.modelValidationFailure ~= $0 } == true)
        #expect(error is ModelStoreError)
    }

    @Test func everyModelStoreErrorMapsAsDocumented() {
        let path = "/tmp/x.store"
        let sqlite = SQLiteError(extendedCode: 1, message: "m", sql: nil)
        let cases: [(ModelStoreError, SwiftDataError?)] = [
            (.notADatabase(path: path), .loadIssueModelContainer),
            (.notAModelStore(path: path, reason: "r"), .loadIssueModelContainer),
            (.newerFormat(path: path, found: 9, supported: 1), .loadIssueModelContainer),
            (.cannotOpen(path: path, reason: "r"), .loadIssueModelContainer),
            (.foreignSchemaObjects(path: path, objects: []), .loadIssueModelContainer),
            (.schemaMismatch(path: path, differences: []), .loadIssueModelContainer),
            (.invalidSchema(reason: "r"), .loadIssueModelContainer),
            (.invalidConfiguration(name: "n", reason: "r"), .loadIssueModelContainer),
            (.migrationFailed(path: path, step: "s", reason: "r"), .loadIssueModelContainer),
            (.destructiveMigration(path: path, changes: []), .loadIssueModelContainer),
            (.duplicateValues(entity: "E", attributes: [], rows: [], path: path), .loadIssueModelContainer),
            (.scriptChecksumMismatch(script: "s", recorded: "a", found: "b"), .loadIssueModelContainer),
            (.invalidMigrationScript(script: "s", reason: "r"), .loadIssueModelContainer),
            (.noMigrationPath(path: path, reason: "r"), .unknownSchema),
            (.invalidValue(entity: "E", property: "p", row: nil, reason: "r", path: nil), .modelValidationFailure),
            (.deleteDenied(object: "o", relationship: "r", blockers: []), .modelValidationFailure),
            (.danglingReference(path: path), .modelValidationFailure),
            (.relationshipCount(object: "o", relationship: "r", count: 0, minimum: 1, maximum: nil), .modelValidationFailure),
            (.unsupportedQuery(entity: "E", expression: "KeyPath", reason: "r"), .unsupportedPredicate),
            (.unsupportedQuery(entity: "E", expression: "SortDescriptor(\\E.x)", reason: "r"), .unsupportedSortDescriptor),
            (.unknownProperty(entity: "E", property: "p"), .unsupportedKeyPath),
            (.readOnlyStore(path: path), nil),
            (.rowNotFound(entity: "E", row: 1, path: path), nil),
            (.saveFailed(entity: "E", row: nil, underlying: sqlite), nil),
            (.entityNotInSchema(entity: "E"), nil),
            (.escapingMutations(entity: "E", objects: []), nil),
            (.notASnapshot(path: path, store: path), nil),
        ]
        for (error, expected) in cases {
            #expect(error.swiftDataError == expected, "\(error)")
            #expect(error.swiftDataError?.underlying == (expected == nil ? nil : error))
            if let expected { #expect(expected ~= error) }
            #expect(!(SwiftDataError.missingModelContext ~= error))
        }
    }
}

/// A plan, only to be refused with several configurations.
enum SplitPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SplitV1.self] }
    static var stages: [MigrationStage] { [] }
}

enum SplitV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Split.Memo.self, Split.Label.self] }
}
