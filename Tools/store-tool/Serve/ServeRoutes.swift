import Hummingbird
import ModelStore
import ModelStoreDynamic

/// `serve`'s routes. Reads are GETs; every write is a POST whose form
/// carries the token (checked again here, beside the cookie the middleware
/// checked) and goes through the same dynamic-layer calls as `set`,
/// `insert` and `delete`, so it gets their checks and their error messages.
///
/// | Route | Page |
/// |---|---|
/// | `GET /` | the entities with their counts |
/// | `GET /list?entity=&where=&sort=&limit=&offset=` | `list` |
/// | `GET /show?id=Entity:ID` | `show`, with a `set` form per property |
/// | `GET /schema` | the diagram and `schema` |
/// | `GET /new?entity=` | the insert form |
/// | `GET /delete?id=` | `delete`'s plan, with a button that deletes |
/// | `POST /set`, `/insert`, `/delete` | the writes |
struct ServeRoutes: Sendable {
    let store: ServedStore
    let token: AccessToken
    /// The largest form body a write accepts.
    static let maximumFormSize = 1 << 20

    /// The router with the token middleware in front of every route.
    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessTokenMiddleware(token: token))
        router.get("/") { _, _ in self.read { try BrowsePages.entities($0, served: self.store) } }
        router.get("/list") { request, _ in
            self.read { try BrowsePages.list($0, try BrowsePages.ListRequest(FormData(request.uri.query)), served: self.store) }
        }
        router.get("/show") { request, _ in
            let form = FormData(request.uri.query)
            let notice: HTML = form["saved"].map { "<p class=\"notice\" id=\"notice\">Saved \($0).</p>" } ?? ""
            return self.read { try ObjectPages.show($0, id: form["id"] ?? "", served: self.store, token: self.token, message: notice) }
        }
        router.get("/schema") { _, _ in self.read { SchemaPage.page($0, served: self.store) } }
        router.get("/new") { request, _ in
            self.read { try ObjectPages.new($0, entity: FormData(request.uri.query)["entity"] ?? "", served: self.store, token: self.token) }
        }
        router.get("/delete") { request, _ in
            self.read { try ObjectPages.deletePlan($0, id: FormData(request.uri.query)["id"] ?? "", served: self.store, token: self.token) }
        }
        router.post("/set") { request, _ in await self.write(request) { store, form in try self.set(store, form) } }
        router.post("/insert") { request, _ in await self.write(request) { store, form in try self.insert(store, form) } }
        router.post("/delete") { request, _ in await self.write(request) { store, form in try self.delete(store, form) } }
        return router
    }

    private func set(_ store: DynamicStore, _ form: FormData) throws -> Response {
        let text = form["id"] ?? ""
        do {
            let edit = try ObjectPages.edit(form)
            _ = try store.explained { try store.update(try store.objectID(text), [edit]) }
            return Self.redirect(HTML.link("/show", ["id": text, "saved": edit.property]))
        } catch {
            let (status, message) = describe(error)
            let page = try ObjectPages.show(store, id: text, served: self.store, token: token, message: Layout.error(message))
            return Self.html(page, status: Self.httpStatus(status))
        }
    }

    private func insert(_ store: DynamicStore, _ form: FormData) throws -> Response {
        let entity = form["entity"] ?? ""
        do {
            let result = try store.explained { try store.insert(entity, ObjectPages.insertEdits(form)) }
            return Self.redirect(HTML.link("/show", ["id": result.id.description, "saved": "the new object"]))
        } catch {
            let (status, message) = describe(error)
            let page = try ObjectPages.new(store, entity: entity, served: self.store, token: token, form: form, message: Layout.error(message))
            return Self.html(page, status: Self.httpStatus(status))
        }
    }

    private func delete(_ store: DynamicStore, _ form: FormData) throws -> Response {
        let id = try store.objectID(form["id"] ?? "")
        let plan = try store.delete([id])
        let count = plan.deleted.count
        return Self.html(
            Layout.page(
                "Deleted \(id.description)", store: self.store,
                "<p class=\"notice\" id=\"notice\">Deleted \(count) object\(count == 1 ? "" : "s").</p><p>\(Layout.entityLink(id.entity))</p>"))
    }

    /// A page that reads the store; an error becomes a page with the
    /// command line's message and the status that matches its exit code.
    private func read(_ render: (DynamicStore) throws -> HTML) -> Response {
        do {
            return Self.html(try store.use(render))
        } catch let failed as FailedPage {
            return Self.html(failed.page, status: Self.httpStatus(failed.status))
        } catch {
            return failure(error)
        }
    }

    /// A write: refused when the store is served read-only or the form's
    /// token is wrong; otherwise `body` on the store opened for writing.
    private func write(_ request: Request, _ body: (DynamicStore, FormData) throws -> Response) async -> Response {
        guard !store.isReadOnly else {
            return Self.plain("403 Forbidden: the store is served read-only (--read-only); nothing can be changed\n", status: .forbidden)
        }
        var request = request
        let form: FormData
        do {
            form = FormData(String(buffer: try await request.collectBody(upTo: Self.maximumFormSize)))
        } catch {
            return Self.plain("413 the form is larger than \(Self.maximumFormSize) bytes\n", status: .contentTooLarge)
        }
        guard token.matches(form["token"]) else { return AccessTokenMiddleware<BasicRequestContext>.refusal }
        do {
            return try store.use(writing: true) { try body($0, form) }
        } catch {
            return failure(error)
        }
    }

    private func failure(_ error: any Error) -> Response {
        let (status, message) = describe(error)
        return Self.html(Layout.page("Error", store: store, Layout.error(message)), status: Self.httpStatus(status))
    }

    /// The HTTP status of what the command line would exit with.
    static func httpStatus(_ status: ExitStatus) -> HTTPResponse.Status {
        switch status {
        case .badInput: .badRequest
        case .notFound: .notFound
        case .refused: .conflict
        case .locked: .serviceUnavailable
        case .cannotOpen: .forbidden
        case .success, .problemsFound, .newerFormat, .failure, .cannotWrite: .internalServerError
        }
    }

    /// Headers every page carries: nothing from elsewhere may load or frame
    /// it, it runs no script, and no cache keeps it (the page itself says
    /// to send no referrer).
    private static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .cacheControl: "no-store",
    ]

    static func html(_ page: HTML, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: pageHeaders, body: .init(byteBuffer: ByteBuffer(string: page.markup)))
    }

    private static func plain(_ text: String, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// After a write, the page to see it on (303: the browser GETs it, so a reload does not repeat the write).
    private static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }
}
