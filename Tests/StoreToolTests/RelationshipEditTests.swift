import Foundation
import ModelStore
import Testing
@testable import ModelStore

/// Relationship edits through the tool leave the same rows as the same edit
/// through the typed API, check the same count limits on both sides, and
/// handle every storage a relationship can have.
@Suite("store-tool: relationship edits match the typed API")
struct RelationshipEditTests {
    /// `Entity:ID` of the object whose `field` is `value`.
    func id(_ fixture: GraphFixture, _ entity: String, _ value: String, field: String = "name") throws -> String {
        let run = try fixture.run("list", fixture.path, entity, "--where", "\(field) == \"\(value)\"", "--format", "csv", "--fields", field)
        return try #require(run.lines.dropFirst().first.map { String($0.prefix { $0 != "," }) }, "\(entity) \(value)")
    }

    @Test("moving a member checks the limits of the team it leaves and of the team it joins")
    func toOneMoveChecksBothHolders() throws {
        let fixture = try GraphFixture()
        let (m1, m3) = (try id(fixture, "Player", "M1"), try id(fixture, "Player", "M3"))
        let (teamB, teamC, teamD) = (try id(fixture, "Team", "B"), try id(fixture, "Team", "C"), try id(fixture, "Team", "D"))
        let before = try fixture.rows("SELECT _pk, team, _team_order FROM Player ORDER BY _pk")
        // B would be left with no member (minimum 1): the old holder is checked.
        let leave = try fixture.run("set", fixture.path, m3, "team=\(teamC)")
        #expect(leave.status == 7, "\(leave.stderr)")
        #expect(leave.stderr.contains("\(teamB)") && leave.stderr.contains("members"), "\(leave.stderr)")
        // D would hold three members (maximum 2): the new holder is checked.
        let join = try fixture.run("set", fixture.path, m1, "team=\(teamD)")
        #expect(join.status == 7, "\(join.stderr)")
        #expect(join.stderr.contains("\(teamD)"), "\(join.stderr)")
        // The same through the to-many side: C takes B's only member.
        let take = try fixture.run("set", fixture.path, teamC, "members+=\(m3)")
        #expect(take.status == 7, "\(take.stderr)")
        #expect(take.stderr.contains("\(teamB)"), "\(take.stderr)")
        #expect(try fixture.rows("SELECT _pk, team, _team_order FROM Player ORDER BY _pk") == before)
    }

    @Test("a to-one move and a to-many add leave the order rows a typed save leaves")
    func oneToManyOrderMatchesTypedSave() throws {
        let typed = try GraphFixture()
        let tool = try GraphFixture()
        let context = try typed.context()
        let teams = try context.fetch(FetchDescriptor<Team>(sortBy: [SortDescriptor(\.name)]))
        let members = try context.fetch(FetchDescriptor<Player>(sortBy: [SortDescriptor(\.name)]))
        // M1 leaves A (whose M2 moves up) for the end of C; then B takes M4 from C.
        members[0].team = teams[2]
        try context.save()
        teams[1].members.append(members[3])
        try context.save()
        let (m1, m4) = (try id(tool, "Player", "M1"), try id(tool, "Player", "M4"))
        let (teamB, teamC) = (try id(tool, "Team", "B"), try id(tool, "Team", "C"))
        #expect(try tool.run("set", tool.path, m1, "team=\(teamC)").status == 0)
        let move = try tool.run("set", tool.path, teamB, "members+=\(m4)")
        #expect(move.status == 0, "\(move.stderr)")
        let sql = "SELECT _pk, team, _team_order FROM Player ORDER BY _pk"
        #expect(try tool.rows(sql) == typed.rows(sql))
        let reread = try tool.context()
        let names = try reread.fetch(FetchDescriptor<Team>(sortBy: [SortDescriptor(\.name)])).map { $0.members.map(\.name) }
        #expect(names == [["M2"], ["M3", "M4"], ["M1"], ["M5", "M6"]])
        #expect(try tool.run("check", tool.path).status == 0)
    }

