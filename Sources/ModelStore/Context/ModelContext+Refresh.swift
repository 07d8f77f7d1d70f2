// Reading the stored values of registered objects again, for merges (see
// ModelContext+Merge.swift): one query per entity for all the rows, then
// the values are taken property by property, as a rollback restores them.

extension ModelContext {
    /// One row read again: its values in an object of its own (made by the
    /// model's row initializer, owned by no context, dropped after), and
    /// the keys of its to-one relationships stored in the row.
    private struct StoredRow {
        let rowID: Int64
        /// The row's version (see ModelContext+Conflicts.swift).
        let version: Int64
        let values: any PersistentModel
        /// By position in the table's relationships that hold a foreign key.
        let foreignKeys: [Int64?]
    }

    /// Reads the rows of `rows` whose objects are registered and gives the
    /// objects the stored values of the properties listed with each row
    /// (nil: all of them). Returns the keys of the rows that are gone.
    /// - Throws: `ModelStoreError` for a row that does not fit the model;
    ///   `SQLiteError` for I/O failures. Objects updated before the error
    ///   keep their new values.
    /// - Complexity: one query; O(rows × properties).
    func reloadRegistered(_ table: EntityTable, rows: [(Int64, PropertyBitSet?)]) throws -> [Int64] {
        // Held while they are updated: the identity map holds them weakly.
        var targets: [Int64: (model: any PersistentModel, properties: PropertyBitSet?)] = [:]
        for (rowID, properties) in rows {
            if let model = registered(table, rowID: rowID) { targets[rowID] = (model, properties) }
        }
        guard !targets.isEmpty else { return [] }
        merging.rowsReread += targets.count
        let type = try modelType(of: table)
        let foreignKeys = table.relationships?.all.filter(\.holdsForeignKey) ?? []
        let sql = "\(table.selectSQL) WHERE \(quoteIdentifier(primaryKeyColumn)) IN (SELECT value FROM json_each(?))"
        var read: [StoredRow] = []
        do {
            let statement = try connection().cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(jsonKeys(targets.keys), at: 1)
            // The values' objects belong to no context: their state never
            // registers, and their relationships are left unresolved (a
            // non-optional to-one is loaded into this context, as a fetch
            // would).
            let link = StateLink(owner: nil, table: table)
            let reader =
                table.hasRelationships
                ? RowRelationshipReader(
                    registryNamed: { _ in nil },
                    load: { [unowned self] relationship, holderRowID, foreignKey in
                        try relatedModels(relationship, holderRowID: holderRowID, foreignKey: foreignKey)
                    }) : nil
            while try statement.step() {
                let rowID = statement.int64(at: 0)
                let keys = foreignKeys.map { relationship -> Int64? in
                    // Column N + 1 is the property with ordinal N.
                    let column = Int32(relationship.ordinal + 1)
                    return statement.isNull(at: column) ? nil : statement.int64(at: column)
                }
                let version = statement.int64(at: table.versionColumn)
                let values = try storedValues(
                    type, table: table, link: link, reader: reader, rowID: rowID, version: version, from: statement)
                read.append(StoredRow(rowID: rowID, version: version, values: values, foreignKeys: keys))
            }
        }
        var missing = Set(targets.keys)
        // Applied after the statement finished: observers told of a change
        // may use the context.
        for row in read {
            missing.remove(row.rowID)
            guard let target = targets[row.rowID] else { continue }
            try take(row, into: target.model, table: table, properties: target.properties, foreignKeys: foreignKeys)
        }
        return missing.sorted()
    }

    private func storedValues<T: PersistentModel>(
        _ type: T.Type, table: EntityTable, link: StateLink, reader: RowRelationshipReader?, rowID: Int64,
        version: Int64, from statement: Statement
    ) throws -> any PersistentModel {
        try PersistentRow.make(
            statement: statement, rowID: rowID, version: version, table: table, link: link, relationships: reader,
            handOver: handOverSlot, T.init(_$row:)
        ).model
    }

