import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// store-tool's exit codes, documented in the README.
enum ExitStatus: Int32 {
    /// Everything worked (for `check`: no problems).
    case success = 0
    /// `check` found problems.
    case problemsFound = 1
    /// Bad input: an unknown entity or property, a value that does not
    /// parse, a malformed filter (or one past the filter language's limits),
    /// sort key, identifier or edit, an import file that does not fit the
    /// schema, SQL that does not compile or writes, an output file that is
    /// the store, a path that is not one of the store's migration snapshots.
    case badInput = 2
    /// The object named does not exist.
    case notFound = 3
    /// The store cannot be opened: a missing file, not SQLite, not a store;
    /// or opened for writing: the file or its folder is not writable by
    /// this user (a write command on a read-only store).
    case cannotOpen = 4
    /// The store was written by a newer ModelStore.
    case newerFormat = 5
    /// Another process holds the store's lock longer than `--wait`.
    case locked = 6
    /// The store's rules refuse the change: a required or unique value, a
    /// relationship count, a `.deny` delete rule, a dangling reference.
    case refused = 7
    /// Any other failure (a damaged file, an I/O error on the store).
    case failure = 8
    /// A file the command writes (`export --output`, `backup`'s copy)
    /// cannot be written: its folder is missing or read-only, it exists
    /// where a new file is needed, the disk is full. Nothing is left of it.
    case cannotWrite = 9
}

/// Runs a command's body; any error becomes one line on stderr and its
/// exit status. Nothing is written when a write command fails: writes are
/// one transaction.
func reporting(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        let (status, message) = describe(error)
        Terminal.error(message)
        throw ExitCode(status.rawValue)
    }
}

/// The exit status and one-line message for an error.
func describe(_ error: any Error) -> (ExitStatus, String) {
    switch error {
    case let error as DynamicStoreError:
        switch error {
        case .objectNotFound: return (.notFound, error.description)
        case .unknownEntity(let name, let suggestions):
            return (.badInput, "the store has no entity named '\(name)'" + ProblemText.didYouMean(suggestions))
        case .validationFailed: return (.refused, error.description)
        default: return (.badInput, error.description)
        }
    case let error as ModelStoreError:
        return describe(error)
    case let error as SQLiteError:
        if error.primaryCode == SQLiteError.busy { return (.locked, lockedMessage(error)) }
        if error.primaryCode == SQLiteError.constraint { return (.refused, oneLine(error.description)) }
        // A file or folder that cannot be opened, or a write to a file this
        // user may only read: the store cannot be opened for the command.
        if error.primaryCode == SQLiteError.cannotOpen || error.primaryCode == SQLiteError.readOnly {
            return (.cannotOpen, oneLine(error.description))
        }
        return (.failure, oneLine(error.description))
    case let error as ToolError:
        return (error.status, error.message)
    default:
        return (.failure, oneLine("\(error)"))
    }
}

/// The exit status and message for a library error. Every case is named,
/// with no `default`: a case added to the library must be given its status
/// here (the compiler says so) instead of silently becoming 8, and an error
/// that wraps a lock timeout (a save's, a migration's) is a lock (6).
private func describe(_ error: ModelStoreError) -> (ExitStatus, String) {
    switch error {
    case .cannotOpen, .notADatabase, .notAModelStore: return (.cannotOpen, error.description)
    case .foreignSchemaObjects: return (.cannotOpen, oneLine(error.description))
    case .newerFormat: return (.newerFormat, error.description)
    case .unknownProperty, .unsupportedQuery, .entityNotInSchema: return (.badInput, oneLine(error.description))
    case .deleteDenied, .relationshipCount, .danglingReference: return (.refused, error.description)
    case .invalidMigrationScript, .notASnapshot: return (.badInput, oneLine(error.description))
    case .destructiveMigration, .duplicateValues, .scriptChecksumMismatch, .noMigrationPath:
        return (.refused, oneLine(error.description))
    case .saveFailed(_, _, let underlying) where underlying.primaryCode == SQLiteError.busy:
        return (.locked, lockedMessage(underlying))
    case .saveFailed(_, _, let underlying) where underlying.primaryCode == SQLiteError.constraint:
        return (.refused, oneLine(error.description))
    case .saveFailed(_, _, let underlying) where underlying.primaryCode == SQLiteError.readOnly:
        return (.cannotOpen, oneLine(error.description))
    case .readOnlyStore: return (.cannotOpen, error.description)
    case .rowNotFound: return (.notFound, error.description)
    case .migrationFailed(let path, _, let reason) where reason == ModelStoreError.migrationLockTimeout:
        return (.locked, lockedMessage(path: path) + " (nothing was migrated)")
    case .saveFailed, .migrationFailed, .schemaMismatch, .invalidSchema, .invalidConfiguration, .invalidValue, .escapingMutations,
        .saveConflicts, .historyTokenExpired:
        return (.failure, oneLine(error.description))
    }
}

private func lockedMessage(path: String) -> String {
    "the store \(path) is locked by another process; try again later or raise --wait"
}

private func lockedMessage(_ error: SQLiteError) -> String {
    "the store \(error.path ?? "") is locked by another process; try again later or raise --wait"
}

private func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
}

/// An error of the tool itself, with its exit status.
struct ToolError: Error {
    let status: ExitStatus
    let message: String

    static func badInput(_ message: String) -> ToolError { ToolError(status: .badInput, message: message) }
}
