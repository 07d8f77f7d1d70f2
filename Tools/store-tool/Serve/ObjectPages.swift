import ModelStore
import ModelStoreDynamic

/// The pages of one object: `show` with its relationships as links and,
/// unless the store is served read-only, a form per property that `set`s
/// it; the insert form; the delete plan and its confirmation.
enum ObjectPages {
    /// The object `id`: each property with its value and, when the store
    /// can be written, a form that sets it. `message` is shown above it: a
    /// notice after a write, or an error (the command line's text).
    /// - Throws: `DynamicStoreError.objectNotFound`, `.unknownEntity`, `.invalidIdentifier`.
    static func show(_ store: DynamicStore, id text: String, served: ServedStore, token: AccessToken, message: HTML = "") throws -> HTML {
        let id = try store.objectID(text)
        guard let object = try store.object(id, toleratingUnreadable: true) else { throw DynamicStoreError.objectNotFound(id) }
        let entity = try store.entity(named: id.entity)
        let rows = store.fieldNames(entity).map { field -> HTML in
            let edit = served.isReadOnly ? "" : editForm(object, field, entity: entity, token: token)
            return "<tr id=\"field-\(field)\"><th>\(field)</th><td class=\"value\">\(Layout.value(object, field))</td>\(edit)</tr>"
        }
        let delete: HTML = served.isReadOnly ? "" : "<p><a id=\"delete\" href=\"\(HTML.link("/delete", ["id": id.description]))\">Delete…</a></p>"
        return Layout.page(
            id.description, store: served,
            """
            \(message)
            <p>\(Layout.entityLink(entity.name))</p>
            <table id="object">\(rows)</table>
            \(delete)
            """)
    }

    /// A property's `set` form: the value as `set` takes it (literally: the
    /// text `nil` is the text), and for an optional property a button that
    /// sets nil.
    private static func editForm(_ object: DynamicObject, _ field: String, entity: Schema.Entity, token: AccessToken) -> HTML {
        let isOptional = entity.attribute(named: field)?.isOptional ?? (entity.relationship(named: field).map { $0.isOptional || $0.isToMany } ?? false)
        let clear: HTML = isOptional ? " <button type=\"submit\" name=\"nil\" value=\"1\">Set nil</button>" : ""
        let value = object.unreadable[field] == nil ? Layout.editText(object[field]) : ""
        return """
            <td><form class="inline" method="post" action="/set">\(Layout.tokenField(token))
            <input type="hidden" name="id" value="\(object.id.description)"><input type="hidden" name="property" value="\(field)">
            <input type="text" name="value" value="\(value)" aria-label="\(field)"> <button type="submit">Set</button>\(clear)</form></td>
            """
    }

    /// The edit a `set` form sends: its value literally, or nil.
    static func edit(_ form: FormData) throws -> DynamicEdit {
        guard let property = form.nonEmpty("property") else { throw ToolError.badInput("the form names no property") }
        return DynamicEdit(property: property, operation: .set, value: form["nil"] != nil ? nil : (form["value"] ?? ""))
    }

    /// The insert form of `entity`: one field per property; a field left
    /// empty is not given, so that the attribute takes its recorded default.
    /// - Throws: `DynamicStoreError.unknownEntity`.
    static func new(_ store: DynamicStore, entity name: String, served: ServedStore, token: AccessToken, form: FormData = FormData(nil), message: HTML = "") throws -> HTML {
        let entity = try store.entity(named: name)
        var rows: [HTML] = []
        for attribute in entity.attributes {
            let hint = attribute.typeName + (attribute.isOptional ? ", optional" : "") + (attribute.defaultValue.map { ", default \($0)" } ?? "")
            rows.append(field(attribute.name, hint: hint, form: form))
        }
        for relationship in entity.relationships {
            let hint = relationship.isToMany ? "\(relationship.destination):ID,…" : "\(relationship.destination):ID" + (relationship.isOptional ? ", optional" : "")
            rows.append(field(relationship.name, hint: hint, form: form))
        }
        return Layout.page(
            "New \(entity.name)", store: served,
            """
            \(message)
            <form method="post" action="/insert" id="insert">\(Layout.tokenField(token))
            <input type="hidden" name="entity" value="\(entity.name)">
            <table>\(rows)</table><button type="submit">Insert</button></form>
            """)
    }

    private static func field(_ name: String, hint: String, form: FormData) -> HTML {
        "<tr><th>\(name)</th><td><input type=\"text\" name=\"v.\(name)\" value=\"\(form["v." + name] ?? "")\" placeholder=\"\(hint)\"></td></tr>"
    }

    /// The edits an insert form sends: its non-empty fields, literally.
    static func insertEdits(_ form: FormData) -> [DynamicEdit] {
        form.fields(prefixed: "v.").filter { !$0.value.isEmpty }.map { DynamicEdit(property: $0.name, operation: .set, value: $0.value) }
    }

    /// What deleting `id` does, by the library's delete planner (as `delete`
    /// without `--yes` prints it), and a button that deletes unless a
    /// `.deny` rule blocks.
    /// - Throws: as `DynamicStore.deletePlan`.
    static func deletePlan(_ store: DynamicStore, id text: String, served: ServedStore, token: AccessToken) throws -> HTML {
        let id = try store.objectID(text)
        let plan = try store.deletePlan([id])
        let deleted = plan.deletedByEntity.map { entity -> HTML in
            "<li>\(entity.name): \(entity.count) (\(entity.reachedBy.joined(separator: ", ")))</li>"
        }
        let nullified = plan.nullifiedByProperty.map { link -> HTML in
            "<li>\(link.name): \(link.count) (\(link.reachedBy.joined(separator: ", ")))</li>"
        }
        let blocked = plan.blocked.map { block -> HTML in
            "<li>\(block.object.entity).\(block.relationship) (delete rule deny) of \(Layout.objectLink(block.object)) still holds "
                + HTML(joining: block.blockers.map(Layout.objectLink), separator: ", ") + "</li>"
        }
        let action: HTML =
            plan.isBlocked || served.isReadOnly
            ? "<p>Nothing can be deleted while a deny rule blocks.</p>"
            : """
            <form method="post" action="/delete" id="confirm-delete">\(Layout.tokenField(token))
            <input type="hidden" name="id" value="\(id.description)"><button type="submit">Delete \(plan.deleted.count) object\(plan.deleted.count == 1 ? "" : "s")</button></form>
            """
        return Layout.page(
            "Delete \(id.description)?", store: served,
            """
            <h2>Deleted</h2><ul id="deleted">\(deleted)</ul>
            \(nullified.isEmpty ? "" : "<h2>Links cleared</h2><ul id=\"nullified\">\(nullified)</ul>" as HTML)
            \(blocked.isEmpty ? "" : "<h2>Blocked</h2><ul id=\"blocked\">\(blocked)</ul>" as HTML)
            \(action)
            <p>\(Layout.objectLink(id))</p>
            """)
    }
}
