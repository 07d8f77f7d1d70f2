import Foundation
import ModelStore
import Testing

/// `check --format json|jsonl`: each problem as an object with its kind,
/// entity, object, property and message.
@Suite("store-tool check: JSON output")
struct CheckFormatTests {
    /// The problems of a JSON array or of JSON lines, as dictionaries.
    private func objects(_ text: String, lines: Bool) throws -> [[String: Any]] {
        let documents = lines ? text.split(separator: "\n").map(String.init) : [text]
        return try documents.flatMap { document -> [[String: Any]] in
            let value = try JSONSerialization.jsonObject(with: Data(document.utf8))
            if lines { return [try #require(value as? [String: Any])] }
            return try #require(value as? [[String: Any]])
        }
    }

    @Test("the graph's problems carry their kind, entity, object and property, in json and jsonl")
    func structuredFields() throws {
        let fixture = try GraphFixture()
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE Passport SET owner = 1")
        try connection.execute("DROP INDEX \"Course.unique(title,term)\"")
        try connection.execute("UPDATE Course SET title = 'Art'")
        try connection.execute("UPDATE Player SET team = 1")
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute(#"INSERT INTO "Course.students" (source, target, source_order, target_order) VALUES (99, 1, 0, 0)"#)
        let json = try fixture.run("check", fixture.path, "--format", "json")
        #expect(json.status == 1, "\(json.stderr)")
        let jsonl = try fixture.run("check", fixture.path, "--format", "jsonl")
        #expect(jsonl.status == 1, "\(jsonl.stderr)")
        let problems = try objects(json.stdout, lines: false)
        #expect(problems.count == (try objects(jsonl.stdout, lines: true)).count)
        #expect(jsonl.lines.count == problems.count)
        func find(_ kind: String) -> [String: Any]? { problems.first { $0["kind"] as? String == kind } }

        let inverse = try #require(find("inverseConflict"), "\(json.stdout)")
        #expect(inverse["entity"] as? String == "Person" && inverse["object"] as? String == "Person:1")
        #expect(inverse["property"] as? String == "passport")
        #expect(
            inverse["message"] as? String
                == "Passport:1, Passport:2 all hold Person:1 in owner, but its inverse Person.passport is a to-one")
        let unique = try #require(find("duplicateUniqueValue"))
        #expect(unique["entity"] as? String == "Course" && unique["property"] as? String == "(title, term)")
        #expect(unique["object"] is NSNull)
        let count = try #require(find("countOutOfLimits"))
        #expect(count["entity"] as? String == "Team" && count["object"] as? String == "Team:1" && count["property"] as? String == "members")
        let orphan = try #require(find("orphanedJoinRow"))
        #expect(orphan["property"] as? String == "students" || orphan["property"] as? String == "courses", "\(orphan)")
        #expect(orphan["object"] is NSNull)
        #expect(problems.allSatisfy { $0["suggestions"] is [Any] && $0["line"] is NSNull })
    }

    @Test("a healthy store is an empty array in json and no lines in jsonl; csv is refused")
    func healthy() throws {
        let fixture = try GraphFixture()
        let json = try fixture.run("check", fixture.path, "--format", "json")
        #expect(json.status == 0 && json.stdout == "[]\n", "\(json.stdout)\(json.stderr)")
        let jsonl = try fixture.run("check", fixture.path, "--format", "jsonl")
        #expect(jsonl.status == 0 && jsonl.stdout.isEmpty)
        #expect(try fixture.run("check", fixture.path, "--format", "csv").status == 64)
    }
}
