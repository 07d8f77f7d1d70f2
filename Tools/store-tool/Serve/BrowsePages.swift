import ModelStore
import ModelStoreDynamic

/// The pages that read: the entities with their counts, and one entity's
/// objects with `list`'s filter language, sorting and paging.
enum BrowsePages {
    /// How many objects a list page shows when the URL says nothing.
    static let defaultPageSize = 50

    /// Every entity with its number of objects, as `info` counts them.
    /// - Throws: what `DynamicStore.count` throws.
    static func entities(_ store: DynamicStore, served: ServedStore) throws -> HTML {
        var rows: [HTML] = []
        for entity in store.schema.entities {
            let create: HTML = served.isReadOnly ? "" : " <a href=\"\(HTML.link("/new", ["entity": entity.name]))\">new</a>"
            rows.append("<tr><td>\(Layout.entityLink(entity.name))\(create)</td><td class=\"count\">\(try store.count(entity.name))</td></tr>")
        }
        return Layout.page(
            "Entities", store: served,
            "<table id=\"entities\"><tr><th>Entity</th><th>Objects</th></tr>\(rows)</table>")
    }

    /// What a list page was asked for: `list`'s options as URL fields.
    struct ListRequest {
        var entity: String
        var filter: String?
        var sort: String?
        var limit: Int
        var offset: Int

        /// Reads `entity`, `where`, `sort`, `limit` and `offset`.
        /// - Throws: `ToolError.badInput` naming a field that is missing or not a count.
        init(_ form: FormData) throws {
            guard let entity = form.nonEmpty("entity") else { throw ToolError.badInput("the URL names no entity (?entity=NAME)") }
            self.entity = entity
            filter = form.nonEmpty("where")
            sort = form.nonEmpty("sort")
            limit = try Self.count(form, "limit") ?? BrowsePages.defaultPageSize
            offset = try Self.count(form, "offset") ?? 0
        }

        private static func count(_ form: FormData, _ name: String) throws -> Int? {
            guard let text = form.nonEmpty(name) else { return nil }
            guard let value = Int(text), value >= 0 else { throw ToolError.badInput("\(name) must be a count of 0 or more, not '\(text)'") }
            return value
        }

        /// This list's URL with another offset.
        func link(offset: Int) -> String {
            HTML.link("/list", ["entity": entity, "where": filter, "sort": sort, "limit": String(limit), "offset": String(offset)])
        }
    }

    /// The filter form, then the objects `request` selects.
    /// - Throws: `FailedPage` for a bad filter or sort key (the form, with
    ///   the command line's error); `DynamicStoreError.unknownEntity`.
    static func list(_ store: DynamicStore, _ request: ListRequest, served: ServedStore) throws -> HTML {
        let entity = try store.entity(named: request.entity)
        let fields = store.fieldNames(entity)
        var rows: [HTML] = []
        let total: Int
        do {
            var query = DynamicQuery(
                entity: entity.name, filter: request.filter, sort: request.sort.map(splitList) ?? [], limit: request.limit,
                offset: request.offset)
            query.toleratesUnreadableValues = true
            total = try store.explained { try store.count(entity.name, filter: request.filter) }
            try store.explained {
                try store.forEach(query) { object in
                    let cells = fields.map { field -> HTML in "<td>\(Layout.value(object, field))</td>" }
                    rows.append("<tr><td>\(Layout.objectLink(object.id))</td>\(cells)</tr>")
                }
            }
        } catch {
            let (status, message) = describe(error)
            throw FailedPage(status: status, page: Layout.page(entity.name, store: served, filterForm(request) + Layout.error(message)))
        }
        let header = HTML(joining: fields.map { "<th>\($0)</th>" })
        let first = rows.isEmpty ? 0 : request.offset + 1
        var paging: [HTML] = ["<span id=\"shown\">\(first)–\(request.offset + rows.count) of \(total)</span>"]
        if request.offset > 0 {
            paging.append("<a rel=\"prev\" href=\"\(request.link(offset: max(0, request.offset - request.limit)))\">previous</a>")
        }
        if request.offset + rows.count < total && request.limit > 0 {
            paging.append("<a rel=\"next\" href=\"\(request.link(offset: request.offset + request.limit))\">next</a>")
        }
        let create: HTML = served.isReadOnly ? "" : "<p><a href=\"\(HTML.link("/new", ["entity": entity.name]))\">New \(entity.name)</a></p>"
        return Layout.page(
            entity.name, store: served,
            """
            \(filterForm(request))
            <p>\(HTML(joining: paging, separator: " · "))</p>
            <table id="objects"><tr><th>id</th>\(header)</tr>\(rows)</table>
            \(create)
            """)
    }

    /// The form that asks for a filter, sort keys and a page size.
    private static func filterForm(_ request: ListRequest) -> HTML {
        """
        <form method="get" action="/list" id="filter">
        <input type="hidden" name="entity" value="\(request.entity)">
        <label>where <input type="text" name="where" value="\(request.filter ?? "")" placeholder="nights > 3 and stops.count > 0"></label>
        <label>sort <input type="text" name="sort" value="\(request.sort ?? "")" placeholder="name, startDate:desc"></label>
        <label>limit <input type="number" name="limit" min="0" value="\(request.limit)"></label>
        <button type="submit">List</button>
        </form>
        """
    }
}

/// `HTML + HTML`: the two fragments one after the other.
func + (lhs: HTML, rhs: HTML) -> HTML { HTML(joining: [lhs, rhs]) }
