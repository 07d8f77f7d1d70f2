import CSQLite
import Foundation

// The commonest property types read without a call into this module.
//
// Each overload below reads its column's value when it is stored the usual
// way (an Int as an INTEGER, a Date as a REAL...), inline in the initializer
// `@Model` generates; anything else (a partial fetch, a NULL where none may
// be, a value of another kind) goes to the generic path, which decodes the
// rarer forms and builds the errors. Through the generic path alone, each
// column cost a call of about 40 instructions around its three SQLite calls,
// and Int's decoding a call through the witness table besides (the optimizer
// did not devirtualize it in the app's module, unlike the other types').
// The compiler prefers these overloads to the generic ones for these types.
// They are always inlined: a call around three SQLite calls cost about 30
// instructions, and the inlined fast path is a few tests.

extension PersistentRow {
    /// Reads an `Int`.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Int.Type) throws -> Int {
        try readCommon(ordinal, ColumnCell.commonInt)
    }

    /// Reads an optional `Int`; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Int?.Type) throws -> Int? {
        try readCommonOptional(ordinal, ColumnCell.commonInt)
    }

    /// Reads a `Bool`.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Bool.Type) throws -> Bool {
        try readCommon(ordinal, ColumnCell.commonBool)
    }

    /// Reads an optional `Bool`; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Bool?.Type) throws -> Bool? {
        try readCommonOptional(ordinal, ColumnCell.commonBool)
    }

    /// Reads a `Double`.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Double.Type) throws -> Double {
        try readCommon(ordinal, ColumnCell.commonDouble)
    }

    /// Reads an optional `Double`; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Double?.Type) throws -> Double? {
        try readCommonOptional(ordinal, ColumnCell.commonDouble)
    }

    /// Reads a `String`.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: String.Type) throws -> String {
        try readCommon(ordinal, ColumnCell.commonString)
    }

    /// Reads an optional `String`; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: String?.Type) throws -> String? {
        try readCommonOptional(ordinal, ColumnCell.commonString)
    }

    /// Reads a `Date`.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Date.Type) throws -> Date {
        try readCommon(ordinal, ColumnCell.commonDate)
    }

    /// Reads an optional `Date`; NULL is nil.
    /// - Throws: `ModelStoreError.invalidValue`.
    @inlinable @inline(__always)
    public func value(at ordinal: Int, as type: Date?.Type) throws -> Date? {
        try readCommonOptional(ordinal, ColumnCell.commonDate)
    }

    // MARK: The two paths

    /// The column of attribute `ordinal`, or nil when the fetch left some
    /// attributes unread (a partial fetch, which the generic path handles).
    @inlinable @inline(__always)
    func fetchedCell(_ ordinal: Int) -> ColumnCell? {
        if hasUnfetched { return nil }
        return unmanagedStatement._withUnsafeGuaranteedRef { $0.cell(at: Int32(truncatingIfNeeded: ordinal &+ 1)) }
    }

    @inlinable @inline(__always)
    func readCommon<Value: ColumnValue>(_ ordinal: Int, _ common: (ColumnCell) -> Value?) throws -> Value {
        if let cell = fetchedCell(ordinal), let value = common(cell) { return value }
        return try readGenerically(ordinal, as: Value.self)
    }

    @inlinable @inline(__always)
    func readCommonOptional<Value: ColumnValue>(_ ordinal: Int, _ common: (ColumnCell) -> Value?) throws -> Value? {
        if let cell = fetchedCell(ordinal) {
            if let value = common(cell) { return value }
            if cell.typeCode == SQLITE_NULL { return nil }
        }
        return try readGenerically(ordinal, as: Value?.self)
    }

    // The generic path, out of line. Inside these functions `Value` is a
    // type parameter, so `value(at:as:)` is the generic overload.

    /// The generic path, out of line.
    @usableFromInline @inline(never)
    func readGenerically<Value: ColumnValue>(_ ordinal: Int, as type: Value.Type) throws -> Value {
        try value(at: ordinal, as: Value.self)
    }

    /// The generic path for an optional, out of line.
    @usableFromInline @inline(never)
    func readGenerically<Value: ColumnValue>(_ ordinal: Int, as type: Value?.Type) throws -> Value? {
        try value(at: ordinal, as: Value?.self)
    }
}

extension ColumnCell {
    // Each type's usual storage, as its `_decode` reads it; nil for any other.

    @inlinable
    static func commonInt(_ cell: ColumnCell) -> Int? {
        cell.typeCode == SQLITE_INTEGER ? Int(exactly: cell.int64) : nil
    }

    @inlinable
    static func commonBool(_ cell: ColumnCell) -> Bool? {
        guard cell.typeCode == SQLITE_INTEGER else { return nil }
        switch cell.int64 {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    @inlinable
    static func commonDouble(_ cell: ColumnCell) -> Double? {
        cell.typeCode == SQLITE_FLOAT ? cell.double : nil
    }

    @inlinable
    static func commonString(_ cell: ColumnCell) -> String? {
        cell.typeCode == SQLITE_TEXT ? cell.string : nil
    }

    @inlinable
    static func commonDate(_ cell: ColumnCell) -> Date? {
        cell.typeCode == SQLITE_FLOAT ? Date(timeIntervalSince1970: cell.double) : nil
    }
}
