import ModelStore

/// One token of store-tool's filter language, with its 1-based column.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(String)
        case integer(String)
        case real(String)
        case string(String)
        case symbol(String)
        case end
    }

    let kind: Kind
    let column: Int

    /// How the token reads in an error message.
    var shown: String {
        switch kind {
        case .identifier(let name): "'\(name)'"
        case .keyword(let word): "'\(word)'"
        case .integer(let text), .real(let text): text
        case .string: "a string"
        case .symbol(let symbol): "'\(symbol)'"
        case .end: "the end of the filter"
        }
    }
}

/// Splits a filter into tokens. Keywords are case-insensitive; strings are
/// in double or single quotes with backslash escapes (`\"`, `\'`, `\\`,
/// `\n`, `\t`, `\r`, `\0`, `\u{1F600}`).
struct FilterLexer {
    static let keywords: Set<String> = [
        "and", "or", "not", "in", "contains", "icontains", "startswith", "true", "false", "nil", "null",
    ]

    /// - Throws: `DynamicStoreError.invalidFilter` at the first character
    ///   that starts no token, or an unterminated string or bad escape.
    static func tokens(_ text: String) throws(DynamicStoreError) -> [FilterToken] {
        let characters = Array(text)
        var tokens: [FilterToken] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let column = index + 1
            if character.isWhitespace {
                index += 1
            } else if character.isLetter || character == "_" {
                var word = ""
                while index < characters.count, characters[index].isLetter || characters[index].isNumber || characters[index] == "_" {
                    word.append(characters[index])
                    index += 1
                }
                let lowered = word.lowercased()
                tokens.append(FilterToken(kind: keywords.contains(lowered) ? .keyword(lowered) : .identifier(word), column: column))
            } else if character.isASCII && character.isNumber {
                tokens.append(try number(characters, &index))
            } else if let first = character.unicodeScalars.first, first == "\"" || first == "'" {
                // A quote followed by combining marks is one Character ("\u{301}…):
                // the marks open the string's text.
                tokens.append(FilterToken(kind: .string(try string(characters, &index)), column: column))
            } else {
                let pair = index + 1 < characters.count ? String([character, characters[index + 1]]) : ""
                if ["==", "!=", "<=", ">=", "&&", "||"].contains(pair) {
                    tokens.append(FilterToken(kind: .symbol(pair), column: column))
                    index += 2
                } else if "<>()[],.!-".contains(character) {
                    tokens.append(FilterToken(kind: .symbol(String(character)), column: column))
                    index += 1
                } else if character == "=" {
                    throw .invalidFilter(column: column, reason: "'=' is not an operator; compare with '=='")
                } else {
                    throw .invalidFilter(column: column, reason: "unexpected character '\(character)'")
                }
            }
        }
        tokens.append(FilterToken(kind: .end, column: characters.count + 1))
        return tokens
    }

    private static func number(_ characters: [Character], _ index: inout Int) throws(DynamicStoreError) -> FilterToken {
        let column = index + 1
        var text = ""
        var isReal = false
        func digits() {
            while index < characters.count, characters[index].isASCII, characters[index].isNumber {
                text.append(characters[index])
                index += 1
            }
        }
        digits()
        if index + 1 < characters.count, characters[index] == ".", characters[index + 1].isASCII, characters[index + 1].isNumber {
            isReal = true
            text.append(".")
            index += 1
            digits()
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            isReal = true
            text.append("e")
            index += 1
            if index < characters.count, characters[index] == "+" || characters[index] == "-" {
                text.append(characters[index])
                index += 1
            }
            let before = text.count
            digits()
            if text.count == before { throw .invalidFilter(column: index + 1, reason: "an exponent needs digits") }
        }
        if index < characters.count, characters[index].isLetter || characters[index] == "_" {
            throw .invalidFilter(column: index + 1, reason: "a number cannot be followed by '\(characters[index])'")
        }
        return FilterToken(kind: isReal ? .real(text) : .integer(text), column: column)
    }

    private static func string(_ characters: [Character], _ index: inout Int) throws(DynamicStoreError) -> String {
        var marks = characters[index].unicodeScalars
        let quote = Character(marks.removeFirst())
        let start = index + 1
        index += 1
        var value = String(marks)
        while index < characters.count {
            let character = characters[index]
            if character == quote {
                index += 1
                return value
            }
            if character.unicodeScalars.first == quote.unicodeScalars.first {
                throw .invalidFilter(column: index + 1, reason: "a combining mark follows the closing \(quote); write it as \\u{…} inside the string")
            }
            if character == "\\" {
                guard index + 1 < characters.count else { break }
                let escaped = characters[index + 1]
                index += 2
                if escaped.unicodeScalars.count > 1, let first = escaped.unicodeScalars.first, first == "\"" || first == "'" || first == "\\" {
                    // An escaped quote or backslash with combining marks on it.
                    value.append(escaped)
                    continue
                }
                switch escaped {
                case "\"", "'", "\\": value.append(escaped)
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0": value.append("\0")
                case "u":
                    guard index < characters.count, characters[index] == "{",
                        let close = characters[index...].firstIndex(of: "}"),
                        let code = UInt32(String(characters[(index + 1)..<close]), radix: 16),
                        let scalar = Unicode.Scalar(code)
                    else { throw .invalidFilter(column: index - 1, reason: "\\u needs a hexadecimal code such as \\u{E9}") }
                    value.unicodeScalars.append(scalar)
                    index = close + 1
                default:
                    throw .invalidFilter(column: index - 1, reason: "unknown escape '\\\(escaped)'")
                }
                continue
            }
            value.append(character)
            index += 1
        }
        throw .invalidFilter(column: start, reason: "the string that starts here has no closing \(quote)")
    }
}
