import Foundation
import Testing

/// `import --progress` writes progress lines on a stderr that is not a
/// terminal; without it, a piped import prints nothing extra.
@Suite("store-tool: import progress when piped")
struct ImportProgressTests {
    @Test("--progress writes each phase as lines on a piped stderr; without it nothing is written")
    func progressLines() throws {
        let fixture = try Fixture(populated: false)
        let file = fixture.file("stops.jsonl")
        let lines = (1...25_000).map { #"{"key":"Stop:\#($0)","attributes":{"title":"stop \#($0)"}}"# }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)

        let quiet = try fixture.run("import", fixture.path, file, "--dry-run")
        #expect(quiet.status == 0, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")

        let shown = try fixture.run("import", fixture.path, file, "--progress")
        #expect(shown.status == 0, "\(shown.stderr)")
        let progress = shown.stderr.split(separator: "\n").map(String.init)
        #expect(progress.contains("import: checking 10000"), "\(progress)")
        #expect(progress.contains("import: inserting 20000/25000"), "\(progress)")
        #expect(progress.contains { $0.hasPrefix("import: linking ") }, "\(progress)")
        #expect(!shown.stderr.contains("\u{1B}"), "lines, not a line rewritten in place")
        #expect(shown.stdout == "imported 25000 objects (Stop 25000)\n")
    }
}