    /// Gives `model` the stored values of `row`: a property without unsaved
    /// changes takes the value through its setter (observers are told when
    /// it differs); a changed one keeps its value, and its committed value
    /// becomes the stored one. Relationships are loaded again (see
    /// `reloadToOne` and `refault`).
    private func take(
        _ row: StoredRow, into model: any PersistentModel, table: EntityTable, properties: PropertyBitSet?,
        foreignKeys: [RuntimeRelationship]
    ) throws {
        let state = model._$modelState
        // Undo must not restore, silently, a value older than this one.
        undoRecording?.noteMerge(into: model, properties: properties)
        state.isApplyingStoredValues = true
        for property in table.entity.properties where property.attribute != nil {
            let ordinal = property.ordinal
            if let properties, !properties.contains(ordinal) { continue }
            // An attribute a partial fetch left unread loads on its first
            // read, from the store as it is then.
            if state.faults.contains(ordinal) { continue }
            let value = property.accessor.value(of: row.values)
            if state.dirty.contains(ordinal) {
                // Changed on both sides: the committed value stays the one
                // this context read, so that the save sees the conflict and
                // the merge policy decides; a rollback reads the row again.
                merging.mergedWhileChanged[ObjectIdentifier(model)] = model
            } else {
                _ = property.accessor.setValue(value, of: model)
            }
        }
        state.isApplyingStoredValues = false
        // An object without unsaved changes now matches the stored row, so
        // its next save expects the row's version. One with unsaved changes
        // (or deleted in this context) keeps the version it read: its save
        // then finds the conflict, and the context's merge policy decides
        // between the two sides.
        if state.hasNoUnsavedChanges {
            state.version = row.version
        } else {
            merging.mergedWhileChanged[ObjectIdentifier(model)] = model
        }
        guard let relationships = table.relationships else { return }
        for relationship in relationships.all {
            let ordinal = relationship.ordinal
            if let properties, !properties.contains(ordinal) { continue }
            // Unsaved changes win until saved or rolled back.
            if state.dirty.contains(ordinal) { continue }
            if let index = foreignKeys.firstIndex(where: { $0.ordinal == ordinal }) {
                try reloadToOne(relationship, of: model, key: row.foreignKeys[index])
            } else {
                refault(relationship, of: model)
            }
        }
    }

    /// A to-one stored in the holder's row now holds the row `key`: a
    /// fault takes the new key; a loaded one that changed takes the new
    /// object (registered, else read).
    private func reloadToOne(_ relationship: RuntimeRelationship, of model: any PersistentModel, key: Int64?) throws {
        let state = model._$modelState
        let ordinal = relationship.ordinal
        state.extras?.prefetched[ordinal] = nil
        if state.faults.contains(ordinal) {
            if let key {
                state.makeExtras().faultKeys[ordinal] = key
            } else {
                // A fault's in-memory value is nil, which NULL means.
                state.faults.remove(ordinal)
                state.extras?.faultKeys[ordinal] = nil
            }
            return
        }
        let current = relationship.accessor.loadedModels(of: model)?.first
        if let current, current._$modelState.rowID == key { return }
        if current == nil, key == nil { return }
        let related = try key == nil ? [] : relatedModels(relationship, holderRowID: state.rowID, foreignKey: key)
        setLoaded(related, for: relationship, of: model)
    }

    /// Makes a loaded relationship not stored in the holder's row (a
    /// to-many, many-to-many, or the inverse of a to-one) a fault again,
    /// which loads the stored members on its next read. Observers are told
    /// (the property reads as empty until then).
    private func refault(_ relationship: RuntimeRelationship, of model: any PersistentModel) {
        let state = model._$modelState
        let ordinal = relationship.ordinal
        state.extras?.prefetched[ordinal] = nil
        guard !state.faults.contains(ordinal), state.rowID != nil else { return }
        setLoaded([], for: relationship, of: model)
        state.faults.insert(ordinal)
    }
}