    @Test("many-to-many edits write both sides' order, as a typed save does")
    func manyToManyOrderMatchesTypedSave() throws {
        let typed = try GraphFixture()
        let tool = try GraphFixture()
        let context = try typed.context()
        let people = try context.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.name)]))
        let courses = try context.fetch(FetchDescriptor<Course>(sortBy: [SortDescriptor(\.title)]))
        let (ana, ben) = (people[0], people[1])
        let (art, bio, chem) = (courses[0], courses[1], courses[2])
        ana.courses.append(chem)
        try context.save()
        bio.students.removeAll { $0 === ana }
        try context.save()
        ben.courses = [chem, art]
        try context.save()

        let anaID = try id(tool, "Person", "Ana")
        let benID = try id(tool, "Person", "Ben")
        let (artID, bioID, chemID) = (
            try id(tool, "Course", "Art", field: "title"), try id(tool, "Course", "Bio", field: "title"),
            try id(tool, "Course", "Chem", field: "title")
        )
        for edit in [[anaID, "courses+=\(chemID)"], [bioID, "students-=\(anaID)"], [benID, "courses=\(chemID),\(artID)"]] {
            let run = try tool.run("set", tool.path, edit[0], edit[1])
            #expect(run.status == 0, "\(edit): \(run.stderr)")
        }
        let sql = #"SELECT source, target, source_order, target_order FROM "Course.students" ORDER BY source, target"#
        #expect(try tool.rows(sql) == typed.rows(sql))
        let reread = try tool.context()
        let chemStudents = try reread.fetch(FetchDescriptor<Course>(predicate: #Predicate { $0.title == "Chem" })).first?.students
        #expect(chemStudents?.map(\.name) == ["Ana", "Ben"])
        let benCourses = try reread.fetch(FetchDescriptor<Person>(predicate: #Predicate { $0.name == "Ben" })).first?.courses
        #expect(benCourses?.map(\.title) == ["Chem", "Art"])
        #expect(try tool.run("check", tool.path).status == 0)
    }

    @Test("a one-to-one stored in the other table: set, insert, clear, and from the column's side")
    func oneToOneThroughTheOtherTable() throws {
        let fixture = try GraphFixture()
        let (ana, ben) = (try id(fixture, "Person", "Ana"), try id(fixture, "Person", "Ben"))
        let (p1, p2) = (try id(fixture, "Passport", "P-1", field: "number"), try id(fixture, "Passport", "P-2", field: "number"))
        // Ben takes Ana's passport: she no longer has one.
        #expect(try fixture.run("set", fixture.path, ben, "passport=\(p1)").status == 0)
        #expect(try fixture.run("set", fixture.path, ana, "passport=\(p2)").status == 0)
        let insertPassport = try fixture.run("insert", fixture.path, "Passport", "number=P-3")
        #expect(insertPassport.status == 0, "\(insertPassport.stderr)")
        let p3 = insertPassport.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cy = try fixture.run("insert", fixture.path, "Person", "name=Cy", "passport=\(p3)")
        #expect(cy.status == 0, "\(cy.stderr)")
        // From the column's side: P-2 goes to Ben, who lets go of P-1.
        #expect(try fixture.run("set", fixture.path, p2, "owner=\(ben)").status == 0)
        let context = try fixture.context()
        let people = try context.fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.name)]))
        #expect(people.map { $0.passport?.number } == [nil, "P-2", "P-3"])
        let passports = try context.fetch(FetchDescriptor<Passport>(sortBy: [SortDescriptor(\.number)]))
        #expect(passports.map { $0.owner?.name } == [nil, "Ben", "Cy"])
        #expect(try fixture.run("set", fixture.path, ben, "passport=nil").status == 0)
        #expect(try fixture.context().fetch(FetchDescriptor<Passport>()).allSatisfy { $0.owner?.name != "Ben" })
        #expect(try fixture.run("check", fixture.path).status == 0)
        let shown = try fixture.run("show", fixture.path, cy.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--format", "json")
        #expect(shown.stdout.contains(#""passport":"\#(p3)""#), "\(shown.stdout)")
    }

    @Test("export and import keep one-to-ones, both orders of a many-to-many, and member order")
    func exchangeKeepsEveryStorage() throws {
        let fixture = try GraphFixture()
        let export = fixture.file("graph.json")
        #expect(try fixture.run("export", fixture.path, "--output", export).status == 0)
        let copy = fixture.file("copy.store")
        let imported = try fixture.run("import", copy, export)
        #expect(imported.status == 0, "\(imported.stderr)")
        let again = try fixture.run("export", copy)
        #expect(again.stdout == (try String(contentsOfFile: export, encoding: .utf8)))
        for sql in [
            #"SELECT * FROM "Course.students" ORDER BY source, target"#, "SELECT * FROM Passport ORDER BY _pk",
            "SELECT * FROM Player ORDER BY _pk",
        ] {
            let original = try fixture.rows(sql)
            let copied = try Fixture.runTool(["sql", copy, sql, "--format", "csv"]).lines
            #expect(copied == original, "\(sql)")
        }
    }

    @Test("a compound #Unique is checked before an insert (which would otherwise update the other row) and an edit")
    func compoundUnique() throws {
        let fixture = try GraphFixture()
        let art = try id(fixture, "Course", "Art", field: "title")
        let before = try fixture.rows(#"SELECT * FROM Course ORDER BY _pk"#) + fixture.rows(#"SELECT * FROM "Course.students""#)
        let insert = try fixture.run("insert", fixture.path, "Course", "title=Art")
        #expect(insert.status == 7, "\(insert.stdout) \(insert.stderr)")
        #expect(insert.stderr.contains("Course.(title, term) are unique together (#Unique), and \(art) has the same values"), "\(insert.stderr)")
        let bio = try id(fixture, "Course", "Bio", field: "title")
        let edit = try fixture.run("set", fixture.path, bio, "title=Art")
        #expect(edit.status == 7)
        #expect(edit.stderr.contains("\(art) has the same values"), "\(edit.stderr)")
        #expect(try fixture.rows(#"SELECT * FROM Course ORDER BY _pk"#) + fixture.rows(#"SELECT * FROM "Course.students""#) == before)
        // Another term is another course.
        #expect(try fixture.run("insert", fixture.path, "Course", "title=Art", "term=spring").status == 0)
    }
}

