import ArgumentParser
import Foundation
import ModelStore
import ModelStoreDynamic

/// `schema STORE [ENTITY]`.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the entities, attributes and relationships the store records, or draw them.",
        discussion: """
            text lists each attribute with its Swift type, its kind and options, an enum's cases \
            (cases: planned | booked), the default an insert takes (default: planned) and a transformable \
            attribute's value transformer (transformable by MyApp.ColorTransformer: the column holds the \
            transformer's data, shown and set as base64), and the JSON structure a Codable attribute's \
            values must have (structure: {"object":{"amount":"number"}}, or structure not recorded); json is \
            the schema record itself (enumCases, defaultValue, codableShape, transformerName).

            Examples:
              store-tool schema trips.store
              store-tool schema trips.store Trip --format json
              store-tool schema trips.store --format mermaid > schema.mmd
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, mermaid, dot }

    @OptionGroup var options: StoreOptions
    @Argument(help: "Only this entity.") var entity: String?
    @Option(help: "text, json, mermaid or dot.") var format: Format = .text

    func run() throws {
        try reporting {
            let store = try options.open()
            let entities = try entity.map { [try store.entity(named: $0)] } ?? store.schema.entities
            let output = Output()
            switch format {
            case .text: text(entities, output)
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let value = entity == nil ? try encoder.encode(store.schema) : try encoder.encode(entities)
                output.line(String(decoding: value, as: UTF8.self))
            case .mermaid: mermaid(entities, output)
            case .dot: dot(entities, output)
            }
            output.flush()
        }
    }

    /// An attribute's Swift type as `schema` prints it (`String?`).
    static func typeText(_ attribute: Schema.Attribute) -> String {
        let name = attribute.typeName
        return name + (attribute.isOptional && !name.hasSuffix("?") ? "?" : "")
    }

    /// What `schema` says about an attribute: kind, representation,
    /// options, former name, enum cases, default.
    static func notes(_ attribute: Schema.Attribute) -> [String] {
        var notes = [attribute.kind.rawValue]
        if attribute.representation == .rawValue { notes.append("raw value") }
        if attribute.representation == .json { notes.append("JSON") }
        // A transformable column holds the transformer's data, which
        // only the app can read as its type: the note names it.
        notes += attribute.options.map { option in option.transformerName.map { "transformable by \($0)" } ?? option.name }
        if let original = attribute.originalName { notes.append("was \(original)") }
        if let cases = attribute.enumCases { notes.append("cases: " + cases.joined(separator: " | ")) }
        if let value = attribute.defaultValue { notes.append("default: " + value) }
        if let shape = attribute.recordedShape {
            notes.append("structure: " + shape.recordText)
        } else if attribute.kind == .codable {
            notes.append("structure not recorded")
        }
        return notes
    }

    /// A relationship's type as `schema` prints it (`[Stop]`, `Trip?`).
    static func typeText(_ relationship: Schema.Relationship) -> String {
        relationship.isToMany ? "[\(relationship.destination)]" : relationship.destination + (relationship.isOptional ? "?" : "")
    }

    /// What `schema` says about a relationship: cardinality, delete rule, inverse, counts.
    static func notes(_ relationship: Schema.Relationship) -> [String] {
        var notes = [relationship.isToMany ? "to-many" : "to-one", "delete rule \(relationship.deleteRule.rawValue)"]
        notes.append(relationship.inverseName.map { "inverse \(relationship.destination).\($0)" } ?? "no inverse")
        if let minimum = relationship.minimumModelCount, minimum > 0 { notes.append("min \(minimum)") }
        if let maximum = relationship.maximumModelCount, maximum > 0 { notes.append("max \(maximum)") }
        return notes
    }

    private func text(_ entities: [Schema.Entity], _ output: Output) {
        for (index, entity) in entities.enumerated() {
            if index > 0 { output.line("") }
            output.line(entity.name)
            let width = (entity.attributes.map(\.name) + entity.relationships.map(\.name)).map(\.count).max() ?? 0
            for attribute in entity.attributes {
                output.line("  " + attribute.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + Self.typeText(attribute) + "  (" + Self.notes(attribute).joined(separator: ", ") + ")")
            }
            for relationship in entity.relationships {
                output.line("  " + relationship.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + Self.typeText(relationship)
                    + "  (" + Self.notes(relationship).joined(separator: ", ") + ")")
            }
        }
    }

    /// Relationships drawn once per pair: from the side that sorts first.
    static func drawnRelationships(_ entities: [Schema.Entity]) -> [(Schema.Entity, Schema.Relationship, Schema.Relationship?)] {
        var result: [(Schema.Entity, Schema.Relationship, Schema.Relationship?)] = []
        let all = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
        for entity in entities {
            for relationship in entity.relationships {
                let inverse = relationship.inverseName.flatMap { all[relationship.destination]?.relationship(named: $0) }
                if let inverse, (relationship.destination, inverse.name) < (entity.name, relationship.name), all[relationship.destination] != nil {
                    continue
                }
                result.append((entity, relationship, inverse))
            }
        }
        return result
    }

    private func mermaidName(_ name: String) -> String {
        name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? name : "\"" + name.replacingOccurrences(of: "\"", with: "'") + "\""
    }

    private func mermaid(_ entities: [Schema.Entity], _ output: Output) {
        output.line("erDiagram")
        for entity in entities {
            output.line("    \(mermaidName(entity.name)) {")
            for attribute in entity.attributes {
                output.line("        \(attribute.kind.rawValue) \(mermaidName(attribute.name))\(attribute.isUnique ? " UK" : "")")
            }
            output.line("    }")
        }
        for (entity, relationship, inverse) in Self.drawnRelationships(entities) {
            let near = inverse.map { $0.isToMany ? "}o" : "|o" } ?? "|o"
            let far = relationship.isToMany ? "o{" : "o|"
            let label = ([relationship.name] + (inverse.map { [$0.name] } ?? [])).joined(separator: " / ")
            output.line("    \(mermaidName(entity.name)) \(near)--\(far) \(mermaidName(relationship.destination)) : \"\(label)\"")
        }
    }

    private func dotText(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "{", with: "\\{").replacingOccurrences(of: "}", with: "\\}")
            .replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "<", with: "\\<").replacingOccurrences(of: ">", with: "\\>")
    }

    private func dot(_ entities: [Schema.Entity], _ output: Output) {
        output.line("digraph schema {")
        output.line("    node [shape=record];")
        for entity in entities {
            let fields = entity.attributes.map { dotText("\($0.name): \(Self.typeText($0))") }.joined(separator: "\\l")
            output.line("    \"\(dotText(entity.name))\" [label=\"{\(dotText(entity.name))|\(fields)\\l}\"];")
        }
        for (entity, relationship, inverse) in Self.drawnRelationships(entities) {
            let label = ([relationship.name] + (inverse.map { [$0.name] } ?? [])).joined(separator: " / ")
            let heads = (inverse?.isToMany == true ? "crow" : "none", relationship.isToMany ? "crow" : "tee")
            output.line("    \"\(dotText(entity.name))\" -> \"\(dotText(relationship.destination))\" [label=\"\(dotText(label))\", dir=both, arrowtail=\(heads.0), arrowhead=\(heads.1)];")
        }
        output.line("}")
    }
}
