import Foundation

/// The SQL functions and collations through which compiled queries compare
/// and search strings (and decimals) exactly as Swift does.
///
/// SQLite compares text byte by byte; Swift compares Strings by Unicode
/// canonical equivalence and counts Characters. For ASCII text the two agree
/// (except that "\r\n" is one Character), so each function takes a byte-level
/// fast path for ASCII and otherwise runs the same Swift code that
/// `Predicate.evaluate` runs. The results therefore agree row for row.
///
/// They belong to the SQLite layer, below the contexts that register them on
/// each connection they open, and the query compiler names them in its SQL.
enum QueryFunctions {
    /// Swift's `String` order (`<`, `==`), used for string comparisons and ORDER BY.
    static let stringCollation = "MODELSTORE_STRING"
    /// `String.StandardComparator.lexical`, for sort descriptors that name it.
    static let lexicalCollation = "MODELSTORE_LEXICAL"
    /// `localizedStandardCompare`, for `LocalizedStringComparator.localizedStandard`.
    static let localizedStandardCollation = "MODELSTORE_LOCALIZED_STANDARD"
    /// `localizedCompare`, for `LocalizedStringComparator.localized`.
    static let localizedCollation = "MODELSTORE_LOCALIZED"
    /// `Decimal`'s numeric order, for decimals stored as text.
    static let decimalCollation = "MODELSTORE_DECIMAL"

    static let contains = "modelstore_contains"
    static let startsWith = "modelstore_starts_with"
    static let count = "modelstore_count"
    static let localizedLowercase = "modelstore_localized_lowercase"
    static let localizedStandardContains = "modelstore_localized_standard_contains"
    static let caseInsensitiveCompare = "modelstore_case_insensitive_compare"
    static let localizedCompare = "modelstore_localized_compare"

    /// Registers every function and collation on a connection.
    /// - Throws: `SQLiteError` when SQLite refuses a registration.
    static func register(on connection: Connection) throws(SQLiteError) {
        try connection.registerCollation(stringCollation) { left, right in
            if isSimpleASCII(left) && isSimpleASCII(right) { return compareBytes(left, right) }
            let (a, b) = (string(left), string(right))
            return a == b ? 0 : (a < b ? -1 : 1)
        }
        try connection.registerCollation(lexicalCollation) { left, right in
            Int32(String.StandardComparator.lexical.compare(string(left), string(right)).rawValue)
        }
        try connection.registerCollation(localizedStandardCollation) { left, right in
            // The method `LocalizedStringComparator.localizedStandard` compares with.
            Int32(string(left).localizedStandardCompare(string(right)).rawValue)
        }
        try connection.registerCollation(localizedCollation) { left, right in
            // The method `LocalizedStringComparator.localized` compares with.
            Int32(string(left).localizedCompare(string(right)).rawValue)
        }
        try connection.registerCollation(decimalCollation) { left, right in
            let locale = Locale(identifier: "en_US_POSIX")
            guard let a = Decimal(string: string(left), locale: locale), let b = Decimal(string: string(right), locale: locale)
            else { return compareBytes(left, right) }
            return a == b ? 0 : (a < b ? -1 : 1)
        }
        try registerBinary(contains, on: connection) { left, right in
            if isSimpleASCII(left) && isSimpleASCII(right) { return .integer(findBytes(right, in: left) ? 1 : 0) }
            return .integer(stringContains(string(left), string(right)) ? 1 : 0)
        }
        try registerBinary(startsWith, on: connection) { left, right in
            if isSimpleASCII(left) && isSimpleASCII(right) {
                return .integer(right.count <= left.count && compareBytes(UnsafeBufferPointer(rebasing: left[..<right.count]), right) == 0 ? 1 : 0)
            }
            return .integer(stringStartsWith(string(left), string(right)) ? 1 : 0)
        }
        try registerBinary(localizedStandardContains, on: connection) { left, right in
            .integer(modelStoreLocalizedStandardContains(string(left), string(right)) ? 1 : 0)
        }
        try registerBinary(caseInsensitiveCompare, on: connection) { left, right in
            .integer(Int64(string(left).caseInsensitiveCompare(string(right)).rawValue))
        }
        try registerBinary(localizedCompare, on: connection) { left, right in
            .integer(Int64(string(left).localizedCompare(string(right)).rawValue))
        }
        try connection.registerFunction(count, argumentCount: 1) { call in
            guard !call.isNull(0) else { return call.returnNull() }
            let bytes = call.bytes(0)
            call.returnInteger(Int64(isSimpleASCII(bytes) ? bytes.count : string(bytes).count))
        }
        try connection.registerFunction(localizedLowercase, argumentCount: 1) { call in
            guard !call.isNull(0) else { return call.returnNull() }
            call.returnText(string(call.bytes(0)).localizedLowercase)
        }
    }

    private enum Result {
        case integer(Int64)
    }

    /// A two-argument function of two strings; NULL when either is NULL, as
    /// `flatMap` over a nil optional gives nil.
    private static func registerBinary(
        _ name: String, on connection: Connection,
        _ body: @escaping (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Result
    ) throws(SQLiteError) {
        try connection.registerFunction(name, argumentCount: 2) { call in
            guard !call.isNull(0), !call.isNull(1) else { return call.returnNull() }
            switch body(call.bytes(0), call.bytes(1)) {
            case .integer(let value): call.returnInteger(value)
            }
        }
    }

    /// True when every byte is ASCII and none is a carriage return (which
    /// forms one Character with a following line feed): then bytes are
    /// Characters, and byte comparison is Swift's comparison.
    static func isSimpleASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 || byte == 0x0D { return false }
        return true
    }

    /// True when the text is ASCII and equal to itself under Swift's `==`
    /// only byte for byte: no character that a non-ASCII character is
    /// canonically equivalent to (K, ';' and '`' are, to KELVIN SIGN, GREEK
    /// QUESTION MARK and GREEK VARIA). Such a value compares with `=` in SQL
    /// exactly as with Swift's `==`, so an index can serve it.
    static func equalsOnlyItsBytes(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "K") && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private static func compareBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int32 {
        let common = min(left.count, right.count)
        if common > 0, let a = left.baseAddress, let b = right.baseAddress {
            let result = memcmp(a, b, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    private static func findBytes(_ needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0]
            && compareBytes(UnsafeBufferPointer(rebasing: haystack[start..<start + needle.count]), needle) == 0
        {
            return true
        }
        return false
    }

    /// `contains` as `#Predicate` evaluates it for strings: by running
    /// Foundation's own expression, so that the overload is the same one.
    static func stringContains(_ base: String, _ other: String) -> Bool {
        let expression = PredicateExpressions.build_contains(
            PredicateExpressions.Value(base), PredicateExpressions.Value(other))
        return (try? expression.evaluate(PredicateBindings())) ?? false
    }

    /// `starts(with:)` as `#Predicate` evaluates it for strings.
    static func stringStartsWith(_ base: String, _ prefix: String) -> Bool {
        let expression = PredicateExpressions.build_starts(
            PredicateExpressions.Value(base), with: PredicateExpressions.Value(prefix))
        return (try? expression.evaluate(PredicateBindings())) ?? false
    }
}

/// Foundation's `localizedStandardContains`: case- and diacritic-insensitive
/// search in the current locale. Foundation on Linux has the String method but
/// not the predicate expression; both ModelStore's expression and its SQL
/// function call this.
func modelStoreLocalizedStandardContains(_ base: String, _ other: String) -> Bool {
    base.range(of: other, options: [.caseInsensitive, .diacriticInsensitive], range: nil, locale: .current) != nil
}
