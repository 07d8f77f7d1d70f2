import Foundation
import ModelStore
import PostgresNIO

/// Binds attribute values as PostgreSQL parameters and reads them back from
/// result cells, exactly: a value either comes back equal or is refused
/// with an error naming the entity and property, never stored changed.
///
/// The value is the dynamic layer's `DynamicValue`, with the attribute's
/// kind saying which column type holds it (`PostgresDialect.columnType`):
/// - integers are range-checked against the Swift type (Int8 in a
///   smallint, UInt32 in a bigint…); Bool is `boolean`;
/// - Double is `double precision`, NaN and ±infinity included; Float is
///   `real` (a finite Double too large for a Float is refused, not made
///   infinite);
/// - String is `text`: PostgreSQL text cannot hold NUL, so a string with a
///   NUL is refused (never cut);
/// - Date is `double precision`, seconds since 1970-01-01 00:00 UTC, as a
///   SQLite store's REAL holds it (`timeIntervalSince1970`): a date comes
///   back as from a SQLite store, to a Double's precision, and predicates
///   on it match the same rows. `timestamptz` would round to microseconds;
/// - Decimal is `numeric`, exact both ways (a stored numeric with more
///   digits than Decimal holds is refused when read); Decimal's NaN is
///   refused;
/// - UUID is `uuid`, Data `bytea`, URL its absolute string in `text`;
/// - a Codable value (arrays, sets, dictionaries, structs) is its JSON text
///   in `json` (see `PostgresDialect.columnType` for why not jsonb); an
///   enum is its raw value's kind.
package enum PostgresValues {
    /// Appends `value` to `binds` as `attribute`'s column takes it.
    /// - Throws: `ModelStoreError.invalidValue` naming `entity` and the
    ///   attribute when the value has another kind than the attribute, is
    ///   out of its range, is nil for a non-optional attribute, or cannot be
    ///   held by PostgreSQL.
    package static func bind(
        _ value: DynamicValue, as attribute: Schema.Attribute, entity: String, into binds: inout PostgresBindings
    ) throws(ModelStoreError) {
        func refuse(_ reason: String) -> ModelStoreError {
            .invalidValue(entity: entity, property: attribute.name, row: nil, reason: reason, path: nil)
        }
        let dialect = PostgresDialect()
        switch (attribute.kind, value) {
        case (_, .null):
            guard attribute.isOptional else { throw refuse("the value is nil but the property is not optional") }
            binds.appendNull()
        case (.bool, .bool(let bool)):
            binds.append(bool)
        case (.int8, .int(let int)), (.int16, .int(let int)), (.uint8, .int(let int)):
            try checkRange(int, attribute.kind, dialect: dialect, refuse)
            guard let small = Int16(exactly: int) else { throw refuse("the integer does not fit in \(attribute.kind.swiftTypeName)") }
            binds.append(small)
        case (.int32, .int(let int)), (.uint16, .int(let int)):
            try checkRange(int, attribute.kind, dialect: dialect, refuse)
            guard let medium = Int32(exactly: int) else { throw refuse("the integer does not fit in \(attribute.kind.swiftTypeName)") }
            binds.append(medium)
        case (.int, .int(let int)), (.int64, .int(let int)), (.uint, .int(let int)), (.uint32, .int(let int)),
            (.uint64, .int(let int)):
            try checkRange(int, attribute.kind, dialect: dialect, refuse)
            binds.append(int)
        case (.double, .double(let double)):
            binds.append(double)
        case (.float, .double(let double)):
            let float = Float(double)
            guard float.isFinite == double.isFinite || double.isNaN else {
                throw refuse("the value \(double) is too large for a Float")
            }
            binds.append(float)
        case (.string, .string(let string)):
            guard !string.utf8.contains(0) else {
                throw refuse("the string holds a NUL character, which PostgreSQL text cannot store")
            }
            binds.append(string)
        case (.date, .date(let date)):
            binds.append(date.timeIntervalSince1970)
        case (.uuid, .uuid(let uuid)):
            binds.append(uuid)
        case (.data, .data(let data)):
            binds.append(ByteBuffer(bytes: data))
        case (.url, .url(let url)):
            binds.append(url.absoluteString)
        case (.decimal, .decimal(let decimal)):
            guard !decimal.isNaN else { throw refuse("the Decimal is NaN, which ModelStore does not store") }
            binds.append(TextParameter(psqlType: .numeric, text: decimal.description))
        case (.codable, .json(let text)):
            guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil else {
                throw refuse("the value is not valid JSON")
            }
            binds.append(TextParameter(psqlType: .json, text: text))
        default:
            throw refuse("a \(attribute.kind.swiftTypeName) property cannot hold \(value)")
        }
    }

    private static func checkRange(
        _ value: Int64, _ kind: ValueKind, dialect: PostgresDialect, _ refuse: (String) -> ModelStoreError
    ) throws(ModelStoreError) {
        if let range = dialect.checkRange(kind), !range.contains(value) {
            throw refuse("the integer \(value) is outside \(kind.swiftTypeName)'s range \(range.lowerBound)...\(range.upperBound)")
        }
    }

    /// Reads `cell` as `attribute`'s value.
    /// - Throws: `ModelStoreError.invalidValue` naming `entity`, the
    ///   attribute and `row` when the cell has another type than the
    ///   attribute's column, is NULL for a non-optional attribute, or holds
    ///   a value the Swift type cannot hold exactly.
    package static func decode(_ cell: PostgresCell, as attribute: Schema.Attribute, entity: String, row: Int64?)
        throws(ModelStoreError) -> DynamicValue
    {
        func refuse(_ reason: String) -> ModelStoreError {
            .invalidValue(entity: entity, property: attribute.name, row: row, reason: reason, path: nil)
        }
        guard let bytes = cell.bytes else {
            guard attribute.isOptional else { throw refuse("the value is NULL but the property is not optional") }
            return .null
        }
        let expected = expectedType(attribute.kind)
        guard cell.dataType == expected, cell.format == .binary else {
            throw refuse("expected \(PostgresDialect().columnType(attribute.kind)), found type \(cell.dataType)")
        }
        do {
            switch attribute.kind {
            case .bool:
                return .bool(try cell.decode(Bool.self))
            case .int8, .int16, .uint8, .int32, .uint16, .int, .int64, .uint, .uint32, .uint64:
                let int = try cell.decode(Int64.self)
                try checkRange(int, attribute.kind, dialect: PostgresDialect(), refuse)
                return .int(int)
            case .double:
                return .double(try cell.decode(Double.self))
            case .float:
                return .double(Double(try cell.decode(Float.self)))
            case .string:
                return .string(try cell.decode(String.self))
            case .url:
                let text = try cell.decode(String.self)
                guard let url = URL(string: text) else { throw refuse("the stored text is not a valid URL") }
                return .url(url)
            case .date:
                let seconds = try cell.decode(Double.self)
                guard seconds.isFinite else { throw refuse("the stored date is \(seconds), which no Date is") }
                return .date(Date(timeIntervalSince1970: seconds))
            case .uuid:
                return .uuid(try cell.decode(UUID.self))
            case .data:
                return .data(Data(buffer: bytes))
            case .decimal:
                guard let text = numericText(from: bytes) else { throw refuse("the stored numeric is NaN or infinite") }
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
                    normalizedDecimalText(decimal.description) == normalizedDecimalText(text)
                else { throw refuse("the stored numeric has more digits than a Decimal holds exactly") }
                return .decimal(decimal)
            case .codable:
                return .json(String(decoding: bytes.readableBytesView, as: UTF8.self))
            }
        } catch let error as ModelStoreError {
            throw error
        } catch {
            throw refuse("the stored value cannot be read as \(attribute.kind.swiftTypeName): \(error)")
        }
    }

    private static func expectedType(_ kind: ValueKind) -> PostgresDataType {
        switch kind {
        case .bool: .bool
        case .int8, .int16, .uint8: .int2
        case .int32, .uint16: .int4
        case .int, .int64, .uint, .uint32, .uint64: .int8
        case .double: .float8
        case .float: .float4
        case .string, .url: .text
        case .date: .float8
        case .uuid: .uuid
        case .data: .bytea
        case .decimal: .numeric
        case .codable: .json
        }
    }

    /// Decimal text without what does not change the number: trailing
    /// fraction zeros, a bare point, a minus before zero.
    private static func normalizedDecimalText(_ text: String) -> String {
        var text = text
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
