import Foundation
import Testing

/// `store-tool serve` over HTTP, without a browser: the token, the pages
/// that read, and the writes with the command line's checks and messages.
@Suite("store-tool serve: HTTP")
struct ServeTests {
    @Test("every request needs the token: a wrong or missing one is 403; the right one in the URL sets an HttpOnly, SameSite=Strict cookie and redirects to the page without it")
    func token() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        #expect(serve.url.hasPrefix("http://127.0.0.1:"), "\(serve.url)")
        #expect(serve.token.count == 32 && serve.token.allSatisfy(\.isHexDigit), "128 bits as hex: \(serve.token)")
        #expect(try await serve.get("/").status == 403)
        #expect(try await serve.get("/?token=0123456789abcdef0123456789abcdef").status == 403)
        #expect(try await serve.get("/list?entity=Trip", cookie: "store_tool_token=nope").status == 403)
        // One hex digit off: the last one changed (replacing it with "0"
        // gave the right token whenever it ended in "0", one run in 16).
        let wrongLast = serve.token.last == "0" ? "1" : "0"
        let refused = try await serve.get("/?token=\(serve.token.dropLast())\(wrongLast)")
        #expect(refused.status == 403 && !refused.body.contains("Trip"), "\(refused.body)")
        let first = try await serve.get("/?token=\(serve.token)")
        #expect(first.status == 303 && first.header("Location") == "/", "the token leaves the address bar")
        let deeper = try await serve.get("/list?entity=Trip&token=\(serve.token)&sort=name")
        #expect(deeper.status == 303 && deeper.header("Location") == "/list?entity=Trip&sort=name")
        let cookie = try #require(first.header("Set-Cookie"))
        #expect(cookie.contains("store_tool_token=\(serve.token)") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "\(cookie)")
        #expect(try await serve.page("/list?entity=Trip").status == 200)
        // A right cookie does not rescue a wrong token in the URL.
        #expect(try await serve.get("/?token=wrong", cookie: "store_tool_token=\(serve.token)").status == 403)
        #expect(serve.stop() == 0, "SIGTERM ends serve with 0: \(serve.stderr)")
    }

    @Test("the entities page counts each entity's objects")
    func entities() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let page = try await serve.page("/")
        for (entity, count) in [("Trip", 3), ("Stop", 3), ("Traveler", 1)] {
            #expect(page.body.contains(">\(entity)</a> <a href=\"/new?entity=\(entity)\">new</a></td><td class=\"count\">\(count)</td>"), "\(page.body)")
        }
    }

    @Test("list takes list's filter language, sort keys and paging; a bad filter shows the command line's error")
    func list() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let filtered = try await serve.page("/list?entity=Trip&where=" + ServeProcess.encode("name contains \"o\" and stops.count > 0"))
        #expect(filtered.status == 200)
        #expect(filtered.body.contains("Lisbon") && filtered.body.contains("Kyoto") && !filtered.body.contains("Reykjavik"), "\(filtered.body)")
        #expect(filtered.body.contains("1–2 of 2"))
        let sorted = try await serve.page("/list?entity=Trip&sort=name:desc&limit=1&offset=1")
        #expect(sorted.body.contains("Lisbon") && !sorted.body.contains("Kyoto") && !sorted.body.contains("Reykjavik"), "\(sorted.body)")
        #expect(sorted.body.contains("2–2 of 3") && sorted.body.contains("rel=\"next\"") && sorted.body.contains("rel=\"prev\""))
        let bad = try await serve.page("/list?entity=Trip&where=" + ServeProcess.encode("nights = 3"))
        let expected = cliError(try fixture.run("list", fixture.path, "Trip", "--where", "nights = 3"))
        #expect(!expected.isEmpty)
        #expect(bad.status == 400 && bad.body.contains(ServeProcess.escaped(expected)), "\(expected) in \(bad.body)")
        let unknown = try await serve.page("/list?entity=Trips")
        #expect(unknown.status == 400 && unknown.body.contains("the store has no entity named &#39;Trips&#39;"), "\(unknown.body)")
    }

    @Test("show links each related object, and a link leads to its page")
    func show() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let trip = try await serve.page("/show?id=Trip:1")
        #expect(trip.status == 200)
        #expect(trip.body.contains("<a href=\"/show?id=Stop%3A1\">Stop:1</a>, <a href=\"/show?id=Stop%3A2\">Stop:2</a>"), "\(trip.body)")
        #expect(trip.body.contains("<a href=\"/show?id=Traveler%3A1\">Traveler:1</a>"))
        let stop = try await serve.page("/show?id=Stop%3A1")
        #expect(stop.body.contains("Belém") && stop.body.contains("<a href=\"/show?id=Trip%3A1\">Trip:1</a>"), "\(stop.body)")
        #expect(try await serve.page("/show?id=Trip:99").status == 404)
    }

    @Test("every value from the store is escaped")
    func escaping() async throws {
        let fixture = try Fixture()
        #expect(try fixture.run("set", fixture.path, "Trip:1", "notes=<script>alert('x')</script> & \"more\"").status == 0)
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        for path in ["/show?id=Trip:1", "/list?entity=Trip"] {
            let page = try await serve.page(path)
            #expect(!page.body.contains("<script>alert"), "\(path)")
            #expect(page.body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"), "\(path): \(page.body)")
        }
    }

    @Test("a set form's POST is stored, as store-tool show reads it back; a bad value gets set's error and changes nothing")
    func edit() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let stored = try await serve.post("/set", [("id", "Trip:1"), ("property", "nights"), ("value", "7")])
        #expect(stored.status == 303 && stored.header("Location") == "/show?id=Trip%3A1&saved=nights", "\(stored.status) \(stored.body)")
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"nights\":7"))
        let notes = try await serve.post("/set", [("id", "Trip:1"), ("property", "notes"), ("value", "nil")])
        #expect(notes.status == 303)
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"notes\":\"nil\""), "the text, literally")
        _ = try await serve.post("/set", [("id", "Trip:1"), ("property", "notes"), ("value", ""), ("nil", "1")])
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"notes\":null"))

        let expected = cliError(try fixture.run("set", fixture.path, "Trip:1", "nights=abc"))
        #expect(expected.contains("Trip.nights"), "\(expected)")
        let bad = try await serve.post("/set", [("id", "Trip:1"), ("property", "nights"), ("value", "abc")])
        #expect(bad.status == 400 && bad.body.contains(ServeProcess.escaped(expected)), "\(expected) in \(bad.body)")
        let misspelt = try await serve.post("/set", [("id", "Trip:1"), ("property", "nigths"), ("value", "2")])
        #expect(misspelt.status == 400 && misspelt.body.contains("did you mean"), "\(misspelt.body)")
        let unique = try await serve.post("/set", [("id", "Trip:1"), ("property", "name"), ("value", "Kyoto")])
        let uniqueError = cliError(try fixture.run("set", fixture.path, "Trip:1", "name=Kyoto"))
        #expect(unique.status == 409 && unique.body.contains(ServeProcess.escaped(uniqueError)), "\(uniqueError) in \(unique.body)")
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"nights\":7"))
    }

    @Test("a POST without the token in its form is refused, whatever its cookie")
    func postNeedsToken() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let refused = try await serve.post("/set", [("id", "Trip:1"), ("property", "nights"), ("value", "9")], token: "")
        #expect(refused.status == 403)
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"nights\":3"))
    }

    @Test("insert and delete: insert's checks, delete's plan with its cascades and deny rules")
    func insertAndDelete() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let form = try await serve.page("/new?entity=Trip")
        #expect(form.body.contains("name=\"v.nights\"") && form.body.contains("default 3"), "\(form.body)")
        let inserted = try await serve.post("/insert", [("entity", "Stop"), ("v.title", "Ribeira"), ("v.trip", "Trip:1")])
        #expect(inserted.status == 303 && inserted.header("Location")?.hasPrefix("/show?id=Stop%3A4") == true, "\(inserted.body)")
        #expect(try fixture.run("show", fixture.path, "Stop:4", "--format", "json").stdout.contains("\"trip\":\"Trip:1\""))
        let missing = try await serve.post("/insert", [("entity", "Trip"), ("v.name", "Porto")])
        let missingError = cliError(try fixture.run("insert", fixture.path, "Trip", "name=Porto"))
        #expect(missing.status == 409 && missing.body.contains(ServeProcess.escaped(missingError)), "\(missingError) in \(missing.body)")
        #expect(missing.body.contains("value=\"Porto\""), "the form keeps what was typed")

        let plan = try await serve.page("/delete?id=Trip:2")
        #expect(plan.body.contains("<li>Trip: 1 (selected)</li>") && plan.body.contains("<li>Stop: 1 (cascade from Trip.stops)</li>"), "\(plan.body)")
        let deleted = try await serve.post("/delete", [("id", "Trip:2")])
        #expect(deleted.status == 200 && deleted.body.contains("Deleted 2 objects"), "\(deleted.body)")
        #expect(try fixture.run("count", fixture.path, "Stop").stdout == "3\n")
        let blocked = try await serve.page("/delete?id=Traveler:1")
        #expect(blocked.body.contains("still holds") && !blocked.body.contains("confirm-delete"), "\(blocked.body)")
        let denied = try await serve.post("/delete", [("id", "Traveler:1")])
        #expect(denied.status == 409, "\(denied.body)")
        #expect(try fixture.run("count", fixture.path, "Traveler").stdout == "1\n")
    }

    @Test("the schema page draws the diagram as SVG: a box per entity, a line per relationship with its cardinalities")
    func schema() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, folder: fixture.folder)
        defer { _ = serve.stop() }
        let page = try await serve.page("/schema").body
        #expect(page.contains("<svg id=\"er-diagram\""))
        for entity in ["Trip", "Stop", "Traveler"] { #expect(page.contains("data-entity=\"\(entity)\""), "\(entity)") }
        #expect(page.contains(">nights: Int</text>"), "attributes in the boxes")
        #expect(page.components(separatedBy: "<g class=\"relationship\">").count - 1 == 2, "Trip–Stop and Trip–Traveler, each once: \(page)")
        #expect(page.contains(">stops / trip</text>") || page.contains(">trip / stops</text>"), "\(page)")
        #expect(page.contains("class=\"cardinality\"") && page.contains(">*</text>") && page.contains(">0..1</text>"))
        #expect(page.contains("delete rule cascade, inverse Stop.trip"), "schema's notes")
    }

    @Test("--read-only opens the store read-only: no edit forms, and every POST is refused")
    func readOnly() async throws {
        let fixture = try Fixture()
        let serve = try ServeProcess(fixture.path, ["--read-only"], folder: fixture.folder)
        defer { _ = serve.stop() }
        let show = try await serve.page("/show?id=Trip:1")
        #expect(show.status == 200 && show.body.contains("read-only") && !show.body.contains("method=\"post\""), "\(show.body)")
        #expect(!(try await serve.page("/").body.contains("/new?")))
        for path in ["/set", "/insert", "/delete"] {
            let refused = try await serve.post(path, [("id", "Trip:1"), ("property", "nights"), ("value", "9"), ("entity", "Stop"), ("v.title", "x")])
            #expect(refused.status == 403, "\(path)")
        }
        #expect(try fixture.run("show", fixture.path, "Trip:1", "--format", "json").stdout.contains("\"nights\":3"))
        #expect(try fixture.run("count", fixture.path, "Stop").stdout == "3\n")
    }

    @Test("serve listens on 127.0.0.1 without a word; another --host is warned about; Ctrl-C ends it with 0; help shows an example")
    func lifecycle() async throws {
        let fixture = try Fixture()
        let local = try ServeProcess(fixture.path, folder: fixture.folder)
        #expect(try await local.page("/").status == 200)
        #expect(local.interrupt() == 0)
        #expect(local.stderr.isEmpty, "\(local.stderr)")
        let open = try ServeProcess(fixture.path, ["--host", "0.0.0.0"], folder: fixture.folder)
        #expect(open.url.hasPrefix("http://0.0.0.0:"), "\(open.url)")
        #expect(open.stderr.contains("store-tool: warning: listening on 0.0.0.0: other machines can connect"), "\(open.stderr)")
        #expect(open.interrupt() == 0)
        let help = try fixture.run("help", "serve")
        #expect(help.stdout.contains("Example") && help.stdout.contains("store-tool serve trips.store"), "\(help.stdout)")
    }

    @Test("a store that cannot be opened exits as the other commands do; a port out of range is a usage error")
    func startFailures() throws {
        let fixture = try Fixture()
        let missing = try fixture.run("serve", fixture.file("missing.store"), "--port", "0")
        #expect(missing.status == 4 && missing.stdout.isEmpty, "\(missing.stderr)")
        // A store this user cannot write can only be served --read-only, as
        // any write command exits 4 on it.
        let readOnly = try Fixture()
        try ReadOnly.protect(readOnly, file: 0o444, folder: 0o777)
        defer { ReadOnly.release(readOnly) }
        let unwritable = try Unprivileged.run(["serve", readOnly.path, "--port", "0"])
        #expect(unwritable.status == 4 && unwritable.stdout.isEmpty && unwritable.stderr.contains("not writable"), "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("serve it with --read-only"), "\(unwritable.stderr)")
        #expect(!missing.stderr.contains("--read-only"), "a missing store cannot be served read-only either: \(missing.stderr)")
        let port = try fixture.run("serve", fixture.path, "--port", "70000")
        #expect(port.status == 64 && port.stderr.contains("expected a port from 0 to 65535"), "\(port.stderr)")
    }
}
