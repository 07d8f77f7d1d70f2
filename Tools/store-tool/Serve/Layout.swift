import ModelStore
import ModelStoreDynamic

/// The parts every page of `serve` shares: the frame with its navigation,
/// values as text or links, and error messages. Pages are plain HTML with a
/// little CSS, no script and nothing to build.
enum Layout {
    /// A whole page: `title`, the navigation, then `body`.
    static func page(_ title: String, store: ServedStore, _ body: HTML) -> HTML {
        let mode: HTML = store.isReadOnly ? "<span class=\"badge\">read-only</span>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(title) · store-tool</title>
            <meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer">
            <style>\(HTML(stringLiteral: style))</style></head>
            <body><nav><a href="/">Entities</a> · <a href="/schema">Schema</a> · <span class="path">\(store.path)</span> \(mode)</nav>
            <main><h1>\(title)</h1>
            \(body)
            </main></body></html>
            """
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}nav{background:#234;color:#ccd;padding:8px 16px}
        nav a{color:#fff}main{padding:8px 16px}table{border-collapse:collapse;margin:8px 0}
        th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}th{background:#eef}
        .error{background:#fdd;border:1px solid #c66;padding:6px 10px;white-space:pre-wrap}
        .notice{background:#dfd;border:1px solid #6a6;padding:6px 10px}.nil{color:#999}.bad{color:#a00}
        .badge{background:#c84;color:#fff;padding:1px 6px;border-radius:3px}.path{font-family:monospace}
        form.inline{display:inline;margin:0}input[type=text]{min-width:16em}svg text{font:12px monospace}
        """

    /// A link to an object's page, named by its identifier.
    static func objectLink(_ id: ObjectID) -> HTML {
        "<a href=\"\(HTML.link("/show", ["id": id.description]))\">\(id.description)</a>"
    }

    /// A link to an entity's list.
    static func entityLink(_ entity: String) -> HTML {
        "<a href=\"\(HTML.link("/list", ["entity": entity]))\">\(entity)</a>"
    }

    /// A property's value as `show` and `list` print it, with each related
    /// object as a link; a stored value that does not fit its type as bad.
    static func value(_ object: DynamicObject, _ field: String) -> HTML {
        if let unreadable = object.unreadable[field] { return "<span class=\"bad\">\(UnreadableText.cell(unreadable))</span>" }
        switch object[field] ?? .null {
        case .object(let id): return objectLink(id)
        case .objects(let ids): return ids.isEmpty ? "<span class=\"nil\">none</span>" : HTML(joining: ids.map(objectLink), separator: ", ")
        case .null: return "<span class=\"nil\">nil</span>"
        case let value: return "\(ValueText.format(value))"
        }
    }

    /// A value as an edit form shows it, in the form `set` takes back:
    /// a to-many as `Stop:1,Stop:2`, nil as empty.
    static func editText(_ value: DynamicValue?) -> String {
        switch value ?? .null {
        case .null: ""
        case .objects(let ids): ids.map(\.description).joined(separator: ",")
        case let value: ValueText.format(value)
        }
    }

    /// An error as the command line reports it (the same message; the
    /// command prints it after `store-tool: error: `).
    static func error(_ message: String) -> HTML {
        "<p class=\"error\" id=\"error\">\(message)</p>"
    }

    /// The hidden field that carries the token in a form that writes.
    static func tokenField(_ token: AccessToken) -> HTML {
        "<input type=\"hidden\" name=\"token\" value=\"\(token.text)\">"
    }
}

/// A page that reports a failure: served as it is, with the HTTP status of
/// the command line's exit code (see `ServeRoutes.httpStatus`).
struct FailedPage: Error {
    let status: ExitStatus
    let page: HTML
}
