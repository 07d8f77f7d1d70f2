import Foundation
import Testing

@Suite("store-tool: tables line up in terminal cells; formats a command cannot print are refused")
struct TableOutputTests {
    /// Terminal cells of text made of ASCII, "…" and CJK characters only
    /// (the last take two cells each).
    private func cells(_ text: Substring) -> Int {
        text.reduce(0) { $0 + ($1.isASCII || $1 == "…" ? 1 : 2) }
    }

    @Test("a value wider than its column is cut with …; wide characters count two cells; later columns stay in place")
    func columnsStayInPlace() throws {
        let fixture = try Fixture()
        let long = String(repeating: "Lisboa ", count: 15)
        #expect(try fixture.run("set", fixture.path, "Stop:1", "title=\(long)").status == 0)
        #expect(try fixture.run("set", fixture.path, "Stop:2", "title=東京タワー").status == 0)
        let table = try fixture.run("list", fixture.path, "Stop", "--format", "table", "--fields", "title,trip")
        #expect(table.status == 0)
        let rows = table.lines.filter { $0.hasPrefix("Stop:") }
        #expect(rows.count == 3)
        // The trip column starts at the same cell on every row, the header's too.
        let starts = ([table.lines[0]] + rows).map { line -> Int in
            let column = line.range(of: "trip") ?? line.range(of: "Trip:")
            return column.map { cells(line[..<$0.lowerBound]) } ?? -1
        }
        #expect(Set(starts).count == 1, "\(table.lines)")
        #expect(rows[0].contains("…") && !rows[0].contains(long))
        #expect(rows[1].contains("東京タワー"))
    }

    @Test("info and show refuse --format csv, which they cannot print")
    func csvRefused() throws {
        let fixture = try Fixture()
        #expect(try fixture.run("info", fixture.path, "--format", "csv").status == 64)
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "csv").status == 64)
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").status == 0)
    }
}
