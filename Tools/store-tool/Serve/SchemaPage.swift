import ModelStore
import ModelStoreDynamic

/// The schema page: the diagram, then each entity's properties as `schema`
/// lists them (the same types and notes).
enum SchemaPage {
    static func page(_ store: DynamicStore, served: ServedStore) -> HTML {
        let entities = store.schema.entities.map { entity -> HTML in
            let attributes = entity.attributes.map { attribute -> HTML in
                "<tr><td>\(attribute.name)</td><td>\(SchemaCommand.typeText(attribute))</td><td>\(SchemaCommand.notes(attribute).joined(separator: ", "))</td></tr>"
            }
            let relationships = entity.relationships.map { relationship -> HTML in
                "<tr><td>\(relationship.name)</td><td>\(SchemaCommand.typeText(relationship))</td><td>\(SchemaCommand.notes(relationship).joined(separator: ", "))</td></tr>"
            }
            return "<h2 id=\"entity-\(entity.name)\">\(Layout.entityLink(entity.name))</h2><table>\(attributes)\(relationships)</table>"
        }
        return Layout.page("Schema", store: served, "\(ERDiagram.svg(store.schema.entities))\(entities)")
    }
}
