import Foundation

extension ModelContext {
    /// The transactions of the store's change history that `descriptor`
    /// describes, oldest first unless it sorts them, as SwiftData's
    /// `fetchHistory(_:)`. Each save of a context and each store-tool edit is
    /// one transaction. Unsaved changes are not in the history.
    ///
    /// A store opened from an older format (before 3) has no history before
    /// it was upgraded: its first transaction is the first save after the
    /// upgrade, and until then the history is empty (`[]`). A read-only
    /// store of an older format is not upgraded and always returns `[]`.
    ///
    /// With several configurations, the history is the first writable
    /// store's, and lists the changes of every store of the container.
    ///
    /// - Throws: `SwiftDataError.historyTokenExpired` when the predicate asks
    ///   for the transactions after a token (`$0.token > token`, or `>=`)
    ///   and some of them were deleted (`deleteHistory`, `store-tool history
    ///   --prune-before`), so that the app would miss changes; also for a
    ///   token of another store, or one later than any this store issued
    ///   (the file was replaced or restored): refetch the objects instead.
    ///   `SwiftDataError.invalidTransactionFetchRequest` for a transaction
    ///   type other than `DefaultHistoryTransaction`.
    ///   `ModelStoreError.invalidValue` naming the history table for a
    ///   change of an entity the container's schema does not have (an
    ///   entity removed by a migration since: prune the history before it).
    ///   `SQLiteError` when the store cannot be read.
    /// - Complexity: O(transactions read and their changes); a predicate
    ///   whose token, author and timestamp comparisons are at its top level
    ///   reads only the transactions they allow.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        let descriptor = try defaultDescriptor(descriptor)
        let connection = try connection()
        let transactions = try connection.withReadSnapshot {
            try selectHistory(descriptor, connection: connection, checkingExpiry: true)
        }
        guard let result = transactions as? [T] else { throw SwiftDataError.invalidTransactionFetchRequest }
        return result
    }

    /// Deletes the transactions of the change history (and their changes)
    /// that `fetchHistory(descriptor)` returns, as SwiftData's
    /// `deleteHistory(_:)`: `#Predicate { $0.token < token }` prunes what
    /// came before a token. A reader whose token is before a deleted
    /// transaction gets `historyTokenExpired` when it next asks for the
    /// transactions after it. The objects themselves are not changed.
    /// - Throws: `ModelStoreError.readOnlyStore` for a read-only store;
    ///   `SwiftDataError.invalidTransactionFetchRequest` for a transaction
    ///   type other than `DefaultHistoryTransaction`, and for a token of
    ///   another store; the errors of `fetchHistory` otherwise, with
    ///   nothing deleted.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        let descriptor = try defaultDescriptor(descriptor)
        guard store.configuration.allowsSave else { throw ModelStoreError.readOnlyStore(path: store.path) }
        let connection = try connection()
        guard try ChangeHistory.exists(connection: connection) else { return }
        // A local commit for the coordinator (ChangeCoordinator.swift), so
        // that the container's contexts do not take it for another
        // process's commit that recorded no history, which they would
        // merge by reading again everything they hold.
        var commit = beginCommit()
        do {
            try connection.transaction {
                transactionDidBegin(&commit, connection: connection)
                let selected = try selectHistory(descriptor, connection: connection, checkingExpiry: false)
                _ = try ChangeHistory.delete(tokens: selected.map(\.transactionIdentifier), connection: connection)
            }
        } catch {
            endCommit(commit, changes: nil, connection: connection)
            throw error
        }
        endCommit(commit, changes: nil, connection: connection)
    }

    private func defaultDescriptor<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw SwiftDataError.invalidTransactionFetchRequest
        }
        return descriptor
    }

    /// The transactions `descriptor` selects; inside a read or write transaction.
    private func selectHistory(
        _ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, connection: Connection, checkingExpiry: Bool
    ) throws -> [DefaultHistoryTransaction] {
        var narrowing = HistoryNarrowing(descriptor.predicate, storeIdentifier: store.identifier)
        if let foreign = narrowing.foreignToken {
            if !checkingExpiry { throw SwiftDataError.invalidTransactionFetchRequest }
            throw SwiftDataError(
                .historyTokenExpired,
                underlying: .historyTokenExpired(
                    path: store.path, token: foreign.value,
                    reason: "the token is of store \(foreign.storeIdentifier), not of this store (\(store.identifier))"))
        }
        if checkingExpiry, let after = narrowing.catchUpAfter,
            let expiry = try ChangeHistory.expiry(after: after, connection: connection)
        {
            throw SwiftDataError(
                .historyTokenExpired,
                underlying: .historyTokenExpired(path: store.path, token: after, reason: expiry.reason(token: after)))
        }
        if narrowing.isExact && descriptor.sortBy.isEmpty { narrowing.range.limit = descriptor.fetchLimit }
        let records = try ChangeHistory.transactions(in: narrowing.range, connection: connection, path: store.path)
        var transactions = try records.map { try historyTransaction($0, connection: connection) }
        if !narrowing.isExact, let predicate = descriptor.predicate {
            transactions = try transactions.filter { try predicate.evaluate($0) }
        }
        if !descriptor.sortBy.isEmpty { transactions.sort(using: descriptor.sortBy) }
        if let limit = descriptor.fetchLimit, transactions.count > limit { transactions.removeLast(transactions.count - limit) }
        return transactions
    }

    private func historyTransaction(_ record: RecordedTransaction, connection: Connection) throws -> DefaultHistoryTransaction {
        DefaultHistoryTransaction(
            token: DefaultHistoryToken(storeIdentifier: store.identifier, value: record.token),
            transactionIdentifier: record.token, author: record.author,
            timestamp: Date(timeIntervalSince1970: record.timestamp), bundleIdentifier: record.bundleIdentifier,
            processIdentifier: record.processIdentifier, storeIdentifier: store.identifier,
            changes: try record.changes.map { try historyChange($0, connection: connection) })
    }

    private func historyChange(_ change: RecordedChange, connection: Connection) throws -> HistoryChange {
        guard let table = store.table(named: change.entity), let type = store.modelType(of: table) else {
            throw ModelStoreError.invalidValue(
                entity: ChangeHistory.changesTable, property: "entity", row: change.id,
                reason: "token \(change.token) changed \(change.entity):\(change.row), and the container's schema has no "
                    + "entity \(change.entity) (removed by a migration?); delete the history up to token \(change.token) "
                    + "(deleteHistory, or store-tool history --prune-before \(change.token + 1))",
                path: store.path)
        }
        return try HistoryChangeBuilder(change: change, table: table, connection: connection, path: store.path).make(type)
    }
}

