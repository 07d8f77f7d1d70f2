import Foundation
import ModelStore
import Testing

@Model final class Ticket {
    @Attribute(.preserveValueOnDeletion) var code: String
    var seat: Int = 0

    init(code: String) { self.code = code }
}

@Suite("store-tool: history")
struct HistoryCommandTests {
    /// The fixture's store after its first save (token 1, by the test
    /// process), a store-tool edit (token 2) and a store-tool delete (token 3).
    private func edited() throws -> Fixture {
        let fixture = try Fixture()
        #expect(try fixture.run("set", fixture.path, "Trip:3", "notes=Aurora", "nights=4").status == 0)
        #expect(try fixture.run("delete", fixture.path, "Stop:3", "--yes").status == 0)
        return fixture
    }

    @Test("lists transactions oldest first with token, time, author, process, counts and changes")
    func listsText() throws {
        let fixture = try edited()
        let run = try fixture.run("history", fixture.path)
        #expect(run.status == 0, "\(run.stderr)")
        let headers = run.lines.filter { $0.hasPrefix("token ") }
        #expect(headers.count == 3)
        #expect(headers[0].hasPrefix("token 1  ") && headers[0].contains("author -") && headers[0].contains("7 inserted, 0 updated, 0 deleted"))
        #expect(headers[1].hasPrefix("token 2  ") && headers[1].contains("author store-tool") && headers[1].contains("process store-tool"))
        #expect(headers[1].contains("0 inserted, 1 updated, 0 deleted"))
        #expect(run.lines.contains("  update Trip:3 notes, nights"))
        #expect(run.lines.contains("  delete Stop:3"))
        #expect(run.lines.contains("  insert Traveler:1"))
    }

    @Test("--since, --limit, --author and --json select and shape the output")
    func selects() throws {
        let fixture = try edited()
        let since = try fixture.run("history", fixture.path, "--since", "1", "--limit", "1")
        #expect(since.lines.filter { $0.hasPrefix("token ") }.map { String($0.prefix(8)) } == ["token 2 "])
        let json = try fixture.run("history", fixture.path, "--author", "store-tool", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(decoded.map { $0["token"] as? Int } == [2, 3])
        #expect(decoded.allSatisfy { $0["author"] as? String == "store-tool" })
        let changes = try #require(decoded[0]["changes"] as? [[String: Any]])
        #expect(changes.first?["id"] as? String == "Trip:3")
        #expect(changes.first?["properties"] as? [String] == ["notes", "nights"])
        #expect(decoded[1]["deleted"] as? Int == 1)
        let format = try fixture.run("history", fixture.path, "--since", "2", "--format", "json")
        #expect((try JSONSerialization.jsonObject(with: Data(format.stdout.utf8)) as? [Any])?.count == 1)
        #expect(try fixture.run("history", fixture.path, "--since", "3").stdout.isEmpty)
    }

    @Test("a delete shows the preserved values")
    func tombstone() throws {
        let folder = testRoot.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appending(path: "tickets.store")
        let context = ModelContext(try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(url: url)))
        let ticket = Ticket(code: "A\"1")
        context.insert(ticket)
        try context.save()
        context.delete(ticket)
        try context.save()
        let path = url.path(percentEncoded: false)
        let text = try Fixture.runTool(["history", path, "--since", "1"])
        #expect(text.lines.last == #"  delete Ticket:1 {"code":"A\"1"}"#)
        let json = try Fixture.runTool(["history", path, "--since", "1", "--json"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let change = try #require((decoded.first?["changes"] as? [[String: Any]])?.first)
        #expect((change["tombstone"] as? [String: Any])?["code"] as? String == "A\"1")
    }

    @Test("--prune-before deletes earlier transactions (--dry-run only counts); --since before them warns")
    func prunes() throws {
        let fixture = try edited()
        let dry = try fixture.run("history", fixture.path, "--prune-before", "3", "--dry-run")
        #expect(dry.status == 0)
        #expect(dry.stdout == "dry run: would delete 2 transactions before token 3; nothing was deleted\n")
        #expect(try fixture.run("history", fixture.path).lines.filter { $0.hasPrefix("token ") }.count == 3)
        let pruned = try fixture.run("history", fixture.path, "--prune-before", "3")
        #expect(pruned.stdout == "deleted 2 transactions before token 3\n")
        #expect(try fixture.run("history", fixture.path).lines.filter { $0.hasPrefix("token ") }.map { String($0.prefix(8)) } == ["token 3 "])
        let stale = try fixture.run("history", fixture.path, "--since", "1")
        #expect(stale.status == 0)
        #expect(stale.stderr.contains("1 transaction after token 1 was pruned"))
        #expect(!(try fixture.run("history", fixture.path, "--since", "2")).stderr.contains("warning"))
        // The app sees the same.
        let context = try fixture.context()
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.transactionIdentifier) == [3])
    }

    @Test("reads work on a read-only file; bad arguments are usage errors; pruning a read-only file cannot open it for writing")
    func readOnlyAndArguments() throws {
        let fixture = try edited()
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: fixture.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.path) }
        let read = try fixture.run("history", fixture.path, "--since", "2")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.lines.first?.hasPrefix("token 3  ") == true)
        if getuid() != 0 {
            #expect(try fixture.run("history", fixture.path, "--prune-before", "2").status == 4)
        }
        #expect(try fixture.run("history", fixture.path, "--since", "-1").status == 64)
        #expect(try fixture.run("history", fixture.path, "--dry-run").status == 64)
        #expect(try fixture.run("history", fixture.path, "--prune-before", "2", "--since", "1").status == 64)
        #expect(try fixture.run("history", fixture.path, "--format", "csv").status == 64)
    }
}
