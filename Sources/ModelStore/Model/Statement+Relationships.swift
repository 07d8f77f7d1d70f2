// Binding a to-one relationship's foreign key needs the related object's
// state, so this overload of `Statement.bindValue` lives in the Model layer;
// the overloads for plain values are the schema layer's
// (Schema/Values/Statement+Values.swift).

extension Statement {
    /// Binds a to-one relationship's foreign key: the related object's row
    /// key, or NULL when there is none or it is not saved yet (the save
    /// pipeline fills that in once the related row exists).
    /// - Throws: `SQLiteError`.
    public func bindValue<Value: RelationshipValue>(_ value: Value, as type: Value.Type, at index: Int32) throws {
        if let rowID = value._firstRelatedModel?._$modelState.rowID {
            try bind(rowID, at: index)
        } else {
            try bindNull(at: index)
        }
    }
}