/// Makes the typed change of a recorded one, for the model class of its entity.
private struct HistoryChangeBuilder {
    let change: RecordedChange
    let table: EntityTable
    let connection: Connection
    let path: String

    func make<Model: PersistentModel>(_ type: Model.Type) throws -> HistoryChange {
        let identifier = PersistentIdentifier.permanent(
            entityName: table.name, storeIdentifier: table.storeIdentifier, rowID: change.row)
        switch change.kind {
        case .insert:
            return .insert(
                DefaultHistoryInsert<Model>(
                    changeIdentifier: change.id, changedPersistentIdentifier: identifier, transactionIdentifier: change.token))
        case .update:
            let names = Set(change.properties ?? [])
            let keyPaths = Model._$persistentProperties.filter { names.contains($0.name) }.compactMap {
                sendableCast($0.keyPath, to: (any PartialKeyPath<Model> & Sendable).self)
            }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changeIdentifier: change.id, changedPersistentIdentifier: identifier, transactionIdentifier: change.token,
                    updatedAttributes: keyPaths))
        case .delete:
            return .delete(
                DefaultHistoryDelete<Model>(
                    changeIdentifier: change.id, changedPersistentIdentifier: identifier, transactionIdentifier: change.token,
                    tombstone: try tombstone(Model.self)))
        }
    }

    /// The preserved values, each read as its column would be: the export
    /// form becomes the stored value, which the property's own coder reads.
    private func tombstone<Model: PersistentModel>(_ type: Model.Type) throws -> HistoryTombstone<Model> {
        guard let text = change.tombstone else { return HistoryTombstone(entries: []) }
        func invalid(_ property: String, _ reason: String) -> ModelStoreError {
            .invalidValue(
                entity: table.name, property: property, row: change.row,
                reason: "its preserved value in the history (token \(change.token)) \(reason)", path: path)
        }
        guard let values = try? JSONDecoder().decode([String: ExchangeJSON].self, from: Data(text.utf8)) else {
            throw invalid("tombstone", "is not a JSON object")
        }
        var entries: [HistoryTombstone<Model>.Entry] = []
        for property in Model._$persistentProperties {
            guard let json = values[property.name], let attribute = property.attribute,
                let keyPath = sendableCast(property.keyPath, to: (any PartialKeyPath<Model> & Sendable).self)
            else { continue }
            guard json != .null else {
                entries.append(.init(keyPath: keyPath, value: nil))
                continue
            }
            guard let coding = property.storedValueCoding else { continue }
            let stored: DynamicValue
            switch ValueJSON.value(json, as: attribute.kind) {
            case .success(let value): stored = value
            case .failure(let failure): throw invalid(property.name, failure.reason)
            }
            let statement = try connection.valueStatement("SELECT ?1")
            defer { statement.reset() }
            try statement.bind(stored.storedValue, at: 1)
            _ = try statement.step()
            let value: Any
            do {
                value = try coding.read(statement, 0)
            } catch {
                throw invalid(property.name, "cannot be read: \(error)")
            }
            entries.append(.init(keyPath: keyPath, value: sendableCast(value, to: (any Sendable).self)))
        }
        return HistoryTombstone(entries: entries)
    }
}

/// `value as? U`, where `U` may be a `Sendable` existential: Swift refuses a
/// cast to a marker protocol written out, and allows it through a generic
/// parameter; at run time the cast checks the rest of `U` (a key path's root
/// and value types). Used for a key path, immutable once formed, which the
/// standard library does not yet mark `Sendable`, and for an attribute's
/// stored value, which a model's attribute types are.
private func sendableCast<T, U>(_ value: T, to type: U.Type) -> U? { value as? U }
