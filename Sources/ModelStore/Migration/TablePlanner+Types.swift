/// The column definitions and type changes a plan needs.
extension TablePlanner {
    /// A foreign-key column added with ALTER TABLE, as `SchemaSQL.createTable` defines it.
    static func foreignKeyDefinition(_ column: String, _ destination: String) -> String {
        "\(quoteIdentifier(column)) INTEGER REFERENCES \(quoteIdentifier(destination)) "
            + "(\(quoteIdentifier(primaryKeyColumn))) DEFERRABLE INITIALLY DEFERRED"
    }

    /// Widening changes keep every value: a smaller integer into a larger
    /// one, Float into Double, an enum into its raw value's type.
    static func isWidening(from old: Schema.Attribute, to new: Schema.Attribute) -> Bool {
        if old.kind == new.kind {
            return old.representation == new.representation
                || (old.representation == .rawValue && new.representation == .primitive)
        }
        guard old.representation == new.representation else { return false }
        let signed: [ValueKind] = [.int8, .int16, .int32, .int64]
        let unsigned: [ValueKind] = [.uint8, .uint16, .uint32]
        func rank(_ kind: ValueKind) -> Int? {
            switch kind {
            case .int: signed.count - 1
            default: signed.firstIndex(of: kind)
            }
        }
        switch (old.kind, new.kind) {
        case (.float, .double): return true
        case (.int, .int64), (.int64, .int): return true
        default: break
        }
        if let from = rank(old.kind), let to = rank(new.kind) { return from < to }
        if let from = unsigned.firstIndex(of: old.kind) {
            if let to = unsigned.firstIndex(of: new.kind) { return from < to }
            if new.kind == .uint || new.kind == .uint64 { return true }
            if let to = rank(new.kind) { return to > from }
        }
        return false
    }
}
