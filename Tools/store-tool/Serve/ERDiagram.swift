import Foundation
import ModelStore

/// The schema's entity-relationship diagram as SVG, drawn on the server so
/// that the page needs no script: a box per entity with its attributes, a
/// line per relationship (once per pair of inverses, as `schema --format
/// mermaid` draws them) with each end's cardinality (`1`, `0..1`, `*`) and
/// the relationship's names.
///
/// The layout is a grid, entities in schema order row by row, the columns
/// about the square root of their number: deterministic, so the same
/// schema always draws the same picture. Lines go from box to box between
/// their borders; a relationship of an entity with itself is a loop above
/// its box, and several relationships between one pair are set apart.
enum ERDiagram {
    private static let characterWidth = 7.3
    private static let lineHeight = 16.0
    private static let headerHeight = 22.0
    private static let gap = (x: 170.0, y: 100.0)
    private static let margin = 20.0

    private struct Box {
        var x = 0.0, y = 0.0, width: Double, height: Double
        var center: (x: Double, y: Double) { (x + width / 2, y + height / 2) }
    }

    /// The diagram of `entities`.
    static func svg(_ entities: [Schema.Entity]) -> HTML {
        guard !entities.isEmpty else { return "<p>The schema has no entities.</p>" }
        let drawn = SchemaCommand.drawnRelationships(entities)
        var perPair: [String: Int] = [:]
        for (entity, relationship, _) in drawn { perPair[pairKey(entity.name, relationship.destination), default: 0] += 1 }
        // Loops rise above their box: each row leaves room for the tallest.
        let loopRoom = perPair.filter { !$0.key.contains("\u{0}") }.values.max().map { loopHeight + 14 * Double($0) + 6 } ?? 0
        var boxes = entities.map { entity -> Box in
            let lines = [entity.name] + entity.attributes.map(attributeLine)
            let widest = lines.map(\.count).max() ?? 0
            let loops = Double(perPair[entity.name] ?? 0)
            return Box(
                width: max(loops * loopStep + 8, Double(widest) * characterWidth + 16),
                height: headerHeight + Double(entity.attributes.count) * lineHeight + 8)
        }
        let columns = Int(Double(entities.count).squareRoot().rounded(.up))
        let rows = (entities.count + columns - 1) / columns
        let columnWidths = (0..<columns).map { column in stride(from: column, to: boxes.count, by: columns).map { boxes[$0].width }.max() ?? 0 }
        let rowHeights = (0..<rows).map { row in boxes[(row * columns)..<min(boxes.count, (row + 1) * columns)].map(\.height).max() ?? 0 }
        for index in boxes.indices {
            let (row, column) = (index / columns, index % columns)
            boxes[index].x = margin + columnWidths[..<column].reduce(0, +) + Double(column) * gap.x
            boxes[index].y = margin + loopRoom + rowHeights[..<row].reduce(0, +) + Double(row) * (gap.y + loopRoom)
        }
        let width = margin * 2 + columnWidths.reduce(0, +) + Double(columns - 1) * gap.x
        let height = margin * 2 + loopRoom + rowHeights.reduce(0, +) + Double(rows - 1) * (gap.y + loopRoom)
        let index = Dictionary(entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var parts: [HTML] = []
        var drawnPerPair: [String: Int] = [:]
        for (entity, relationship, inverse) in drawn {
            guard let from = index[entity.name], let to = index[relationship.destination] else { continue }
            let pair = pairKey(entity.name, relationship.destination)
            let order = drawnPerPair[pair, default: 0]
            drawnPerPair[pair] = order + 1
            let label = ([relationship.name] + (inverse.map { [$0.name] } ?? [])).joined(separator: " / ")
            let ends = (inverse.map(cardinality) ?? "", cardinality(relationship))
            // Several lines between one pair are spread evenly around the line between the centers.
            let spread = Double(order) - Double(perPair[pair, default: 1] - 1) / 2
            parts.append(
                from == to
                    ? loop(boxes[from], order: order, label: label, ends: ends)
                    : line(boxes[from], boxes[to], shift: spread * 30, label: label, ends: ends))
        }
        for (entity, box) in zip(entities, boxes) { parts.append(draw(entity, box)) }
        return """
            <svg id="er-diagram" xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" \
            viewBox="0 0 \(number(width)) \(number(height))" role="img" aria-label="entity-relationship diagram">\(parts)</svg>
            """
    }

    /// The same key for both directions of a pair; an entity with itself has no separator.
    private static func pairKey(_ a: String, _ b: String) -> String {
        a == b ? a : [a, b].sorted().joined(separator: "\u{0}")
    }

    /// How high a loop rises above its box, and how far each loop starts from the one before.
    private static let loopHeight = 26.0
    private static let loopStep = 64.0

    private static func attributeLine(_ attribute: Schema.Attribute) -> String {
        "\(attribute.name): \(SchemaCommand.typeText(attribute))"
    }

    /// How many objects one end holds: `*` for a to-many, `0..1` for an optional to-one, `1` otherwise.
    private static func cardinality(_ relationship: Schema.Relationship) -> String {
        relationship.isToMany ? "*" : (relationship.isOptional ? "0..1" : "1")
    }

    private static func draw(_ entity: Schema.Entity, _ box: Box) -> HTML {
        let attributes = entity.attributes.enumerated().map { offset, attribute -> HTML in
            let y = box.y + headerHeight + lineHeight * Double(offset + 1) - 2
            return "<text x=\"\(number(box.x + 8))\" y=\"\(number(y))\">\(attributeLine(attribute))</text>"
        }
        return """
            <g class="entity" data-entity="\(entity.name)"><rect x="\(number(box.x))" y="\(number(box.y))" width="\(number(box.width))" \
            height="\(number(box.height))" fill="#f8f8ff" stroke="#345"/><rect x="\(number(box.x))" y="\(number(box.y))" \
            width="\(number(box.width))" height="\(number(headerHeight))" fill="#234"/><text x="\(number(box.x + 8))" \
            y="\(number(box.y + 15))" fill="#fff" font-weight="bold">\(entity.name)</text>\(attributes)</g>
            """
    }

    /// A straight line between two boxes' borders, moved sideways by
    /// `shift` so that several lines between one pair do not overlap.
    private static func line(_ a: Box, _ b: Box, shift: Double, label: String, ends: (String, String)) -> HTML {
        let (ca, cb) = (a.center, b.center)
        let length = max(1, hypot(cb.x - ca.x, cb.y - ca.y))
        let normal = (x: -(cb.y - ca.y) / length, y: (cb.x - ca.x) / length)
        let start = border(a, toward: (cb.x + normal.x * shift, cb.y + normal.y * shift), shift: (normal.x * shift, normal.y * shift))
        let end = border(b, toward: (ca.x + normal.x * shift, ca.y + normal.y * shift), shift: (normal.x * shift, normal.y * shift))
        let direction = (x: (end.x - start.x) / length, y: (end.y - start.y) / length)
        let nearStart = (start.x + direction.x * 32 + normal.x * 12, start.y + direction.y * 32 + normal.y * 12 + 4)
        let nearEnd = (end.x - direction.x * 32 + normal.x * 12, end.y - direction.y * 32 + normal.y * 12 + 4)
        let middle = ((start.x + end.x) / 2 - normal.x * 10, (start.y + end.y) / 2 - normal.y * 10 + 4)
        return """
            <g class="relationship"><line x1="\(number(start.x))" y1="\(number(start.y))" x2="\(number(end.x))" y2="\(number(end.y))" \
            stroke="#567"/>\(text(ends.0, at: nearStart, "cardinality"))\(text(ends.1, at: nearEnd, "cardinality"))\
            \(text(label, at: middle, "label"))</g>
            """
    }

    /// A relationship of an entity with itself: a loop on the box's top
    /// edge, side by side with the box's other loops, the cardinalities
    /// inside it under its corners and its names above it, each loop's a
    /// line higher than the one before, so that no two overlap.
    private static func loop(_ box: Box, order: Int, label: String, ends: (String, String)) -> HTML {
        let left = box.x + 10 + Double(order) * loopStep
        let right = left + loopStep - 12
        let top = box.y - loopHeight
        return """
            <g class="relationship"><path d="M \(number(left)) \(number(box.y)) V \(number(top)) H \(number(right)) \
            V \(number(box.y))" fill="none" stroke="#567"/>\(text(ends.0, at: (left + 3, top + 13), "cardinality", anchor: "start"))\
            \(text(ends.1, at: (right - 3, top + 13), "cardinality", anchor: "end"))\
            \(text(label, at: (left, top - 4 - 14 * Double(order)), "label", anchor: "start"))</g>
            """
    }

    /// Where the line from `box`'s center (moved by `shift`) toward `point` leaves the box.
    private static func border(_ box: Box, toward point: (Double, Double), shift: (Double, Double)) -> (x: Double, y: Double) {
        let from = (x: box.center.x + shift.0, y: box.center.y + shift.1)
        let delta = (x: point.0 - from.x, y: point.1 - from.y)
        let scales = [
            delta.x == 0 ? Double.infinity : (box.width / 2) / abs(delta.x), delta.y == 0 ? Double.infinity : (box.height / 2) / abs(delta.y),
        ]
        let scale = min(1, scales.min() ?? 1)
        return (from.x + delta.x * scale, from.y + delta.y * scale)
    }

    private static func text(_ text: String, at point: (Double, Double), _ kind: String, anchor: String = "middle") -> HTML {
        guard !text.isEmpty else { return "" }
        return "<text class=\"\(kind)\" x=\"\(number(point.0))\" y=\"\(number(point.1))\" text-anchor=\"\(anchor)\">\(text)</text>"
    }

    /// A coordinate with one decimal, as SVG reads it.
    private static func number(_ value: Double) -> String { String(format: "%.1f", value) }
}