@Suite("store-tool: check finds inconsistent relationships")
struct RelationshipCheckTests {
    @Test("two passports with one owner, an orphan join row, a #Unique pair repeated, a team over its maximum")
    func inconsistentGraph() throws {
        let fixture = try GraphFixture()
        #expect(try fixture.run("check", fixture.path).status == 0)
        let connection = try Connection(location: fixture.path, mode: .readWrite)
        try connection.execute("UPDATE Passport SET owner = 1")
        try connection.execute("DROP INDEX \"Course.unique(title,term)\"")
        try connection.execute("UPDATE Course SET title = 'Art'")
        try connection.execute("UPDATE Player SET team = 1")
        try connection.execute("PRAGMA foreign_keys = OFF")
        try connection.execute(#"INSERT INTO "Course.students" (source, target, source_order, target_order) VALUES (99, 1, 0, 0)"#)
        let run = try fixture.run("check", fixture.path)
        #expect(run.status == 1)
        for expected in [
            "inverse: Passport:1, Passport:2 all hold Person:1 in owner, but its inverse Person.passport is a to-one",
            "unique: 3 objects of Course share one value of (title, term) (#Unique)",
            "count: Team:1.members holds 6 objects, outside its limits",
            "foreign key: row",
        ] {
            #expect(run.stdout.contains(expected), "missing: \(expected)\n\(run.stdout)")
        }
    }
}
