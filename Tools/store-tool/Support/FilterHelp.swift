/// The filter language's grammar and forms, as `store-tool --help` and
/// `store-tool help list` print them. It restates `FilterParser`'s grammar
/// (Sources/ModelStore/Dynamic/FilterParser.swift) and `FilterLexer`'s
/// literals for a user; keep the three in step (MANUAL.md has it too).
enum FilterHelp {
    static let grammar = """
        Filters (--where of list, count and delete):
          filter     := or
          or         := and (("or" | "||") and)*
          and        := unary (("and" | "&&") unary)*
          unary      := ("not" | "!") unary | "(" filter ")" | condition
          condition  := operand [op operand | "contains" operand | "icontains" operand
                                 | "startswith" operand | ["not"] "in" list]
          op         := "==" | "!=" | "<" | "<=" | ">" | ">="
          operand    := path | literal
          path       := name ("." name)*
          literal    := number | string | true | false | nil
          list       := "[" [literal ("," literal)*] "]"
        A path goes through to-ones; on a to-many it asks whether any member matches \
        (stops.title == "Alfama"), or counts them (stops.count > 2). Keywords are \
        case-insensitive. Strings are in double or single quotes, with the escapes \
        \\" \\' \\\\ \\n \\t \\r \\0 \\u{E9}. A literal is typed by the property it is \
        compared with (a date takes an ISO 8601 string). A path alone is true for a Bool \
        that is true, a to-one that is set, a to-many that is not empty. icontains \
        ignores case and diacritics. Identifiers: id > 100, trip == "Trip:1". Enums \
        by raw value.
        Examples:
          startDate >= "2026-01-01" and status in ["planned", "booked"]
          trip.name == "Lisbon" or not (notes == nil)
          tags contains "food" and name icontains "lis"
        """
}
