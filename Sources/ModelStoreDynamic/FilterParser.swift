import ModelStore

/// store-tool's filter language, parsed into a syntax tree that
/// `FilterResolver` types against a schema and turns into the library's
/// query IR (`QueryExpression`), which the query compiler turns into SQL.
///
/// ```text
/// filter     := or
/// or         := and (("or" | "||") and)*
/// and        := unary (("and" | "&&") unary)*
/// unary      := ("not" | "!") unary | "(" filter ")" | condition
/// condition  := operand [ op operand | "contains" operand | "icontains" operand
///                        | "startswith" operand | ["not"] "in" list ]
/// op         := "==" | "!=" | "<" | "<=" | ">" | ">="
/// operand    := path | literal
/// path       := name ("." name)*          -- through to-one relationships;
///                                            a to-many asks "any member"
/// literal    := number | string | true | false | nil
/// list       := "[" [literal ("," literal)*] "]"
/// ```
///
/// A filter is user input, and every pass over it walks its tree
/// recursively (this parser, the resolver, the query compiler) or has a limit
/// of its own (SQLite refuses expressions deeper than 1000 and, in the builds
/// of SQLite 3.40, SQL whose nesting needs more than 100 entries of its
/// parser's stack), so its size is bounded: at most `maximumDepth` levels of
/// parentheses and `not`, at most `maximumConditions` conditions, and at
/// most `maximumListValues` values in its `in` lists together. A chain of
/// `and`s (or of `or`s) becomes a balanced tree here, so 500 conditions
/// joined by `and` nest 9 levels deep, not 500, and the compiler writes it
/// as one flat chain.
///
/// The depth limit is SQLite's: the costliest shape, `a or b and (…)` at
/// every level with a to-many question at the bottom, takes about seven
/// entries of that stack per level, and fails past 13 levels. Every filter
/// within these limits compiles and runs.
indirect enum FilterNode: Equatable {
    case and(FilterNode, FilterNode)
    case or(FilterNode, FilterNode)
    case not(FilterNode)
    case comparison(FilterOperand, QueryExpression.ComparisonOperator, FilterOperand, column: Int)
    /// `contains`, `icontains` or `startswith`.
    case text(String, FilterOperand, FilterOperand, column: Int)
    case isIn(FilterOperand, [FilterOperand], column: Int)
    /// A path alone: a Bool attribute, a to-one that is set, a to-many that is not empty.
    case truth(FilterOperand)
}

/// One side of a condition.
enum FilterOperand: Equatable {
    case path([String], column: Int)
    case literal(FilterLiteral, column: Int)

    var column: Int {
        switch self {
        case .path(_, let column), .literal(_, let column): column
        }
    }
}

/// A literal value, typed later by the property it is compared with.
enum FilterLiteral: Equatable {
    case integer(String)
    case real(String)
    case string(String)
    case bool(Bool)
    case null

    var shown: String {
        switch self {
        case .integer(let text), .real(let text): text
        case .string: "a string"
        case .bool(let value): value ? "true" : "false"
        case .null: "nil"
        }
    }
}

/// Parses a filter into a `FilterNode`.
struct FilterParser {
    /// The most levels of parentheses and `not` a filter may nest.
    static let maximumDepth = 12
    /// The most conditions (comparisons, `contains`, `in`, a Bool alone) a filter may hold.
    static let maximumConditions = 500
    /// The most values the `in` lists of a filter may hold together (each is
    /// one bound parameter, and SQLite allows 32,766 per statement).
    static let maximumListValues = 10_000

    private var tokens: [FilterToken]
    private var position = 0
    private var depth = 0
    private var conditions = 0
    private var listValues = 0

    /// Parses `text`.
    /// - Throws: `DynamicStoreError.invalidFilter` with the column of the
    ///   first problem, also for a filter past `maximumDepth`,
    ///   `maximumConditions` or `maximumListValues`.
    /// - Complexity: O(n) in the length of `text`; recursion at most
    ///   `maximumDepth` levels deep.
    static func parse(_ text: String) throws(DynamicStoreError) -> FilterNode {
        var parser = FilterParser(tokens: try FilterLexer.tokens(text))
        guard parser.current.kind != .end else { throw .invalidFilter(column: 1, reason: "the filter is empty") }
        let node = try parser.parseOr()
        guard parser.current.kind == .end else {
            throw .invalidFilter(column: parser.current.column, reason: "unexpected \(parser.current.shown); expected 'and', 'or' or the end")
        }
        return node
    }

    private init(tokens: [FilterToken]) { self.tokens = tokens }

    private var current: FilterToken { tokens[position] }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    private mutating func accept(_ kinds: FilterToken.Kind...) -> Bool {
        guard kinds.contains(current.kind) else { return false }
        advance()
        return true
    }

    private mutating func parseOr() throws(DynamicStoreError) -> FilterNode {
        var operands = [try parseAnd()]
        while accept(.keyword("or"), .symbol("||")) { operands.append(try parseAnd()) }
        return Self.balanced(operands[...], FilterNode.or)
    }

    private mutating func parseAnd() throws(DynamicStoreError) -> FilterNode {
        var operands = [try parseUnary()]
        while accept(.keyword("and"), .symbol("&&")) { operands.append(try parseUnary()) }
        return Self.balanced(operands[...], FilterNode.and)
    }

