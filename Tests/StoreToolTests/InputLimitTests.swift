import Foundation
import ModelStore
import Testing

/// Numbers out of range, filters past the language's limits and SQL that does
/// not compile are bad input with a clear message: never a crash, never
/// "another failure".
@Suite("store-tool: numeric options, filter limits and SQL errors are bad input")
struct InputLimitTests {
    @Test("numeric options out of range are usage errors naming the option and the value")
    func numericOptions() throws {
        let fixture = try Fixture()
        let before = try StoreFiles(fixture)
        let cases: [(arguments: [String], option: String, value: String)] = [
            (["info", fixture.path, "--wait", "inf"], "--wait", "inf"),
            (["info", fixture.path, "--wait", "1e300"], "--wait", "1e300"),
            (["info", fixture.path, "--wait", "9223372036854775807"], "--wait", "9223372036854775807"),
            (["info", fixture.path, "--wait", "nan"], "--wait", "nan"),
            (["info", fixture.path, "--wait=-1"], "--wait", "-1"),
            (["info", fixture.path, "--wait", "86400.5"], "--wait", "86400.5"),
            (["set", fixture.path, "Trip:1", "notes=x", "--wait", "inf"], "--wait", "inf"),
            (["migrate", fixture.path, "--status", "--wait=-inf"], "--wait", "-inf"),
            (["list", fixture.path, "Trip", "--limit=-1"], "--limit", "-1"),
            (["list", fixture.path, "Trip", "--limit", "99999999999999999999"], "--limit", "99999999999999999999"),
            (["list", fixture.path, "Trip", "--offset=-5"], "--offset", "-5"),
            (["list", fixture.path, "Trip", "--offset", "1.5"], "--offset", "1.5"),
            (["show", fixture.path, "Trip:1", "--depth", "101"], "--depth", "101"),
            (["show", fixture.path, "Trip:1", "--depth=-1"], "--depth", "-1"),
            (["migrate", fixture.path, "--scripts", fixture.folder.path(percentEncoded: false), "--to=-1", "--plan"], "--to", "-1"),
            (["migrate", fixture.path, "--scripts", fixture.folder.path(percentEncoded: false), "--to=+3", "--plan"], "--to", "+3"),
        ]
        for (arguments, option, value) in cases {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("The value '\(value)' is invalid for '\(option) "), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(" from 0 to ") || run.stderr.contains("digits, such as 0002"), "\(arguments): \(run.stderr)")
        }
        // The ends of each range work.
        for arguments in [
            ["info", fixture.path, "--wait", "0"], ["info", fixture.path, "--wait", "86400"], ["info", fixture.path, "--wait", "0.25"],
            ["list", fixture.path, "Trip", "--limit", "9223372036854775807", "--offset", "0"],
            ["list", fixture.path, "Trip", "--limit", "0", "--offset", "9223372036854775807"],
            ["show", fixture.path, "Trip:1", "--depth", "100"], ["show", fixture.path, "Trip:1", "--depth", "0"],
        ] {
            let run = try fixture.runTool(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(try fixture.run("list", fixture.path, "Trip", "--limit", "9223372036854775807").lines.count == 3)
        #expect(try fixture.run("list", fixture.path, "Trip", "--offset", "9223372036854775807").lines.isEmpty)
        #expect(try StoreFiles(fixture) == before)
    }

    /// `name == "x"` joined `count` times by `joiner`.
    func chain(_ count: Int, _ joiner: String) -> String {
        Array(repeating: #"name == "x""#, count: count).joined(separator: " \(joiner) ")
    }

    /// `level(inner)` nested `depth` times around `leaf`.
    func nested(_ depth: Int, _ leaf: String, _ level: (String) -> String) -> String {
        (0..<depth).reduce(leaf) { inner, _ in level(inner) }
    }

    @Test("filters past the nesting and condition limits exit 2 with a clear message; every shape at the limits runs")
    func filterLimits() throws {
        let fixture = try Fixture()
        let cases: [(filter: String, mentions: String)] = [
            (chain(600, "and"), "has more than 500 conditions"),
            (chain(501, "or"), "has more than 500 conditions"),
            (chain(5_000, "&&"), "has more than 500 conditions"),
            (String(repeating: "not ", count: 13) + #"name == "x""#, "nests deeper than 12 levels"),
            (String(repeating: "not ", count: 1000) + #"name == "x""#, "nests deeper than 12 levels"),
            (String(repeating: "!", count: 101) + #"name == "x""#, "nests deeper than 12 levels"),
            (String(repeating: "(", count: 5000) + #"name == "x""# + String(repeating: ")", count: 5000), "nests deeper than 12 levels"),
            (String(repeating: "(", count: 100_000), "nests deeper than 12 levels"),
            (nested(13, #"name == "x""#) { #"name == "a" or name == "b" and ("# + $0 + ")" }, "nests deeper than 12 levels"),
            ("nights in [" + (0...10_000).map(String.init).joined(separator: ",") + "]", "lists hold more than 10000 values"),
        ]
        for (filter, mentions) in cases {
            for command in ["count", "list"] {
                let run = try fixture.run(command, fixture.path, "Trip", "--where", filter)
                #expect(run.status == 2, "\(command) \(filter.prefix(40))…: \(run.stderr.prefix(300))")
                #expect(run.stderr.hasPrefix("store-tool: error: invalid filter at column "), "\(run.stderr.prefix(300))")
                #expect(run.stderr.contains(mentions), "\(run.stderr.prefix(300))")
            }
        }
        // At the limits every shape runs, the costliest for SQLite's parser
        // included: an `or` whose `and` holds the next level, with to-many
        // questions (correlated subqueries) at the bottom.
        let leaves = [
            #"stops.title contains "x""#, #"stops.title == "Alfama""#, "stops.count > 1", #"tags contains "food""#,
            #"stops contains "Stop:1""#, #"not stops.title startswith "F""#, #"status in ["planned", "booked"]"#,
        ]
        var filters = [
            chain(500, "and"), chain(500, "or"), String(repeating: "not ", count: 12) + #"name == "Lisbon""#,
            String(repeating: "(", count: 12) + #"name == "x""# + String(repeating: ")", count: 12),
            "nights in [" + (1...10_000).map(String.init).joined(separator: ",") + "]",
            // 12 levels of 41 conditions each: 492 in all.
            nested(12, "nights > 0") { "nights < 0 or " + chain(40, "and") + " and (" + $0 + ")" },
        ]
        for leaf in leaves {
            filters.append(nested(11, leaf) { #"name == "a" or name == "b" and ("# + $0 + ")" })
            filters.append(nested(11, leaf) { #"name == "a" and (name == "b" or "# + $0 + ")" })
            filters.append(nested(5, leaf) { #"not (name == "a" or name == "b" and "# + $0 + ")" })
        }
        for filter in filters {
            let run = try fixture.run("count", fixture.path, "Trip", "--where", filter)
            #expect(run.status == 0, "\(filter.prefix(60))…: \(run.stderr.prefix(300))")
        }
        #expect(try fixture.run("count", fixture.path, "Trip", "--where", String(repeating: "not ", count: 12) + #"name == "Lisbon""#).stdout == "1\n")
        let delete = try fixture.run("delete", fixture.path, "Trip", "--where", chain(600, "or"), "--yes")
        #expect(delete.status == 2 && delete.stderr.contains("more than 500 conditions"), "\(delete.stderr.prefix(300))")
        #expect(try fixture.trips().count == 3)
    }

    @Test("sql: a syntax error, a missing table or column and a refused function are bad input (exit 2)")
    func sqlErrors() throws {
        let fixture = try Fixture()
        let cases: [(sql: String, mentions: String)] = [
            ("SELEC name FROM Trip", "syntax error"), ("SELECT name FROM Trips", "no such table: Trips"),
            ("SELECT nme FROM Trip", "no such column: nme"), ("SELECT json('{oops')", "malformed JSON"),
            ("SELECT no_such_function(1)", "no such function"), ("SELECT " + String(repeating: "(", count: 2000) + "1" + String(repeating: ")", count: 2000), "parser stack overflow"),
            ("SELECT " + Array(repeating: "1", count: 1500).joined(separator: " + "), "too large"),
        ]
        for (sql, mentions) in cases {
            let run = try fixture.run("sql", fixture.path, sql)
            #expect(run.status == 2, "\(sql.prefix(60)): \(run.stderr)")
            #expect(run.stderr.hasPrefix("store-tool: error: invalid SQL: ") && run.stderr.contains(mentions), "\(run.stderr)")
        }
        #expect(try fixture.run("sql", fixture.path, "SELECT count(*) FROM Trip").stdout.contains("3"))
    }
}
