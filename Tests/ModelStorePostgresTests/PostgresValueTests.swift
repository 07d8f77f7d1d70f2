import Foundation
import ModelStore
import ModelStorePostgres
import PostgresNIO
import Testing

/// Every attribute kind written through `PostgresValues.bind` into the
/// column `PostgresSchemaSQL` makes for it, and read back through
/// `PostgresValues.decode`: equal, or refused with the entity and property.
@Suite("PostgreSQL values", .enabled(if: PostgresTestDatabase.isEnabled, PostgresTestDatabase.disabledReason))
struct PostgresValueTests {
    static let decimalSum = Decimal(string: "0.1")! + Decimal(string: "0.2")!

    static let cases: [(ValueKind, [DynamicValue])] = [
        (.bool, [.bool(true), .bool(false)]),
        (.int, [.int(.min), .int(0), .int(.max)]),
        (.int64, [.int(.min), .int(-1), .int(.max)]),
        (.int8, [.int(-128), .int(127)]),
        (.int16, [.int(Int64(Int16.min)), .int(Int64(Int16.max))]),
        (.int32, [.int(Int64(Int32.min)), .int(Int64(Int32.max))]),
        (.uint8, [.int(0), .int(255)]),
        (.uint16, [.int(0), .int(65535)]),
        (.uint32, [.int(0), .int(Int64(UInt32.max))]),
        (.uint64, [.int(0), .int(.max)]),
        (.double, [.double(.infinity), .double(-.infinity), .double(0.1), .double(-0.0), .double(.leastNonzeroMagnitude),
                   .double(.greatestFiniteMagnitude)]),
        (.float, [.double(Double(Float.greatestFiniteMagnitude)), .double(Double(Float(0.1))), .double(.infinity)]),
        (.string, [.string(""), .string("héllo 👩‍👩‍👧 \u{1F600} \"quoted\" 'single' \\ \n tab\t"), .string(String(repeating: "x", count: 100_000))]),
        (.date, [.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSince1970: -1_000_000_000.123456)),
                 .date(Date(timeIntervalSinceReferenceDate: 812_345_678.000001)), .date(.distantPast), .date(.distantFuture)]),
        (.uuid, [.uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!), .uuid(UUID())]),
        (.data, [.data(Data()), .data(Data([0, 1, 2, 0xFF, 0])), .data(Data(repeating: 0xAB, count: 70_000))]),
        (.url, [.url(URL(string: "https://example.com/a%20b?q=1#f")!), .url(URL(string: "file:///tmp/x")!)]),
        (.decimal, [.decimal(decimalSum), .decimal(Decimal(string: "-12345678901234567890.123456789")!), .decimal(0),
                    .decimal(Decimal(string: "1e30")!), .decimal(Decimal(string: "0.0000000001")!)]),
        (.codable, [.json(#"{"a":1,"bb":[true,null],"c":"\u0000"}"#), .json(#"["x","y"]"#), .json("3.25")]),
    ]

    @Test("Each kind round-trips its edge values, and nil when optional", arguments: cases)
    func roundTrip(kind: ValueKind, values: [DynamicValue]) throws {
        try Self.withColumn(kind, optional: true) { executor, attribute in
            for value in values + [.null] {
                let back = try Self.roundTrip(value, attribute, executor)
                #expect(back == value, "\(kind): \(value) came back as \(back)")
            }
        }
    }

    @Test("NaN round-trips for Double and Float", arguments: [ValueKind.double, .float])
    func notANumber(kind: ValueKind) throws {
        try Self.withColumn(kind) { executor, attribute in
            guard case .double(let back) = try Self.roundTrip(.double(.nan), attribute, executor) else {
                Issue.record("NaN did not come back as a Double")
                return
            }
            #expect(back.isNaN)
        }
    }

    @Test("0.1 + 0.2 stays exactly 0.3 as numeric, and the column's text is exact")
    func decimalIsExact() throws {
        try Self.withColumn(.decimal) { executor, attribute in
            let sum = try Self.roundTrip(.decimal(Self.decimalSum), attribute, executor)
            #expect(sum == .decimal(Decimal(string: "0.3")!))
            let text = try executor.execute(#"SELECT "value"::text FROM "E""#).rows.first?.decode(String.self)
            #expect(text == "0.3")
        }
    }

    @Test("A date is stored as the library's rows hold it: seconds since 1970, which to_timestamp reads")
    func dateIsUnixSeconds() throws {
        try Self.withColumn(.date) { executor, attribute in
            var binds = PostgresBindings()
            try PostgresValues.bind(.date(Date(timeIntervalSince1970: 86_400.5)), as: attribute, entity: "E", into: &binds)
            try executor.execute(#"INSERT INTO "E" ("value") VALUES ($1)"#, binds)
            let row = try #require(try executor.execute(#"SELECT "value", to_timestamp("value") AT TIME ZONE 'UTC' FROM "E""#).rows.first)
            let (seconds, timestamp) = try row.decode((Double, Date).self)
            #expect(seconds == 86_400.5)
            #expect(timestamp == Date(timeIntervalSince1970: 86_400.5))
        }
    }

    @Test("A date comes back as a SQLite store gives it back (a Double of seconds since 1970), below a microsecond too")
    func dateBelowAMicrosecond() throws {
        try Self.withColumn(.date) { executor, attribute in
            for date in [Date(timeIntervalSinceReferenceDate: 100.000_000_7), Date(timeIntervalSinceReferenceDate: -400_000_000.000_000_4), Date()] {
                let back = try Self.roundTrip(.date(date), attribute, executor)
                #expect(back == .date(Date(timeIntervalSince1970: date.timeIntervalSince1970)))
            }
        }
    }

    @Test(
        "What PostgreSQL cannot hold exactly is refused naming entity and property, before anything is sent",
        arguments: [
            (ValueKind.string, DynamicValue.string("a\u{0}b"), "NUL"),
            (.int8, .int(128), "range"),
            (.uint8, .int(-1), "range"),
            (.uint32, .int(Int64(UInt32.max) + 1), "range"),
            (.uint64, .int(-1), "range"),
            (.float, .double(1e300), "too large"),
            (.decimal, .decimal(.nan), "NaN"),
            (.codable, .json("{not json"), "JSON"),
            (.int, .string("1"), "cannot hold"),
        ])
    func refusals(kind: ValueKind, value: DynamicValue, expected: String) {
        let attribute = Schema.Attribute(name: "value", kind: kind, swiftType: kind.swiftTypeName, isOptional: false)
        var binds = PostgresBindings()
        #expect {
            try PostgresValues.bind(value, as: attribute, entity: "E", into: &binds)
        } throws: { error in
            guard case .invalidValue(let entity, let property, _, let reason, _)? = error as? ModelStoreError else { return false }
            return entity == "E" && property == "value" && reason.contains(expected)
        }
        #expect(binds.count == 0)
    }

    @Test("A value stored by other SQL that the Swift type cannot hold is an error naming the row, never wrapped")
    func outOfRangeStoredValue() throws {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            try executor.execute(#"CREATE TABLE "E" ("value" smallint, "n" numeric, "t" double precision)"#)
            try executor.execute(#"INSERT INTO "E" VALUES (300, 1e50 + 0.5, 'Infinity')"#)
            let row = try #require(try executor.execute(#"SELECT "value", "n", "t" FROM "E""#).rows.first)
            let cells = Array(row)
            let checks: [(ValueKind, Int)] = [(.int8, 0), (.decimal, 1), (.date, 2)]
            for (kind, index) in checks {
                let attribute = Schema.Attribute(name: "value", kind: kind, swiftType: kind.swiftTypeName, isOptional: false)
                #expect {
                    _ = try PostgresValues.decode(cells[index], as: attribute, entity: "E", row: 5)
                } throws: { error in
                    guard case .invalidValue(_, _, let row, _, _)? = error as? ModelStoreError else { return false }
                    return row == 5
                }
            }
            let wrongType = Schema.Attribute(name: "value", kind: .string, swiftType: "String", isOptional: false)
            #expect(throws: ModelStoreError.self) { try PostgresValues.decode(cells[0], as: wrongType, entity: "E", row: 5) }
        }
    }

    /// Runs `body` in a fresh schema with a table "E" made by
    /// `PostgresSchemaSQL` for one attribute "value" of `kind`.
    static func withColumn<T>(
        _ kind: ValueKind, optional: Bool = false, _ body: (PostgresExecutor, Schema.Attribute) throws -> T
    ) throws -> T {
        try PostgresTestDatabase.withSchema { database in
            let executor = try database.executor()
            let attribute = Schema.Attribute(name: "value", kind: kind, swiftType: kind.swiftTypeName, isOptional: optional)
            let schema = Schema(entities: [Schema.Entity(name: "E", attributes: [attribute])])
            for statement in try PostgresSchemaSQL.createStatements(schema) { try executor.execute(statement) }
            return try body(executor, attribute)
        }
    }

    /// Writes `value` into a new row of "E" and reads it back.
    static func roundTrip(_ value: DynamicValue, _ attribute: Schema.Attribute, _ executor: PostgresExecutor) throws
        -> DynamicValue
    {
        var binds = PostgresBindings()
        try PostgresValues.bind(value, as: attribute, entity: "E", into: &binds)
        let insert = try PostgresDialect().insert(into: "E", columns: [attribute.name], returning: [primaryKeyColumn])
        let key = try #require(try executor.execute(insert, binds).rows.first).decode(Int64.self)
        var keyBinds = PostgresBindings()
        keyBinds.append(key)
        let row = try #require(try executor.execute(#"SELECT "value" FROM "E" WHERE "_pk" = $1"#, keyBinds).rows.first)
        return try PostgresValues.decode(try #require(row.first), as: attribute, entity: "E", row: key)
    }
}
