import Foundation

/// An object named by entity and row key, as store-tool writes it:
/// `Trip:1` (the same text as a `PersistentIdentifier`'s description).
package struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The entity's name.
    package var entity: String
    /// The row's primary key.
    package var key: Int64

    /// Creates an identifier.
    package init(entity: String, key: Int64) {
        self.entity = entity
        self.key = key
    }

    /// Reads `Entity:ID`, where ID is a positive row key written in decimal
    /// digits alone (no sign, so `Trip:+5` is not an identifier); nil when
    /// the text has another form (the entity is not checked against a
    /// schema here).
    package init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let entity = String(text[..<colon])
        let digits = text[text.index(after: colon)...]
        guard !entity.isEmpty, !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let key = Int64(digits), key > 0 else {
            return nil
        }
        self.entity = entity
        self.key = key
    }

    /// `Entity:ID`.
    package var description: String { "\(entity):\(key)" }

    /// Orders by entity, then key.
    package static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { (lhs.entity, lhs.key) < (rhs.entity, rhs.key) }
}

/// One value of a dynamic object: an attribute's value with its Swift kind,
/// or a relationship's objects. Values are read and written through the same
/// `ColumnValue` code as typed models, so both agree on every stored form.
package enum DynamicValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// Every integer kind; a narrower kind's range is checked when parsed.
    case int(Int64)
    /// Double and Float.
    case double(Double)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case data(Data)
    case url(URL)
    case decimal(Decimal)
    /// A `Codable` value as compact JSON text with sorted keys.
    case json(String)
    /// A to-one relationship's object.
    case object(ObjectID)
    /// A to-many relationship's objects, in order.
    case objects([ObjectID])
    /// A to-many relationship read as the number of its objects.
    case count(Int)

    /// True for `.null`.
    package var isNull: Bool { self == .null }
}

extension DynamicValue {
    /// Reads column `column` of the statement's current row as `attribute`'s
    /// kind, with the checks typed models apply (range, 0/1 Bools, valid
    /// JSON, NULL only when optional).
    package static func decode(
        _ attribute: Schema.Attribute, from statement: Statement, column: Int32
    ) throws(ValueCodingFailure) -> DynamicValue {
        if statement.storage(at: column) == .null {
            guard attribute.isOptional else { throw .mismatch(expected: attribute.kind.columnType, found: .null) }
            return .null
        }
        switch attribute.kind {
        case .bool: return .bool(try Bool._decode(from: statement, column: column))
        case .int: return .int(Int64(try Int._decode(from: statement, column: column)))
        case .int8: return .int(Int64(try Int8._decode(from: statement, column: column)))
        case .int16: return .int(Int64(try Int16._decode(from: statement, column: column)))
        case .int32: return .int(Int64(try Int32._decode(from: statement, column: column)))
        case .int64: return .int(try Int64._decode(from: statement, column: column))
        case .uint: return .int(Int64(truncatingIfNeeded: try UInt._decode(from: statement, column: column)))
        case .uint8: return .int(Int64(try UInt8._decode(from: statement, column: column)))
        case .uint16: return .int(Int64(try UInt16._decode(from: statement, column: column)))
        case .uint32: return .int(Int64(try UInt32._decode(from: statement, column: column)))
        case .uint64: return .int(Int64(truncatingIfNeeded: try UInt64._decode(from: statement, column: column)))
        case .double: return .double(try Double._decode(from: statement, column: column))
        case .float: return .double(Double(try Float._decode(from: statement, column: column)))
        case .string: return .string(try String._decode(from: statement, column: column))
        case .date: return .date(try Date._decode(from: statement, column: column))
        case .uuid: return .uuid(try UUID._decode(from: statement, column: column))
        case .data: return .data(try Data._decode(from: statement, column: column))
        case .url: return .url(try URL._decode(from: statement, column: column))
        case .decimal: return .decimal(try Decimal._decode(from: statement, column: column))
        case .codable:
            let text = try String._decode(from: statement, column: column)
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil else {
                throw ValueCodingFailure("the stored text is not valid JSON")
            }
            return .json(text)
        }
    }

    /// Binds the value as its column stores it, through the same
    /// `ColumnValue` code the typed save uses.
    /// - Throws: `ValueCodingFailure` or `SQLiteError`.
    package func bind(to statement: Statement, at index: Int32) throws {
        switch self {
        case .null, .objects, .count: try statement.bindNull(at: index)
        case .bool(let value): try value._encode(into: statement, at: index)
        case .int(let value): try value._encode(into: statement, at: index)
        case .double(let value): try value._encode(into: statement, at: index)
        case .string(let value): try value._encode(into: statement, at: index)
        case .date(let value): try value._encode(into: statement, at: index)
        case .uuid(let value): try value._encode(into: statement, at: index)
        case .data(let value): try value._encode(into: statement, at: index)
        case .url(let value): try value._encode(into: statement, at: index)
        case .decimal(let value): try value._encode(into: statement, at: index)
        case .json(let value): try value._encode(into: statement, at: index)
        case .object(let id): try statement.bind(id.key, at: index)
        }
    }

    /// The value as its column stores it, for query constants.
    package var storedValue: SQLiteValue {
        switch self {
        case .null, .objects, .count: .null
        case .bool(let value): .integer(value ? 1 : 0)
        case .int(let value): .integer(value)
        case .double(let value): value.isNaN ? .text(notANumberText) : .real(value)
        case .string(let value), .json(let value): .text(value)
        case .date(let value): .real(value.timeIntervalSince1970)
        case .uuid(let value): .text(value.storedText)
        case .data(let value): .blob(value)
        case .url(let value): .text(value.storedText)
        case .decimal(let value): .text(value.storedText)
        case .object(let id): .integer(id.key)
        }
    }
}