    /// `a and b and c and d` as `(a and b) and (c and d)`: the same answer
    /// (both are associative), in a tree log2(n) deep instead of n.
    private static func balanced(_ operands: ArraySlice<FilterNode>, _ join: (FilterNode, FilterNode) -> FilterNode) -> FilterNode {
        guard operands.count > 1 else { return operands[operands.startIndex] }
        // The left half takes the odd operand: `a and b and c` is `(a and b) and c`.
        let middle = operands.startIndex + (operands.count + 1) / 2
        return join(balanced(operands[..<middle], join), balanced(operands[middle...], join))
    }

    private mutating func parseUnary() throws(DynamicStoreError) -> FilterNode {
        let token = current
        if accept(.keyword("not"), .symbol("!")) {
            try enter(token)
            defer { depth -= 1 }
            return .not(try parseUnary())
        }
        if current.kind == .symbol("(") {
            let open = current.column
            try enter(token)
            defer { depth -= 1 }
            advance()
            let node = try parseOr()
            guard accept(.symbol(")")) else {
                throw .invalidFilter(column: current.column, reason: "expected ')' to close the '(' at column \(open), found \(current.shown)")
            }
            return node
        }
        conditions += 1
        guard conditions <= Self.maximumConditions else {
            throw .invalidFilter(
                column: token.column, reason: "the filter has more than \(Self.maximumConditions) conditions; split it, or use 'in [...]'")
        }
        return try parseCondition()
    }

    /// One more level of parentheses or `not`, refused past `maximumDepth`.
    private mutating func enter(_ token: FilterToken) throws(DynamicStoreError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw .invalidFilter(
                column: token.column, reason: "the filter nests deeper than \(Self.maximumDepth) levels of parentheses and 'not'")
        }
    }

    private mutating func parseCondition() throws(DynamicStoreError) -> FilterNode {
        let left = try parseOperand()
        let token = current
        switch token.kind {
        case .symbol(let symbol):
            guard let op = QueryExpression.ComparisonOperator(rawValue: symbol) ?? (symbol == "<" ? .less : symbol == ">" ? .greater : nil)
            else { break }
            advance()
            return .comparison(left, op, try parseOperand(), column: token.column)
        case .keyword(let word) where ["contains", "icontains", "startswith"].contains(word):
            advance()
            return .text(word, left, try parseOperand(), column: token.column)
        case .keyword("in"):
            advance()
            return .isIn(left, try parseList(), column: token.column)
        case .keyword("not"):
            advance()
            guard current.kind == .keyword("in") else {
                throw .invalidFilter(column: current.column, reason: "expected 'in' after 'not', found \(current.shown)")
            }
            advance()
            return .not(.isIn(left, try parseList(), column: token.column))
        default:
            break
        }
        if case .literal = left {
            throw .invalidFilter(column: token.column, reason: "expected an operator after the value, found \(token.shown)")
        }
        return .truth(left)
    }

    private mutating func parseList() throws(DynamicStoreError) -> [FilterOperand] {
        guard accept(.symbol("[")) else {
            throw .invalidFilter(column: current.column, reason: "expected a list such as [\"a\", \"b\"] after 'in', found \(current.shown)")
        }
        var items: [FilterOperand] = []
        if accept(.symbol("]")) { return items }
        repeat {
            let item = try parseOperand()
            guard case .literal = item else {
                throw .invalidFilter(column: item.column, reason: "a list holds values, not property names")
            }
            listValues += 1
            guard listValues <= Self.maximumListValues else {
                throw .invalidFilter(column: item.column, reason: "the filter's lists hold more than \(Self.maximumListValues) values")
            }
            items.append(item)
        } while accept(.symbol(","))
        guard accept(.symbol("]")) else {
            throw .invalidFilter(column: current.column, reason: "expected ',' or ']' in the list, found \(current.shown)")
        }
        return items
    }

    private mutating func parseOperand() throws(DynamicStoreError) -> FilterOperand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            var path = [name]
            while current.kind == .symbol(".") {
                advance()
                guard case .identifier(let next) = current.kind else {
                    throw .invalidFilter(column: current.column, reason: "expected a property name after '.', found \(current.shown)")
                }
                path.append(next)
                advance()
            }
            return .path(path, column: token.column)
        case .integer(let text):
            advance()
            return .literal(.integer(text), column: token.column)
        case .real(let text):
            advance()
            return .literal(.real(text), column: token.column)
        case .string(let value):
            advance()
            return .literal(.string(value), column: token.column)
        case .keyword("true"), .keyword("false"):
            advance()
            return .literal(.bool(token.kind == .keyword("true")), column: token.column)
        case .keyword("nil"), .keyword("null"):
            advance()
            return .literal(.null, column: token.column)
        case .symbol("-"):
            advance()
            switch current.kind {
            case .integer(let text):
                advance()
                return .literal(.integer("-" + text), column: token.column)
            case .real(let text):
                advance()
                return .literal(.real("-" + text), column: token.column)
            default:
                throw .invalidFilter(column: current.column, reason: "expected a number after '-', found \(current.shown)")
            }
        default:
            throw .invalidFilter(column: token.column, reason: "expected a property name or a value, found \(token.shown)")
        }
    }
}
