import ModelStore
import ModelStoreDynamic

/// Prints a stream of objects in one format, in constant memory: a table
/// measures its columns on the first rows and then streams with those
/// widths (a longer value widens only its own row).
final class ObjectWriter {
    private let format: OutputFormat
    private let fields: [String]
    private let output: Output
    private var count = 0
    /// How many stored values that do not fit their types were shown (as
    /// `UnreadableText`); the command notes it on stderr.
    private(set) var unreadableCount = 0
    private var pending: [[String]] = []
    private var widths: [Int]?
    /// How many rows a table measures before it starts printing.
    private let measuredRows = 100
    /// The widest a table's column gets, in terminal cells; longer values
    /// are cut (`list --format jsonl` or `show` prints them whole).
    static let maximumColumnWidth = 60

    /// - Parameters:
    ///   - fields: the properties to print, in order (`id` is always first).
    init(format: OutputFormat, fields: [String], output: Output) {
        self.format = format
        self.fields = fields
        self.output = output
    }

    private var header: [String] { ["id"] + fields }

    /// Prints (or, for a table's first rows, holds) one object.
    func write(_ object: DynamicObject) {
        defer { count += 1 }
        unreadableCount += fields.filter { object.unreadable[$0] != nil }.count
        switch format {
        case .jsonl:
            output.line(JSONText.object(object, fields: fields))
        case .json:
            output.line((count == 0 ? "[" : ",") + JSONText.object(object, fields: fields))
        case .csv:
            if count == 0 { output.line(header.map(CSVFormat.field).joined(separator: ",")) }
            // Nil is an empty field, the empty string `""` (`CSVFormat`).
            let row = [object.id.description] + fields.map { field -> String? in
                if case .count(let count)? = object[field] { return String(count) }
                if object.unreadable[field] == nil, object[field] ?? .null == .null { return nil }
                return Self.text(object, field)
            }
            output.line(row.map(CSVFormat.field).joined(separator: ","))
        case .table:
            let row = cells(object)
            if widths != nil {
                printRow(row)
            } else {
                pending.append(row)
                if pending.count >= measuredRows { startTable() }
            }
        }
    }

    /// Ends the output (a JSON array's bracket, a table's held rows).
    func finish() {
        switch format {
        case .json: output.line(count == 0 ? "[]" : "]")
        case .table:
            if widths == nil { startTable() }
            if count == 0 { output.line("(no objects)") }
        case .csv where count == 0: output.line(header.map(CSVFormat.field).joined(separator: ","))
        default: break
        }
        output.flush()
    }

    private func cells(_ object: DynamicObject) -> [String] {
        [object.id.description] + fields.map { Self.text(object, $0) }
    }

    /// A field's value as text; a stored value that does not fit its type
    /// shown as bad (`UnreadableText`).
    static func text(_ object: DynamicObject, _ field: String) -> String {
        if let unreadable = object.unreadable[field] { return UnreadableText.cell(unreadable) }
        return ValueText.format(object[field] ?? .null)
    }

    private func startTable() {
        guard !pending.isEmpty || count == 0 else { return }
        var widths = header.map(CellWidth.of)
        for row in pending {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], CellWidth.of(oneLine(cell))) }
        }
        widths = widths.map { min($0, Self.maximumColumnWidth) }
        self.widths = widths
        let total = widths.reduce(0, +) + 2 * (widths.count - 1)
        isVertical = Terminal.outputIsTerminal && total > Terminal.width
        if !isVertical && !pending.isEmpty {
            printRow(header)
            output.line(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
        }
        for row in pending { printRow(row) }
        pending = []
    }

    private var isVertical = false

    private func printRow(_ row: [String]) {
        guard let widths else { return }
        if isVertical {
            // One field per line: the row is wider than the terminal.
            let nameWidth = header.map(CellWidth.of).max() ?? 0
            output.line(row[0])
            for (name, cell) in zip(header.dropFirst(), row.dropFirst()) {
                output.line("  " + name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + oneLine(cell))
            }
            return
        }
        var line = ""
        for (index, cell) in row.enumerated() {
            // A value wider than its column is cut (ending in "…") so that
            // the columns after it stay in place; the last column is not.
            let isLast = index == row.count - 1
            let text = isLast ? oneLine(cell) : CellWidth.truncated(oneLine(cell), to: widths[index])
            if index > 0 { line += "  " }
            line += text
            if !isLast { line += String(repeating: " ", count: max(0, widths[index] - CellWidth.of(text))) }
        }
        output.line(line)
    }

    private func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
            .replacingOccurrences(of: "\0", with: "\\0")
    }
}
