/// The kinds of failure SwiftData names, as SwiftData's `SwiftDataError`: a
/// struct with one static member per kind, compared with `==` and matched in
/// `catch` clauses.
///
/// ```swift
/// do {
///     let container = try ModelContainer(for: schema, configurations: trips, notes)
/// } catch let error as SwiftDataError where error == .duplicateConfiguration {
///     …
/// } catch SwiftDataError.loadIssueModelContainer {
///     …   // also catches the ModelStoreError of a file that cannot be opened
/// }
/// ```
///
/// ModelStore throws a `SwiftDataError` where SwiftData's API shape causes a
/// failure that ModelStore had no error for (the configuration errors of a
/// container); its `underlying` `ModelStoreError` names the configuration.
/// Every other failure is thrown as the `ModelStoreError` that names the
/// file, entity, property and row, as before; `ModelStoreError.swiftDataError`
/// says which `SwiftDataError` it is, and the `~=` operator lets
/// `catch SwiftDataError.unsupportedPredicate` catch it.
///
/// Two values are equal when they are of the same kind, whatever their
/// `underlying` error.
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kinds, one per SwiftData member.
    enum Code: String, Sendable {
        case includePendingChangesWithBatchSize, sortingPendingChangesWithIdentifiers, unsupportedKeyPath
        case unsupportedPredicate, unsupportedSortDescriptor, historyTokenExpired, invalidTransactionFetchRequest
        case configurationFileNameContainsInvalidCharacters, configurationFileNameTooLong
        case configurationSchemaNotFoundInContainerSchema, duplicateConfiguration
        case loadIssueModelContainer, unknownDataStoreSchema
        case modelValidationFailure, missingModelContext
        case backwardMigration, unknownSchema
    }

    let code: Code
    /// The ModelStore error that says what exactly was wrong, when there is one.
    public let underlying: ModelStoreError?

    init(_ code: Code, underlying: ModelStoreError? = nil) {
        self.code = code
        self.underlying = underlying
    }

    public var description: String {
        underlying.map { "SwiftDataError.\(code.rawValue): \($0.description)" } ?? "SwiftDataError.\(code.rawValue)"
    }

    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// True when `error` is of this kind: a `SwiftDataError` of the same kind,
    /// or a `ModelStoreError` whose `swiftDataError` is. This is what makes
    /// `catch SwiftDataError.loadIssueModelContainer` work.
    public static func ~= (pattern: SwiftDataError, error: any Error) -> Bool {
        if let error = error as? SwiftDataError { return error.code == pattern.code }
        if let error = error as? ModelStoreError { return error.swiftDataError?.code == pattern.code }
        return false
    }

    // MARK: Fetch errors

    /// A fetch with a batch size cannot include the context's pending changes.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize)
    /// A fetch of identifiers cannot be sorted while including pending changes.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers)
    /// A key path names nothing the store holds (ModelStore: `.unknownProperty`).
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath)
    /// A predicate cannot run in the store (ModelStore: `.unsupportedQuery`).
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate)
    /// A sort descriptor cannot run in the store (ModelStore: `.unsupportedQuery`
    /// of a `SortDescriptor`).
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor)
    /// A history fetch after a token cannot give every transaction after it:
    /// some were deleted (`deleteHistory`), or the token is not one this
    /// store issued. Its `underlying` error says which.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired)
    /// A history fetch or delete asked for a transaction type other than
    /// `DefaultHistoryTransaction`, or a delete compared with a token of
    /// another store.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest)

    // MARK: Configuration errors

    /// A configuration's name, which names its default file, holds a `/` or a
    /// NUL character.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(
        .configurationFileNameContainsInvalidCharacters)
    /// A configuration's name makes a file name longer than 255 bytes.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong)
    /// A configuration's schema holds an entity that the container's schema does not.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(
        .configurationSchemaNotFoundInContainerSchema)
    /// Two configurations of one container have the same name or the same
    /// store file, or both leave their schema to the container.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration)

    // MARK: Container errors

    /// The container cannot load a store: the file cannot be opened, is not a
    /// ModelStore store, holds another schema, or its migration failed.
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer)
    /// The store's schema is none the app knows. SwiftData throws it from
    /// macOS 27 / iOS 27 on, `loadIssueModelContainer` before; ModelStore
    /// throws the latter, and never this one.
    public static let unknownDataStoreSchema = SwiftDataError(.unknownDataStoreSchema)

    // MARK: Context errors

    /// A save breaks a rule of the model: a value that cannot be stored, a
    /// to-many count out of its limits, a denied delete, a dangling reference.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure)
    /// An operation needs the object's context, and it has none. Never thrown:
    /// ModelStore reports a missing context with a precondition or nil.
    public static let missingModelContext = SwiftDataError(.missingModelContext)

    // MARK: Migration errors

    /// The store holds a later schema version than the app's. ModelStore
    /// reports that as the schema mismatch it is (`loadIssueModelContainer`):
    /// never thrown.
    public static let backwardMigration = SwiftDataError(.backwardMigration)
    /// The store holds a schema version that the migration plan does not list.
    public static let unknownSchema = SwiftDataError(.unknownSchema)
}

extension ModelStoreError {
    /// The `SwiftDataError` this error is an instance of, or nil when SwiftData
    /// has no such kind (a read-only store, a row deleted elsewhere, a save
    /// conflict, a save SQLite refused, a type not in the schema, …).
    ///
    /// - `.notADatabase`, `.notAModelStore`, `.newerFormat`, `.cannotOpen`,
    ///   `.foreignSchemaObjects`, `.schemaMismatch`, `.invalidSchema`,
    ///   `.invalidConfiguration`, `.migrationFailed`, `.destructiveMigration`,
    ///   `.duplicateValues`, the script errors: `.loadIssueModelContainer`.
    /// - `.noMigrationPath` (the store's version is not in the migration
    ///   plan, or a stage leads out of it): `.unknownSchema`.
    /// - `.invalidValue`, `.deleteDenied`, `.danglingReference`,
    ///   `.relationshipCount`: `.modelValidationFailure`.
    /// - `.unsupportedQuery`: `.unsupportedSortDescriptor` for a sort
    ///   descriptor, `.unsupportedPredicate` otherwise; `.unknownProperty`:
    ///   `.unsupportedKeyPath`.
    /// - `.historyTokenExpired`: `.historyTokenExpired`.
    public var swiftDataError: SwiftDataError? {
        let code: SwiftDataError.Code
        switch self {
        case .notADatabase, .notAModelStore, .newerFormat, .cannotOpen, .foreignSchemaObjects, .schemaMismatch,
            .invalidSchema, .invalidConfiguration, .migrationFailed, .destructiveMigration, .duplicateValues,
            .scriptChecksumMismatch, .invalidMigrationScript:
            code = .loadIssueModelContainer
        case .noMigrationPath:
            code = .unknownSchema
        case .invalidValue, .deleteDenied, .danglingReference, .relationshipCount:
            code = .modelValidationFailure
        case .unsupportedQuery(_, let expression, _):
            code = expression.hasPrefix("SortDescriptor") ? .unsupportedSortDescriptor : .unsupportedPredicate
        case .unknownProperty:
            code = .unsupportedKeyPath
        case .historyTokenExpired:
            code = .historyTokenExpired
        case .readOnlyStore, .rowNotFound, .saveFailed, .entityNotInSchema, .escapingMutations, .notASnapshot,
            .saveConflicts:
            return nil
        }
        return SwiftDataError(code, underlying: self)
    }
}
