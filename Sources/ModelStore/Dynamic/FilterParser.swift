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
    private var tokens: [FilterToken]
    private var position = 0

    /// Parses `text`.
    /// - Throws: `DynamicStoreError.invalidFilter` with the column of the
    ///   first problem.
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
        var node = try parseAnd()
        while accept(.keyword("or"), .symbol("||")) { node = .or(node, try parseAnd()) }
        return node
    }

    private mutating func parseAnd() throws(DynamicStoreError) -> FilterNode {
        var node = try parseUnary()
        while accept(.keyword("and"), .symbol("&&")) { node = .and(node, try parseUnary()) }
        return node
    }

    private mutating func parseUnary() throws(DynamicStoreError) -> FilterNode {
        if accept(.keyword("not"), .symbol("!")) { return .not(try parseUnary()) }
        if current.kind == .symbol("(") {
            let open = current.column
            advance()
            let node = try parseOr()
            guard accept(.symbol(")")) else {
                throw .invalidFilter(column: current.column, reason: "expected ')' to close the '(' at column \(open), found \(current.shown)")
            }
            return node
        }
        return try parseCondition()
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
