import Foundation
import ModelStore

// A Codable attribute's recorded JSON structure (`codableShape`), applied by
// the dynamic layer. Where the record holds none (an older app, or a type
// whose structure could not be derived), values are checked only as JSON,
// and `unknownStructureNote` says so rather than guessing.

extension Schema.Attribute {
    /// Why `value` does not fit the attribute's recorded Codable structure,
    /// with the path of the first part that does not
    /// (`budget.amount: expected a number, found the string "lots"`); nil
    /// when it fits, when it is nil, or when no readable structure is
    /// recorded.
    package func shapeProblem(_ value: DynamicValue) -> String? {
        guard case .json(let text) = value, let shape = recordedShape else { return nil }
        guard let json = try? JSONDecoder().decode(ExchangeJSON.self, from: Data(text.utf8)) else {
            return "\(name): the value is not valid JSON"
        }
        return shape.mismatch(in: json, path: name)
    }

    /// The recorded structure of a Codable attribute's values; nil when the
    /// record holds none or one that cannot be read (`unknownStructureNote`).
    package var recordedShape: ValueShape? {
        codableShape.flatMap { try? ValueShape.recorded($0) }
    }

    /// For a Codable attribute whose values' structure is not known, why,
    /// in words for a person; nil for every other attribute.
    package var unknownStructureNote: String? {
        guard kind == .codable else { return nil }
        guard let codableShape else {
            return "the structure of its JSON is not recorded (the store was written by an app built before "
                + "ModelStore recorded it, or \(typeName)'s structure cannot be derived from its decoding); "
                + "values are checked only as JSON"
        }
        do {
            _ = try ValueShape.recorded(codableShape)
            return nil
        } catch {
            return "its recorded structure cannot be read (\(error.reason)); values are checked only as JSON"
        }
    }
}

extension Schema {
    /// The Codable attributes whose values' structure is not known (see
    /// `Schema.Attribute.unknownStructureNote`), each once: an inherited
    /// attribute under the entity that declares it, not under every
    /// subentity that lists it too.
    package var attributesOfUnknownStructure: [(entity: String, attribute: Schema.Attribute)] {
        entities.flatMap { entity in
            let superentity = entity.superentityName.flatMap { self.entity(named: $0) }
            return entity.attributes.filter { attribute in
                attribute.unknownStructureNote != nil && superentity?.attribute(named: attribute.name) == nil
            }.map { (entity.name, $0) }
        }
    }
}
